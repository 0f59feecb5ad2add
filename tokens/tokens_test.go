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
		{"   \n\t", 0},
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

func TestCountIsAdditiveOverWhitespace(t *testing.T) {
	a, b := "The quick brown fox", "jumps over the lazy dog."
	if got, want := Count(a+"\n\n"+b), Count(a)+Count(b); got != want {
		t.Errorf("Count(a+b) = %d, want %d", got, want)
	}
}

func BenchmarkCount(b *testing.B) {
	s := strings.Repeat("Use `CORSMiddleware` to allow origins, e.g. app.add_middleware(...).\n", 200)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Count(s)
	}
}
