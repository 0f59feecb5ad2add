package markdown

import (
	"strconv"
	"strings"
	"unicode"
)

// Slug returns GitHub's anchor slug for a heading's plain text, as
// github-slugger computes it: the text is lower-cased, every character
// that is not a letter, a digit, a combining mark, '-', '_' or a space is
// removed, and each space becomes '-' (runs of spaces are not collapsed).
// It does not make the slug unique; Split does that per document.
//
// Slug makes anchors only: topic ids use config.Slug (as topics.Slug),
// which collapses and trims separators instead, so that an id does not
// depend on punctuation. The two rules are different on purpose.
func Slug(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case r < 0x80:
			if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
				b.WriteRune(r)
			}
		case unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Nl):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// slugger makes anchors unique within a document the way github-slugger
// does: a repeated slug gets -1, -2, ... appended.
type slugger struct {
	seen map[string]int
}

func newSlugger() *slugger {
	// The empty anchor belongs to the level-0 section.
	return &slugger{seen: map[string]int{"": 0}}
}

// unique returns anchor, or anchor-N for the smallest N that was not
// handed out yet, and records the result.
func (s *slugger) unique(anchor string) string {
	result := anchor
	for {
		if _, taken := s.seen[result]; !taken {
			break
		}
		s.seen[anchor]++
		result = anchor + "-" + strconv.Itoa(s.seen[anchor])
	}
	s.seen[result] = 0
	return result
}
