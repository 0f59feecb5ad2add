package tokens

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"   \n\t", 1},
		{" ", 0},
		{"\n\n", 1},
		{"a\n\nb", 3},
		{"x" + strings.Repeat(" ", 9) + "y", 4},
		{"a", 1},
		{"word", 1},
		{"words", 2},
		{"hello world", 4},
		{"fmt.Println(x)", 1 + 1 + 2 + 1 + 1 + 1},
		{"snake_case_name", 4},
		{"日本語", 3},
		{"café", 2},
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestCountIsAdditiveOverASeparator checks what packing relies on: parts
// joined by one space or newline cost what the parts cost, and by a blank
// line one token more.
func TestCountIsAdditiveOverASeparator(t *testing.T) {
	a, b := "The quick brown fox", "jumps over the lazy dog."
	if got, want := Count(a+"\n"+b), Count(a)+Count(b); got != want {
		t.Errorf("Count(a+newline+b) = %d, want %d", got, want)
	}
	if got, want := Count(a+"\n\n"+b), Count(a)+Count(b)+1; got != want {
		t.Errorf("Count(a+blank line+b) = %d, want %d", got, want)
	}
}

// FuzzCountBoundsBytes checks that whitespace is never free: a text of
// Count n is at most 5n+1 bytes, so a budget in tokens bounds an answer's
// bytes, whatever indentation it holds.
func FuzzCountBoundsBytes(f *testing.F) {
	f.Add("- a\n" + strings.Repeat("  ", 40) + "- b\n")
	f.Add(strings.Repeat(" ", 1000))
	f.Add("x\ty\tz")
	f.Add("日本 語")
	f.Fuzz(func(t *testing.T, s string) {
		if n := Count(s); len(s) > 5*n+1 {
			t.Fatalf("Count(%q) = %d for %d bytes, more than 5n+1", s, n, len(s))
		}
	})
}

// TestCountIndentedList is the defect that made whitespace cost: a deeply
// indented list counted as its words alone.
func TestCountIndentedList(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		b.WriteString(strings.Repeat("    ", i%30) + "- item\n")
	}
	s := b.String()
	if n := Count(s); len(s) > 5*n {
		t.Errorf("a %d-byte indented list counts %d tokens", len(s), n)
	}
}

func BenchmarkCount(b *testing.B) {
	s := strings.Repeat("Use `CORSMiddleware` to allow origins, e.g. app.add_middleware(...).\n", 200)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Count(s)
	}
}
