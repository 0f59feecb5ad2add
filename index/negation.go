package index

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Negated words. Documentation names a state by its un- word (unset,
// undefined, unused, unhandled, unsupported, unreachable), where a
// question says it with a negation: "fields that were never set", "is not
// defined", "isn't used". A word a negation stands before (up to two
// auxiliaries or adverbs may come between: "not be used", "not yet
// defined", "should not have been called") also asks for its un- word, at
// impliedWeight and only where the index has that word: a guess at the
// asker's meaning, which a word as typed outweighs.
//
// Only a word shaped as a state is taken: a participle (-ed, -en, -wn, or
// an irregular one such as set or found) or an adjective (-able, -ible, or
// a few common ones). Before a verb, un- names the opposite action, not
// the state: "does not install" is not about uninstalling, "does not
// marshal" not about unmarshalling; and "un" before other words makes
// unrelated ones ("not less" is not unless).

// impliedWeight scales the score of a word the query implies rather than
// says (the un- word of a negated one).
const impliedWeight = 0.7

// maxImplied bounds the words a query implies: a pasted log may hold many
// negations.
const maxImplied = 4

// maxBetween is how many auxiliaries and adverbs may stand between a
// negation and the word it negates.
const maxBetween = 2

// negations are the words that negate the word after them; besides these,
// any word ending in "n't" does. The contractions are also listed without
// their apostrophe, which questions often leave out.
var negations = map[string]bool{
	"not": true, "never": true, "no": true, "cannot": true,
	"dont": true, "doesnt": true, "didnt": true, "isnt": true, "arent": true,
	"wasnt": true, "werent": true, "wont": true, "cant": true, "couldnt": true,
	"shouldnt": true, "wouldnt": true, "hasnt": true, "havent": true,
	"hadnt": true, "mustnt": true, "neednt": true,
}

// between are the words that may stand between a negation and the word
// it negates, besides adverbs in -ly.
var between = map[string]bool{
	"be": true, "been": true, "being": true, "get": true, "gets": true, "got": true, "getting": true,
	"have": true, "has": true, "had": true, "yet": true, "even": true, "ever": true,
	"always": true, "still": true,
}

// stateWords are participles and adjectives whose un- word is common in
// documentation and whose shape does not say so.
var stateWords = map[string]bool{
	"set": true, "found": true, "built": true, "done": true, "run": true, "put": true,
	"read": true, "sent": true, "kept": true, "left": true, "made": true, "bound": true,
	"held": true, "hit": true, "cut": true, "shut": true, "split": true, "stuck": true,
	"safe": true, "sure": true, "clear": true, "aware": true, "able": true, "common": true,
	"usual": true, "known": true, "seen": true, "shown": true, "written": true,
}

// stateSuffixes end participles and adjectives.
var stateSuffixes = []string{"ed", "en", "wn", "able", "ible"}

// negated returns the un- words of the words text negates, lower-cased
// and not analyzed, in order, at most maxImplied. Only words of letters
// count: a flag (--no-cache), an identifier (NO_PROXY) or a number makes
// none. It allocates only what it returns: it runs on every query.
func negated(text string) []string {
	var out []string
	after := -1 // words read since a negation; -1 when none is pending
	for rest := text; rest != "" && len(out) < maxImplied; {
		var w string
		w, rest = nextWord(rest)
		switch {
		case w == "":
			after = -1
		case isNegation(w):
			after = 0
		case after < 0:
		case after < maxBetween && isBetween(w):
			after++
		default:
			if isStateWord(w) {
				out = append(out, "un"+strings.ToLower(w))
			}
			after = -1
		}
	}
	return out
}

// nextWord returns the next whitespace-separated word of s without the
// quotes and punctuation around it, and what follows it. A word that is
// not all letters (inner apostrophes aside) comes back as "".
func nextWord(s string) (string, string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	end := strings.IndexFunc(s, unicode.IsSpace)
	if end < 0 {
		end = len(s)
	}
	w := strings.TrimFunc(s[:end], func(r rune) bool { return !unicode.IsLetter(r) })
	for _, r := range w {
		if !unicode.IsLetter(r) && !isApostrophe(r) {
			return "", s[end:]
		}
	}
	return w, s[end:]
}

// isApostrophe reports whether r is an apostrophe or a mark typed for one.
func isApostrophe(r rune) bool {
	return r == '\'' || r == '’' || r == '‘' || r == 'ʼ' || r == '`'
}

// isNegation reports whether w (any case) negates the word after it.
func isNegation(w string) bool {
	if n := len(w); n > 3 {
		last, size := utf8.DecodeLastRuneInString(w)
		if last == 't' || last == 'T' {
			a, asize := utf8.DecodeLastRuneInString(w[:n-size])
			p, _ := utf8.DecodeLastRuneInString(w[:n-size-asize])
			if isApostrophe(a) && (p == 'n' || p == 'N') {
				return true
			}
		}
	}
	if len(w) > len("shouldnt") {
		return false
	}
	var buf [8]byte
	return negations[string(lowerASCII(buf[:0], w))]
}

// isBetween reports whether w may stand between a negation and the word
// it negates: an auxiliary or an adverb.
func isBetween(w string) bool {
	if n := len(w); n > 3 && (w[n-2]|0x20) == 'l' && (w[n-1]|0x20) == 'y' {
		return true
	}
	if len(w) > len("getting") {
		return false
	}
	var buf [8]byte
	return between[string(lowerASCII(buf[:0], w))]
}

// isStateWord reports whether w is shaped as a participle or adjective of
// at least three letters (see the note on negated words above).
func isStateWord(w string) bool {
	if utf8.RuneCountInString(w) < 3 || strings.ContainsFunc(w, isApostrophe) {
		return false
	}
	var buf [24]byte
	l := lowerASCII(buf[:0], w)
	if stateWords[string(l)] {
		return true
	}
	for _, suf := range stateSuffixes {
		if len(l) > len(suf)+1 && bytes.HasSuffix(l, []byte(suf)) {
			return true
		}
	}
	return false
}

// lowerASCII appends w with its ASCII letters lower-cased to buf: a map
// look-up by string(lowerASCII(...)) allocates nothing when buf is an
// array on the caller's stack.
func lowerASCII(buf []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}
