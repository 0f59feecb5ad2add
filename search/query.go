package search

import (
	"strings"

	"github.com/codex7/codex7/artifacts"
)

// prepareQuery turns what an agent asked of lib into the text the index
// ranks by.
func prepareQuery(q string, lib *artifacts.CatalogLib) string {
	return withoutLibraryName(normalizeQuery(q), lib)
}

// normalizeQuery applies the topic rules to a one-word query ("app/routing",
// "partial-pre-rendering") but only drops placeholders and stray quotes from
// a question, whose slashes and hyphens carry meaning ("GET /users/me").
func normalizeQuery(q string) string {
	n := NormalizeTopic(q)
	if n == "" || !strings.ContainsAny(strings.TrimSpace(q), " \t\n") {
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
