package context7api

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codex7/codex7/search"
)

func TestSplitFences(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantProse string
		wantCode  []CodeExample
	}{
		{"prose only", "One.\n\n\n\nTwo.\n", "One.\n\nTwo.", nil},
		{"one fence", "Call it:\n\n```ts\nf();\n```\n\nThen wait.", "Call it:\n\nThen wait.", []CodeExample{{"ts", "f();"}}},
		{"tildes and attributes", "~~~Python {1,3} title=\"x.py\"\nprint(1)\n~~~", "", []CodeExample{{"python", "print(1)"}}},
		{"no language", "```\nplain\n```", "", []CodeExample{{"", "plain"}}},
		{"longer closing fence", "```go\na\n`````\nafter", "after", []CodeExample{{"go", "a"}}},
		{"shorter fence inside", "````md\n```js\nx\n```\n````", "", []CodeExample{{"md", "```js\nx\n```"}}},
		{"other character does not close", "```sh\n~~~\n```", "", []CodeExample{{"sh", "~~~"}}},
		{"indented fence", "  ```js\n  a\n    b\n  ```", "", []CodeExample{{"js", "a\n  b"}}},
		{"four spaces is not a fence", "    ```js\n    a", "```js\n    a", nil},
		{"backtick in info is inline code", "``` `x` ```\ntext", "``` `x` ```\ntext", nil},
		{"unclosed runs to the end", "Intro\n```bash\nnpm i\n", "Intro", []CodeExample{{"bash", "npm i"}}},
		{"two fences", "```a\n1\n```\nmid\n```b\n2\n```", "mid", []CodeExample{{"a", "1"}, {"b", "2"}}},
		{"empty block", "```js\n```", "", []CodeExample{{"js", ""}}},
		{"empty", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prose, code := splitFences(tt.text)
			if prose != tt.wantProse || !reflect.DeepEqual(code, tt.wantCode) {
				t.Errorf("splitFences(%q) = %q, %q; want %q, %q", tt.text, prose, code, tt.wantProse, tt.wantCode)
			}
		})
	}
}

func TestWithoutHeading(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"## Polling\n\nSet it.", "Set it."},
		{"# Title", ""},
		{"Title\n=====\n\nBody", "Body"},
		{"Title\n---\nBody", "Body"},
		{"No heading here.\nSecond line.", "No heading here.\nSecond line."},
		{"", ""},
	} {
		if got := withoutHeading(tt.in); got != tt.want {
			t.Errorf("withoutHeading(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestContextResponseEmpty(t *testing.T) {
	got := contextResponse(&search.Answer{})
	if got.CodeSnippets == nil || got.InfoSnippets == nil {
		t.Errorf("contextResponse of no sections = %+v, want two empty slices (the clients read both)", got)
	}
}

// FuzzSplitFences checks that splitting never loses a code line: every
// line of every block was a line of the text.
func FuzzSplitFences(f *testing.F) {
	for _, s := range []string{"```js\nx\n```", "~~~\n~~~~\n", "  ```\n   a\n", "a\n\n\nb", "````\n```\n````"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, code := splitFences(text)
		for _, c := range code {
			for line := range strings.Lines(c.Code) {
				if !strings.Contains(text, strings.TrimSpace(line)) {
					t.Fatalf("code line %q not in the text %q", line, text)
				}
			}
		}
	})
}
