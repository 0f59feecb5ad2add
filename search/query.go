package search

import (
	"regexp"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/request"
)

// prepareQuery turns what an agent asked of lib into the text the index
// ranks by.
func prepareQuery(q string, lib *artifacts.CatalogLib) string {
	return withoutFiller(withoutLibraryName(normalizeQuery(q), lib))
}

// normalizeQuery applies the topic rules to a one-word query ("app/routing",
// "partial-pre-rendering") but only drops placeholders and stray quotes from
// a question, whose slashes and hyphens carry meaning ("GET /users/me").
func normalizeQuery(q string) string {
	n := request.NormalizeTopic(q)
	if n == "" {
		return n
	}
	if w := strings.Trim(strings.TrimSpace(q), "\"'`"); !strings.ContainsAny(w, " \t\n") {
		// Both forms: the normalized words ("user id") and the word as
		// written, which matches an identifier whole ("user_id").
		if n != w {
			return w + " " + n
		}
		return n
	}
	return strings.Trim(strings.TrimSpace(q), "\"'`")
}

// withoutLibraryName drops the library's own name from a question of
// several words ("my fastapi backend" asked of /tiangolo/fastapi): every
// section is about the library, so the name only rewards headings that
// happen to repeat it.
func withoutLibraryName(q string, lib *artifacts.CatalogLib) string {
	words := strings.Fields(q)
	if len(words) < 2 {
		return q
	}
	names := map[string]bool{strings.ToLower(lib.ID[strings.LastIndex(lib.ID, "/")+1:]): true}
	for _, a := range append([]string{lib.Title}, lib.Aliases...) {
		if a != "" && !strings.Contains(a, " ") {
			names[strings.ToLower(a)] = true
		}
	}
	kept := words[:0:0]
	for _, w := range words {
		if !names[strings.ToLower(strings.Trim(w, ".,;:!?'\"`()"))] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return q
	}
	return strings.Join(kept, " ")
}

// filler are words of questions, beyond the index's English stop words,
// that say nothing about what is asked: modal verbs the stop words keep,
// contractions typed without their apostrophe, and the phrasing of a
// request to an assistant. Only multi-word questions lose them.
var filler = map[string]bool{
	"can": true, "will": true, "may": true, "might": true, "must": true, "shall": true,
	"cant": true, "dont": true, "doesnt": true, "didnt": true, "isnt": true, "arent": true,
	"wasnt": true, "werent": true, "wont": true, "wouldnt": true, "shouldnt": true, "couldnt": true,
	"havent": true, "hasnt": true, "hadnt": true, "im": true, "ive": true, "youre": true,
	"thats": true, "whats": true, "hows": true, "theres": true,
	"please": true, "thanks": true, "anyone": true, "someone": true, "somehow": true,
	"possible": true, "possibly": true, "properly": true, "correctly": true, "actually": true,
	"really": true, "basically": true, "just": true, "also": true, "still": true, "even": true,
	"etc": true, "eg": true, "ie": true, "vs": true, "versus": true,
	"want": true, "wanna": true, "trying": true, "tried": true,
}

// exampleURL matches a URL or host name on the domains RFC 2606 reserves
// for examples (example.com, .org, .net and the .example top-level domain),
// with any port and path: "example.com/my-app/" illustrates a question, it
// does not say what it is about.
var exampleURL = regexp.MustCompile(`(?i)^([a-z][a-z0-9+.-]*://)?(([\w-]+\.)*example\.(com|org|net)|([\w-]+\.)+example)(:\d+)?(/\S*)?$`)

// withoutFiller drops filler words and example URLs from a question of
// several words. A typographic apostrophe counts as a plain one ("doesn’t"
// is a stop word).
func withoutFiller(q string) string {
	q = strings.ReplaceAll(q, "\u2019", "'")
	words := strings.Fields(q)
	if len(words) < 2 {
		return q
	}
	kept := words[:0:0]
	for _, w := range words {
		bare := strings.Trim(w, ".,;:!?'\"`()")
		if !filler[strings.ToLower(bare)] && !exampleURL.MatchString(bare) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return q
	}
	return strings.Join(kept, " ")
}
