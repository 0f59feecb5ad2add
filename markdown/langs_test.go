package markdown

import "testing"

func TestLangOfFile(t *testing.T) {
	for p, want := range map[string]string{
		"docs_src/app.py": "python", "a/B.TSX": "tsx", "deploy.yml": "yaml", "x.rs": "rust",
		"snippet.cs": "csharp", "page.mdx": "markdown", "Makefile": "", "data.bin": "",
	} {
		if got := LangOfFile(p); got != want {
			t.Errorf("LangOfFile(%q) = %q, want %q", p, got, want)
		}
	}
}
