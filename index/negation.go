package index

import (
	"strings"
	"unicode"
)

// Negated words. Documentation names a state by its un- word (unset,
// undefined, unused, unhandled, unsupported, unreachable), where a
// question says it with a negation: "fields that were never set", "is not
// defined", "isn't used". A word a negation stands before (one auxiliary
// may come between: "not be used", "never got called") also asks for its
// un- word, at impliedWeight and only where the index has that word: a
// guess at the asker's meaning, which a word as typed outweighs.

// impliedWeight scales the score of a word the query implies rather than
// says (the un- word of a negated one).
const impliedWeight = 0.7

// maxImplied bounds the words a query implies: a pasted log may hold many
// negations.
const maxImplied = 4

// negations are the words that negate the word after them, with and
// without the apostrophe questions often leave out.
var negations = map[string]bool{
	"not": true, "never": true, "no": true, "cannot": true,
	"don't": true, "doesn't": true, "didn't": true, "isn't": true, "aren't": true,
	"wasn't": true, "weren't": true, "won't": true, "can't": true, "couldn't": true,
	"shouldn't": true, "wouldn't": true, "hasn't": true, "haven't": true,
	"dont": true, "doesnt": true, "didnt": true, "isnt": true, "arent": true,
	"wasnt": true, "werent": true, "wont": true, "cant": true, "couldnt": true,
}

// auxiliaries may stand between a negation and the word it negates.
var auxiliaries = map[string]bool{
	"be": true, "been": true, "being": true, "get": true, "gets": true, "got": true, "getting": true,
}

// negated returns the un- words of the words text negates, as written
// (not analyzed), in order, at most maxImplied. Words of fewer than three
// letters are left out: "un" before them makes other words (undo, unit).
func negated(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	})
	var out []string
	for i := 0; i+1 < len(words) && len(out) < maxImplied; i++ {
		if !negations[strings.ReplaceAll(words[i], "’", "'")] {
			continue
		}
		w := words[i+1]
		if auxiliaries[w] && i+2 < len(words) {
			w = words[i+2]
		}
		if len(w) < 3 || strings.ContainsAny(w, "'’") || strings.HasPrefix(w, "un") {
			continue
		}
		out = append(out, "un"+w)
	}
	return out
}
