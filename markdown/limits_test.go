package markdown

import (
	"bytes"
	"strings"
	"testing"
)

// TestLimitParse checks each limit of limitParse: the construct past the
// limit is escaped (or the indentation dropped, or a blank line inserted),
// and what stays within it, or sits in a fence, is left alone.
func TestLimitParse(t *testing.T) {
	rep := strings.Repeat
	lines := func(n int, line string) string { return rep(line+"\n", n) }
	tests := []struct {
		name string
		in   string
		want string // the whole body after limitParse
	}{
		{"32 list markers", rep("- ", 32) + "x", rep("- ", 32) + "x"},
		{"33 list markers", rep("- ", 33) + "x", rep("- ", 32) + `\- x`},
		{"33 quote markers", rep(">", 40) + " x", rep(">", 32) + `\` + rep(">", 8) + " x"},
		{"33 ordered markers", rep("1. ", 33) + "x", rep("1. ", 32) + `1\. x`},
		{"mixed markers", rep("> - ", 17) + "x", rep("> - ", 16) + `\> - x`},
		{"thematic break", rep("- ", 40), rep("- ", 40)},
		{"deep indentation", rep(" ", 200) + "x", rep(" ", 129) + "x"},
		{"deep tabs", rep("\t", 40) + "- x", rep("\t", 33) + "- x"},
		{"deep indentation after markers", rep("- ", 10) + rep(" ", 200) + "- x", rep("- ", 10) + rep(" ", 109) + "- x"},
		{"markers in a fence", "```\n" + rep("- ", 40) + "\n```\n", "```\n" + rep("- ", 40) + "\n```\n"},
		{"256 definitions", lines(256, "[a]: b"), lines(256, "[a]: b")},
		{"257 definitions", lines(258, "[a]: b"), lines(256, "[a]: b") + `\[a]: b` + "\n[a]: b\n"},
		{"definitions in two paragraphs", lines(200, "[a]: b") + "\n" + lines(200, "[a]: b"), lines(200, "[a]: b") + "\n" + lines(200, "[a]: b")},
		{"few link destinations", rep("[a](", 10), rep("[a](", 10)},
		{"many link destinations", rep("[a](", 2000), rep("[a](", 2) + rep(`[a]\(`, 1998)},
		{"closed links", rep("[a](b) ", 5000), rep("[a](b) ", 5000)},
		{"16 open titles", lines(16, `[a](b "`), lines(16, `[a](b "`)},
		{"17 open titles", lines(17, `[a](b "`), lines(16, `[a](b "`) + `[a](b \"` + "\n"},
		{"17 open definition titles", lines(17, `[a]: b "`), lines(16, `[a]: b "`) + `[a]: b \"` + "\n"},
		{"17 open code spans", lines(17, "``a"), lines(16, "``a") + "\\`\\`a\n"},
		{"closed code spans", lines(100, "`a` ``b``"), lines(100, "`a` ``b``")},
		{"33 open brackets", rep("[", 33) + "a", rep("[", 32) + `\[a`},
		{"balanced brackets", rep("[a] ", 100), rep("[a] ", 100)},
		{"17 open tags", lines(17, "a <b c='"), lines(16, "a <b c='") + `a \<b c='` + "\n"},
		{"closed raw HTML", lines(100, "a <!X y> <?z?> <![CDATA[ w ]]>"), lines(100, "a <!X y> <?z?> <![CDATA[ w ]]>")},
		{"long paragraph", lines(1001, "text"), lines(1000, "text") + "\n" + "text\n"},
		{"long paragraph ending on an underline", lines(1000, "text") + "---\ntext\n", lines(1000, "text") + "---\n\ntext\n"},
		{"long table", "a|b\n-|-\n" + lines(2000, "c|d"), "a|b\n-|-\n" + lines(2000, "c|d")},
		{"long quoted table", "> a|b\n> -|-\n" + lines(2000, "> c|d"), "> a|b\n> -|-\n" + lines(2000, "> c|d")},
		{"long paragraph after a table", "a|b\n-|-\n# h\n" + lines(1001, "c"), "a|b\n-|-\n# h\n" + lines(999, "c") + "\n" + lines(2, "c")},
		{"long paragraph after a quoted table", "> a|b\n> -|-\n" + lines(1001, "c"), "> a|b\n> -|-\n" + lines(1000, "c") + "\nc\n"},
		{"long paragraph with a false table", "a\n-|-\n" + lines(1000, "c"), "a\n-|-\n" + lines(998, "c") + "\n" + lines(2, "c")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, fences := clean([]byte(tt.in), false, false)
			got, _, _ := limitParse(body, fences)
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", shorten(string(got)), shorten(tt.want))
			}
			checkInvariants(t, "x.md", []byte(tt.in), DefaultOptions())
		})
	}
}

// shorten elides the middle of a long string for failure messages.
func shorten(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:100] + "…" + s[len(s)-100:]
}

// TestLimitParseKeepsLinesAndFences checks that the blank lines limitParse
// inserts change no section's line number, and that fences move with the
// edits before them.
func TestLimitParseKeepsLinesAndFences(t *testing.T) {
	src := "# T\n\n" + strings.Repeat("- "+strings.Repeat("> ", 40)+"x\n", 1500) + "\n## After\n\n```\n" + strings.Repeat("- ", 40) + "\n```\n"
	doc := mustSplit(t, "x.md", src)
	after := doc.Sections[len(doc.Sections)-1]
	if after.Heading != "After" {
		t.Fatalf("last section is %q, want After", after.Heading)
	}
	if got, want := after.Line, 2+1500+2; got != want {
		t.Errorf("got Line %d, want %d", got, want)
	}
	if len(after.Code) != 1 || after.Code[0].Code != strings.Repeat("- ", 40) {
		t.Errorf("got code %q, want the fence's content untouched", after.Code)
	}
	body, fences := clean([]byte(src), false, false)
	got, moved, inserted := limitParse(body, fences)
	if len(inserted) != 1 {
		t.Errorf("got %d inserted newlines, want 1", len(inserted))
	}
	if f := moved[0]; !bytes.HasPrefix(got[f.start:f.end], []byte("```\n- -")) || !bytes.HasSuffix(got[f.start:f.end], []byte("```\n")) {
		t.Errorf("fence moved to %q", got[f.start:f.end])
	}
	checkInvariants(t, "x.md", []byte(src), DefaultOptions())
}
