package markdown

import "testing"

// TestTidyInfoStrings: an info string keeps its language and file names;
// renderers' settings go; code, and fences inside a longer fence, stay.
func TestTidyInfoStrings(t *testing.T) {
	for in, want := range map[string]string{
		"```js {expectedErrors: {'react-compiler': [9]}} src/App.js\nx\n```": "```js src/App.js\nx\n```",
		"```Python hl_lines=\"2  6-11  13-19\"\nx\n```":                      "```Python\nx\n```",
		"```js twoslash\nx\n```":                                             "```js\nx\n```",
		"```json [tsconfig.json]\n{}\n```":                                   "```json tsconfig.json\n{}\n```",
		"```js [[1, 3, \"updateName\"]]\nx\n```":                             "```js\nx\n```",
		"```ts{1,3}\nx\n```":                                                 "```ts\nx\n```",
		"~~~bash\nls\n~~~":                                                   "~~~bash\nls\n~~~",
		"````md\n```js twoslash\nx\n```\n````":                               "````md\n```js twoslash\nx\n```\n````",
		"text ```not a fence``` here":                                        "text ```not a fence``` here",
		"```\nplain\n```":                                                    "```\nplain\n```",
	} {
		if got := TidyInfoStrings(in); got != want {
			t.Errorf("TidyInfoStrings(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzTidyInfoStrings: tidying keeps the text's lines and is idempotent.
func FuzzTidyInfoStrings(f *testing.F) {
	for _, s := range []string{"```js {1,3} a/b.js\nx\n```", "````\n```py x=1\n````", "~~~ [x.y]\n~~~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := TidyInfoStrings(s)
		if countLines(got) != countLines(s) {
			t.Fatalf("lines %d → %d for %q: %q", countLines(s), countLines(got), s, got)
		}
		if again := TidyInfoStrings(got); again != got {
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
