package request

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// ErrInvalidCharacter means a library id, version, topic or path holds a
// control character (NUL, tab, newline…), an invisible format character
// (zero-width space or joiner, byte order mark, soft hyphen, direction
// mark or override) or bytes that are not UTF-8. Such input is refused,
// never cleaned: what an agent cannot see it sent must not silently name
// something else (a bidi override can make one id read as another), and
// what is refused on one transport is refused on all. Free text (a query)
// may hold them.
var ErrInvalidCharacter = errors.New("invalid character")

// CheckText returns an error wrapping ErrInvalidCharacter when s, which
// what names for the message ("topic", "path"), holds a control or
// invisible character or is not UTF-8; nil otherwise.
func CheckText(what, s string) error {
	if why := badCharacter(s); why != "" {
		return fmt.Errorf("%w: %s %q %s; remove control and invisible characters", ErrInvalidCharacter, what, Clip(s, 60), why)
	}
	return nil
}

// badCharacter says what the first control or invisible character of s
// is, and where ("has U+0000 (a control character) at byte 3"), or "".
func badCharacter(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Sprintf("is not valid UTF-8 (byte %#x at %d)", s[i], i)
			}
		case unicode.IsControl(r):
			return fmt.Sprintf("has %U (a control character) at byte %d", r, i)
		case unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("has %U (an invisible character) at byte %d", r, i)
		}
	}
	return ""
}
