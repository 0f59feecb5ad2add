package request

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what a request may ask, so one request cannot cost the server
// more than a normal one many times over.
const (
	// MaxQueryBytes bounds a query; agents paste error messages, rarely
	// more than a few lines.
	MaxQueryBytes = 4096
	// MaxTopicsGiven bounds the topics a request may name; only the first
	// 20 distinct ones are used (see NormalizeTopics).
	MaxTopicsGiven = 100
	// MaxTopicBytes bounds one topic: a slug or a name of a few words. It
	// keeps what an error message quotes back (the unknown topics) small.
	MaxTopicBytes = 256
	// MaxPathBytes bounds a path: far longer than any document's path.
	MaxPathBytes = 1024
	// MaxLimit bounds a search's number of hits.
	MaxLimit = 500
)

// Modes of a search: prose sections or code examples (index.KindInfo and
// index.KindCode).
const (
	ModeInfo = "info"
	ModeCode = "code"
)

// CheckLimits refuses a query, topics or mode beyond what any request
// needs, before any work is done for it: a request of a megabyte costs no
// more than a normal one, and its error quotes at most a few dozen
// characters of it back.
func CheckLimits(query string, topicList []string, mode string) error {
	if m := strings.ToLower(strings.TrimSpace(mode)); m != "" && m != ModeInfo && m != ModeCode {
		return fmt.Errorf("%w (got %q)", ErrInvalidMode, Clip(mode, 40))
	}
	if len(query) > MaxQueryBytes {
		return fmt.Errorf("%w: the query is %d bytes, at most %d: keep the key words or the first line of the error", ErrInvalidRequest, len(query), MaxQueryBytes)
	}
	if len(topicList) > MaxTopicsGiven {
		return fmt.Errorf("%w: %d topics given, at most %d (only the first 20 distinct ones are used)", ErrInvalidRequest, len(topicList), MaxTopicsGiven)
	}
	for i, t := range topicList {
		if err := CheckText("topic", t); err != nil {
			return fmt.Errorf("%w: topic %d: %w", ErrInvalidRequest, i+1, err)
		}
		if len(t) > MaxTopicBytes {
			return fmt.Errorf("%w: topic %d (%q) is %d bytes, at most %d: give topic slugs from the library's topic tree, and put a question in the query", ErrInvalidRequest, i+1, Clip(t, 40), len(t), MaxTopicBytes)
		}
	}
	return nil
}

// Clip shortens s to at most n bytes of valid UTF-8, marking a cut with
// "…", for quoting input in messages.
func Clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\ufffd")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Token budget bounds of an answer. A budget outside them is clamped, with
// a note; none is refused.
const (
	DefaultTokens = 5000
	MinTokens     = 200
	MaxTokens     = 50000
)

// MaxPage is the highest page any answer can have: a search packs at most
// 500 sections, and no document is cut into more pages of MinTokens. A
// page beyond it is refused before any work.
const MaxPage = 10000

// ClampTokens brings a token budget within MinTokens and MaxTokens (0
// means DefaultTokens), with a note saying what changed: a budget is
// never refused.
func ClampTokens(n int) (int, []string) {
	switch {
	case n == 0:
		return DefaultTokens, nil
	case n < MinTokens:
		return MinTokens, []string{fmt.Sprintf("tokens %d raised to the minimum of %d", n, MinTokens)}
	case n > MaxTokens:
		return MaxTokens, []string{fmt.Sprintf("tokens %d lowered to the maximum of %d", n, MaxTokens)}
	}
	return n, nil
}
