package notebook

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// nbJSON returns a notebook of nbformat 4 with the given metadata and
// cells as JSON.
func nbJSON(t testing.TB, metadata map[string]any, cells ...map[string]any) []byte {
	t.Helper()
	if metadata == nil {
		metadata = map[string]any{}
	}
	if cells == nil {
		cells = []map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mdCell(src any) map[string]any {
	return map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": src}
}

func codeCell(src any, outputs ...map[string]any) map[string]any {
	if outputs == nil {
		outputs = []map[string]any{}
	}
	return map[string]any{"cell_type": "code", "metadata": map[string]any{}, "source": src, "outputs": outputs, "execution_count": nil}
}

func split(t *testing.T, src []byte) *markdown.Document {
	t.Helper()
	doc, err := Split("nb/test.ipynb", src, nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	return doc
}

func TestSourceStringOrList(t *testing.T) {
	asString := nbJSON(t, nil, mdCell("# Title\n\nSome *text*.\n"), codeCell("x = 1\ny = 2"))
	asList := nbJSON(t, nil, mdCell([]string{"# Title\n", "\n", "Some *text*.\n"}), codeCell([]string{"x = 1\n", "y = 2"}))
	a, b := split(t, asString), split(t, asList)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("string and list sources differ:\n%s\n%s", ja, jb)
	}
	if got := a.Sections[0].Code; len(got) != 1 || got[0].Code != "x = 1\ny = 2" || got[0].Lang != "python" {
		t.Errorf("got code %+v, want one python block", got)
	}
}

func TestNotDocumentation(t *testing.T) {
	for name, src := range map[string][]byte{
		"code only":        nbJSON(t, nil, codeCell("print(1)")),
		"no cells":         nbJSON(t, nil),
		"blank markdown":   nbJSON(t, nil, mdCell(" \n\t"), codeCell("x")),
		"image only":       nbJSON(t, nil, mdCell("data:image/png;base64,AAAA")),
		"raw and markdown": nbJSON(t, nil, map[string]any{"cell_type": "raw", "source": "# Raw", "metadata": map[string]any{}}),
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := Split("a/b.ipynb", src, nil, markdown.DefaultOptions())
			if !errors.Is(err, ErrNotDocumentation) {
				t.Fatalf("got error %v, want ErrNotDocumentation", err)
			}
			if doc == nil || len(doc.Sections) != 0 || doc.Path != "a/b.ipynb" || doc.Title != "b" {
				t.Errorf("got %+v, want an empty Document titled b", doc)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	for name, tt := range map[string]struct {
		src  string
		want error
	}{
		"not json":      {"# a markdown file", ErrInvalidNotebook},
		"array":         {"[1, 2]", ErrInvalidNotebook},
		"nbformat 3":    {`{"nbformat": 3, "worksheets": [{"cells": []}], "metadata": {}}`, ErrInvalidNotebook},
		"no cells":      {`{"metadata": {}}`, ErrInvalidNotebook},
		"cells object":  {`{"nbformat": 4, "cells": {}}`, ErrInvalidNotebook},
		"invalid utf-8": {"{\"nbformat\": 4, \"cells\": [], \"x\": \"\xff\"}", markdown.ErrInvalidUTF8},
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := Split("x.ipynb", []byte(tt.src), nil, markdown.DefaultOptions())
			if !errors.Is(err, tt.want) || doc != nil {
				t.Errorf("got %v, %v, want nil, %v", doc, err, tt.want)
			}
		})
	}
}

// TestOddCells checks that cells and outputs of unexpected shapes are
// skipped or read as empty, not fatal.
func TestOddCells(t *testing.T) {
	src := `{"nbformat": 4, "metadata": {"kernelspec": "python3"}, "cells": [
		42,
		{"cell_type": "markdown", "source": ["# Odd\n", 7, "kept\n"], "metadata": []},
		{"cell_type": "code", "source": "y = 1", "outputs": "none"},
		{"cell_type": "code", "source": "z = 2", "outputs": [3, {"output_type": "stream", "text": ["ok\n"]}, {"output_type": "display_data", "data": {"application/json": {"a": 1}}}]},
		{"cell_type": "heading", "source": "an nbformat 3 heading cell", "level": 2}
	]}`
	doc := split(t, []byte(src))
	text := doc.Sections[0].Text
	for _, want := range []string{"# Odd\nkept", "```python\ny = 1\n```", "```text\nok\n```"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
}

func TestLanguage(t *testing.T) {
	tests := []struct {
		name     string
		metadata map[string]any
		cell     map[string]any
		want     string
	}{
		{"default python", nil, codeCell("x"), "python"},
		{"kernelspec", map[string]any{"kernelspec": map[string]any{"language": "R"}, "language_info": map[string]any{"name": "python"}}, codeCell("x"), "r"},
		{"language_info", map[string]any{"language_info": map[string]any{"name": "julia"}}, codeCell("x"), "julia"},
		{"cell metadata", map[string]any{"kernelspec": map[string]any{"language": "C#"}},
			map[string]any{"cell_type": "code", "source": "x", "metadata": map[string]any{"dotnet_interactive": map[string]any{"language": "fsharp"}}}, "fsharp"},
		{"kernel with spaces", map[string]any{"kernelspec": map[string]any{"language": "Wolfram Language"}}, codeCell("x"), "wolfram"},
		{"bash magic", nil, codeCell("%%bash\nls\n"), "bash"},
		{"writefile magic", nil, codeCell("%%writefile setup.py\nx\n"), "python"},
		{"unknown magic", nil, codeCell("%%time\nx\n"), "python"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := split(t, nbJSON(t, tt.metadata, mdCell("# T"), tt.cell))
			code := doc.Sections[0].Code
			if len(code) != 1 || code[0].Lang != tt.want {
				t.Errorf("got code %+v, want one block of %q", code, tt.want)
			}
		})
	}
}

// TestLines checks that each section's Line is the 1-based index of the
// cell its heading is in, code and empty cells counted.
func TestLines(t *testing.T) {
	src := nbJSON(t, nil,
		codeCell("import x"),            // 1
		mdCell("lead text"),             // 2
		mdCell("# Title\n\ntext"),       // 3
		codeCell(""),                    // 4
		mdCell(""),                      // 5
		mdCell("text\n\n## A\n\n### B"), // 6
		codeCell("a = 1"),               // 7
		mdCell("Setext\n------"),        // 8
	)
	doc := split(t, src)
	var got []int
	for _, s := range doc.Sections {
		got = append(got, s.Line)
	}
	want := []int{1, 3, 6, 6, 8}
	if !equalInts(got, want) {
		t.Errorf("got lines %v, want %v", got, want)
	}
	if doc.Title != "Title" {
		t.Errorf("got title %q, want Title", doc.Title)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCellsIsolated checks that what one markdown cell leaves open does
// not reach into the next: each heading after it still makes a section.
func TestCellsIsolated(t *testing.T) {
	for name, open := range map[string]string{
		"backtick fence":     "```python\nx = 1",
		"tilde fence":        "~~~~\nx",
		"quoted fence":       "> ```\n> x",
		"indented fence":     "  ```\n  x",
		"comment":            "text <!-- never closed",
		"line comment":       "<!--\nnever closed",
		"script":             "<script>\nvar x = 1",
		"style":              "<style type=\"text/css\">\np {}",
		"processing":         "<?php echo 1;",
		"declaration":        "<!DOCTYPE html",
		"cdata":              "<![CDATA[ x",
		"front matter":       "---\ntitle: x",
		"toml front matter":  "+++\ntitle = 'x'",
		"closed then opened": "<!-- a -->\n<!-- b",
	} {
		t.Run(name, func(t *testing.T) {
			doc := split(t, nbJSON(t, nil, mdCell(open), mdCell("## Next\n\nafter"), codeCell("y = 2"), mdCell("## Last")))
			var heads []string
			for _, s := range doc.Sections {
				if s.Level > 0 {
					heads = append(heads, s.Heading)
				}
			}
			if strings.Join(heads, ",") != "Next,Last" {
				t.Fatalf("got headings %q, want Next and Last; sections: %+v", heads, doc.Sections)
			}
			if !strings.Contains(doc.Sections[len(doc.Sections)-2].Text, "```python\ny = 2\n```") {
				t.Errorf("code cell lost: %q", doc.Sections[len(doc.Sections)-2].Text)
			}
		})
	}
}

func TestIsolate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain\n"},
		{"```\ncode", "```\ncode\n```\n"},
		{"> ````go\n> x", "> ````go\n> x\n> ````\n"},
		{"```\n<!--\n```\n", "```\n<!--\n```\n"},
		{"a <!-- b\nc --> d <!-- e", "a <!-- b\nc --> d \\<!-- e\n"},
		{"`<!--` in code", "`<!--` in code\n"},
		{"<!-- x", "\\<!-- x\n"},
		{"<!--\n```\n-->\ntext", "<!--\n```\n-->\ntext\n"},
		{"<script>\nx\n</script>\n```", "<script>\nx\n</script>\n```\n```\n"},
		{"<SCRIPT src=x>", "\\<SCRIPT src=x>\n"},
		{"a <script>", "a <script>\n"},
		{"<?xml?>\n<? open", "<?xml?>\n\\<? open\n"},
		{"    <? indented", "    <? indented\n"},
		{"\\<!-- escaped", "\\<!-- escaped\n"},
	}
	for _, tt := range tests {
		if got := isolate(tt.in); got != tt.want {
			t.Errorf("isolate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDropEmbedded(t *testing.T) {
	tests := []struct{ in, want string }{
		{"![a](data:image/png;base64,iVBO+/=)", "![a]()"},
		{`<img src="data:image/gif;base64,R0lG" alt="x">`, `<img src="" alt="x">`},
		{"![a](attachment:x.png) and ![b](ATTACHMENT:y.png)", "![a]() and ![b]()"},
		{"[ref]: data:text/plain,hello\n", "[ref]: \n"},
		{"Input data: a tensor", "Input data: a tensor"},
		{"metadata:x,y", "metadata:x,y"},
		{"Attachment: none, see data:", "Attachment: none, see data:"},
		{"(data:no comma here)", "(data:no comma here)"},
		{"(attachment:)", "(attachment:)"},
	}
	for _, tt := range tests {
		if got := dropEmbedded(tt.in); got != tt.want {
			t.Errorf("dropEmbedded(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOutputText(t *testing.T) {
	many := strings.Repeat("line\n", 100)
	long := strings.Repeat("é", 3000) // 6000 bytes
	tests := []struct {
		name string
		out  output
		want string
	}{
		{"stream", output{Type: "stream", Text: "a\nb\n\n"}, "a\nb"},
		{"carriage returns", output{Type: "stream", Text: "1/3\r2/3\r3/3\ndone\r\n"}, "3/3\ndone"},
		{"trailing return", output{Type: "stream", Text: "kept\r"}, "kept"},
		{"ansi", output{Type: "stream", Text: "\x1b[1;31mred\x1b[0m \x1b]0;title\x07x"}, "red x"},
		{"backspace", output{Type: "stream", Text: "ab\bc"}, "ac"},
		{"escape before a rune", output{Type: "stream", Text: "a\x1bᱰb\x1b"}, "ab"},
		{"repr", output{Type: "display_data", Text: "<IPython.core.display.HTML object>"}, ""},
		{"repr in stream kept", output{Type: "stream", Text: "<tag>"}, "<tag>"},
		{"many lines", output{Type: "stream", Text: many}, strings.Repeat("line\n", 40) + "… 60 lines cut"},
		{"exactly the bound", output{Type: "stream", Text: strings.Repeat("x\n", 40)}, strings.TrimSuffix(strings.Repeat("x\n", 40), "\n")},
		{"one long line", output{Type: "execute_result", Text: long}, strings.Repeat("é", 2048) + "\n… 1 line cut"},
		{"long second line", output{Type: "stream", Text: "a\n" + long}, "a\n… 1 line cut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outputText(tt.out); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFence(t *testing.T) {
	got := fence("python", "s = '```'\n````")
	want := "`````python\ns = '```'\n````\n`````\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	doc := split(t, nbJSON(t, nil, mdCell("# T"), codeCell("s = '```'\n> ```\n## not a heading")))
	if len(doc.Sections) != 1 || len(doc.Sections[0].Code) != 1 || !strings.Contains(doc.Sections[0].Code[0].Code, "## not a heading") {
		t.Errorf("code with backticks escaped its fence: %+v", doc.Sections)
	}
}
