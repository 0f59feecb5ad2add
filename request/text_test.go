package request

import (
	"errors"
	"strings"
	"testing"
)

// bad are inputs with a control or invisible character, or bytes that are
// not UTF-8, at the start, the end or inside.
var bad = map[string]string{
	"NUL at the end":       "docs\x00",
	"NUL inside":           "do\x00cs",
	"tab at the start":     "\tdocs",
	"newline at the end":   "docs\n",
	"zero-width space":     "do\u200bcs",
	"byte order mark":      "\ufeffdocs",
	"bidi override":        "docs\u202e",
	"soft hyphen":          "do\u00adcs",
	"DEL":                  "docs\x7f",
	"C1 control":           "docs\u0085",
	"invalid UTF-8":        "docs\xff",
	"zero-width joiner":    "a\u200db",
	"left-to-right mark":   "\u200edocs",
	"word joiner":          "docs\u2060",
	"interlinear annotate": "docs\ufff9",
}

func TestCheckText(t *testing.T) {
	for name, s := range bad {
		err := CheckText("topic", s)
		if !errors.Is(err, ErrInvalidCharacter) {
			t.Errorf("%s: CheckText(%q) = %v, want ErrInvalidCharacter", name, s, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "topic") || !strings.Contains(msg, "remove control and invisible characters") {
			t.Errorf("%s: message %q does not say what and how to fix it", name, msg)
		}
	}
	for _, s := range []string{"", "docs", "état", "next.js", "a b", "日本語", "\ufffd", "emoji 🚀"} {
		if err := CheckText("topic", s); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", s, err)
		}
	}
}

// TestOneCharacterRule checks that ids, versions, topics and paths all
// refuse the same characters.
func TestOneCharacterRule(t *testing.T) {
	for name, s := range bad {
		if _, err := ParseKey("/acme/" + s); !errors.Is(err, ErrInvalidCharacter) || !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: ParseKey(id) error %v, want ErrInvalidKey and ErrInvalidCharacter", name, err)
		}
		if _, err := ParseKey("/acme/docs@v" + s); !errors.Is(err, ErrInvalidCharacter) {
			t.Errorf("%s: ParseKey(version) error %v, want ErrInvalidCharacter", name, err)
		}
		if _, err := CleanPath(s + "/guide.md"); !errors.Is(err, ErrInvalidCharacter) || !errors.Is(err, ErrInvalidPath) {
			t.Errorf("%s: CleanPath error %v, want ErrInvalidPath and ErrInvalidCharacter", name, err)
		}
		if err := CheckLimits("q", []string{"routing", s}, ""); !errors.Is(err, ErrInvalidCharacter) || !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: CheckLimits(topic) error %v, want ErrInvalidRequest and ErrInvalidCharacter", name, err)
		}
	}
	// A query is free text: pasted errors hold tabs and newlines.
	if err := CheckLimits("TypeError:\n\tat x", nil, ""); err != nil {
		t.Errorf("CheckLimits(query with tab and newline) = %v, want nil", err)
	}
}
