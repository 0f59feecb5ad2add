// Package tokens estimates how many LLM tokens a text costs.
//
// The estimate stands in for a real tokenizer (none ships as a Go library we
// can vendor): it is deterministic, cheap enough for the build's hot path and
// close enough for budgets. Words of ASCII letters and digits cost one token
// per four bytes (at least one), each ASCII punctuation or symbol one token,
// and every non-ASCII rune one token, which is about right for CJK scripts
// and errs on the safe side for accented Latin. A run of whitespace costs
// nothing for its first byte (a tokenizer folds one space or newline into
// the next word) and a token for every four bytes after it, as tokenizers
// encode indentation and blank lines: whitespace is never free, so a text
// of Count n is at most 5n+1 bytes, whatever it holds (an answer budgeted
// in tokens is bounded in bytes too).
package tokens

import "unicode/utf8"

// Count returns the estimated token count of s. It is safe for concurrent use.
func Count(s string) int {
	n, word, space := 0, 0, 0
	flush := func() {
		if word > 0 {
			n += (word + 3) / 4
			word = 0
		}
		if space > 1 {
			n += (space + 2) / 4 // the first byte is free: ceil((space-1)/4)
		}
		space = 0
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
				if space > 0 {
					flush()
				}
				word++
			case c == ' ', c == '\t', c == '\n', c == '\r', c == '\f', c == '\v':
				if word > 0 {
					flush()
				}
				space++
			default:
				flush()
				n++
			}
			i++
			continue
		}
		flush()
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	flush()
	return n
}
