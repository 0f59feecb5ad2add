package markdown

import (
	"strings"
	"testing"
)

// TestTidy: an info string keeps its language and file names;
// renderers' settings go; code, and fences inside a longer fence, stay.
func TestTidy(t *testing.T) {
	for in, want := range map[string]string{
		"```js {expectedErrors: {'react-compiler': [9]}} src/App.js\nx\n```":                "```js src/App.js\nx\n```",
		"```Python hl_lines=\"2  6-11  13-19\"\nx\n```":                                     "```Python\nx\n```",
		"```js twoslash\nx\n```":                                                            "```js\nx\n```",
		"```json [tsconfig.json]\n{}\n```":                                                  "```json tsconfig.json\n{}\n```",
		"```js [[1, 3, \"updateName\"]]\nx\n```":                                            "```js\nx\n```",
		"```{1,3}\nx\n```":                                                                  "```\nx\n```",
		"```Python hl_lines=\"2\"\n{!> ../../../docs_src/cors/tutorial001.py!}\n```\nafter": "(example: docs_src/cors/tutorial001.py)\nafter",
		"```Python\n\n{!../../docs_src/a.py!}\n\n```":                                       "(example: docs_src/a.py)",
		"```Python\n{!../a.py!}\nprint(1)\n```":                                             "```Python\n{!../a.py!}\nprint(1)\n```",
		"## Nesting Blueprints {#nesting-blueprints}\n\ntext {#kept}":                       "## Nesting Blueprints\n\ntext {#kept}",
		"### SESSION_COOKIE_SAMESITE {#SESSION_COOKIE_SAMESITE}":                            "### SESSION_COOKIE_SAMESITE",
		"```bash\n# comment {#not-a-heading}\n```":                                          "```bash\n# comment {#not-a-heading}\n```",
		"## Braces {#a b}":                                                                  "## Braces {#a b}",
		"```ts{1,3}\nx\n```":                                                                "```ts\nx\n```",
		"~~~bash\nls\n~~~":                                                                  "~~~bash\nls\n~~~",
		"````md\n```js twoslash\nx\n```\n````":                                              "````md\n```js twoslash\nx\n```\n````",
		"text ```not a fence``` here":                                                       "text ```not a fence``` here",
		"```\nplain\n```":                                                                   "```\nplain\n```",
	} {
		if got := Tidy(in); got != want {
			t.Errorf("Tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzTidy: tidying keeps the text's lines, but for blocks of an
// unresolved include, and is idempotent.
func FuzzTidy(f *testing.F) {
	for _, s := range []string{"```js {1,3} a/b.js\nx\n```", "````\n```py x=1\n````", "~~~ [x.y]\n~~~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Tidy(s)
		if countLines(got) != countLines(s) && !strings.Contains(got, "(example: ") {
			t.Fatalf("lines %d → %d for %q: %q", countLines(s), countLines(got), s, got)
		}
		if again := Tidy(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", s, got, again)
		}
	})
}

func countLines(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}
