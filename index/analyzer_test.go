package index

import (
	"strings"
	"testing"
)

func analyze(s string) string {
	var got []string
	for _, tok := range analyzer().Analyze([]byte(s)) {
		got = append(got, string(tok.Term))
	}
	return strings.Join(got, " ")
}

func TestAnalyzer(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"prose is stemmed without stop words", "Widget.destroy() stops the polling", "widget.destroy widget destroy stop poll"},
		{"snake case parts", "user_id", "user_id user id"},
		{"camel case parts", "CORSMiddleware", "corsmiddlewar cor middlewar"},
		{"acronym then word", "HTTPServer useState", "httpserver http server usest use state"},
		{"dotted and snake", "app.add_middleware(x)", "app.add_middlewar app add_middlewar add middlewar x"},
		{"file name", "vite.config.ts", "vite.config.t vite config ts"},
		{"version numbers stay whole", "0.93.0", "0.93.0"},
		{"no single letter parts", "e.g. aB", "e.g ab"},
		{"hyphenated compound also joined", "pre-bundling", "pre bundl prebundl"},
		{"joined compound meets unhyphenated word", "prebundle", "prebundl"},
		{"no compound with digits or across spaces", "vite-3 pre - bundling", "vite 3 pre bundl"},
		{"unicode identifiers", "über_Größe", "über_größ über größe"},
		{"words that carry meaning in technical prose are kept", "Run it before the build, not after; turn it off", "run befor build not after turn off"},
		{"other stop words go", "How do I make the plugins of my app work", "make plugin app work"},
		{"empty", "  ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analyze(tt.in); got != tt.want {
				t.Errorf("Analyze(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestWriteAnalyzerMatchesAnalyzer checks that the build's stem cache gives
// the terms the query analyzer gives, the second time a word comes too.
func TestWriteAnalyzerMatchesAnalyzer(t *testing.T) {
	text := "Running the runners: app.add_middleware(CORSMiddleware) runs pre-bundling; running again."
	w := writeAnalyzer()
	for i := range 2 {
		var got []string
		for _, tok := range w.Analyze([]byte(text)) {
			got = append(got, string(tok.Term))
		}
		if g, want := strings.Join(got, " "), analyze(text); g != want {
			t.Errorf("pass %d: writeAnalyzer = %q, analyzer = %q", i, g, want)
		}
	}
}
