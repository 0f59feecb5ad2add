package notebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/tokens"
)

// FuzzSplit checks that Split never panics on any bytes, returns only its
// documented errors, and keeps the Document's invariants. The seeds are
// the golden notebooks and small odd ones.
func FuzzSplit(f *testing.F) {
	for _, in := range goldenInputs(f) {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, uint16(1200))
	}
	f.Add([]byte(`{"nbformat":4,"metadata":{},"cells":[{"cell_type":"markdown","source":"# a\n<!--"},{"cell_type":"markdown","source":["## b"]}]}`), uint16(5))
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":"x","outputs":[{"output_type":"stream","text":"\r\u001b[1m"}]}]}`), uint16(0))
	f.Add([]byte(`{"nbformat":4,"cells":[{"cell_type":"raw","source":"---\nx: 1\n---"}]}`), uint16(50))
	f.Fuzz(func(t *testing.T, src []byte, max uint16) {
		doc, err := Split("nb/fuzz.ipynb", src, nil, markdown.Options{MaxSectionTokens: int(max)})
		switch {
		case errors.Is(err, markdown.ErrInvalidUTF8), errors.Is(err, ErrInvalidNotebook):
			if doc != nil {
				t.Fatalf("got a Document with error %v", err)
			}
			return
		case errors.Is(err, ErrNotDocumentation):
			if doc == nil || len(doc.Sections) != 0 {
				t.Fatalf("got %+v with ErrNotDocumentation, want a Document with no sections", doc)
			}
			return
		case err != nil:
			t.Fatalf("unexpected error %v", err)
		}
		checkDoc(t, doc)
	})
}

// checkDoc checks the invariants of a Document Split returned without
// error: sections with text, token counts that add up, unique anchors per
// part, parents before children, cell lines that do not decrease.
func checkDoc(t *testing.T, doc *markdown.Document) {
	t.Helper()
	if doc.Title == "" {
		t.Error("empty Title")
	}
	seen := map[string]bool{}
	sum, last := 0, 1
	for i, s := range doc.Sections {
		if s.Text == "" {
			t.Errorf("section %d (%q) has empty Text", i, s.Heading)
		}
		if s.Tokens != tokens.Count(s.Text) {
			t.Errorf("section %d: got Tokens %d, want %d", i, s.Tokens, tokens.Count(s.Text))
		}
		sum += s.Tokens
		key := fmt.Sprintf("%s#%d", s.Anchor, s.Part)
		if seen[key] {
			t.Errorf("section %d: anchor %q part %d is not unique", i, s.Anchor, s.Part)
		}
		seen[key] = true
		if s.Parent >= i || s.Parent < -1 {
			t.Errorf("section %d: got Parent %d", i, s.Parent)
		}
		if s.Line < last {
			t.Errorf("section %d: got Line %d after %d", i, s.Line, last)
		}
		last = s.Line
	}
	if sum != doc.Tokens {
		t.Errorf("got Tokens %d, want the sections' sum %d", doc.Tokens, sum)
	}
}

// FuzzCells builds a notebook of two markdown cells around a code cell
// with a stream output, sources as strings or lists of lines, and checks
// that no text is lost: every word of the code cell and of an output too
// small to be cut, and every word of a
// markdown line that holds nothing the markdown cleaner drops (see
// plainLine), reaches some section's Text, and each heading's Line names
// its cell.
func FuzzCells(f *testing.F) {
	f.Add("# Title\n\ntext", "x = 1", "## Next\nmore", "out\n", false)
	f.Add("```python\nopen fence", "", "## After\nwords", "", true)
	f.Add("<!-- open comment\nhidden?", "y = '```'", "## After\nwords", "\r\x1b[1mA\n", false)
	f.Add("---\ntitle: x\n---\nbody", "%%bash\nls", "+++\nx\n+++", strings.Repeat("l\n", 50), true)
	f.Add("> ```\n> quoted", "z", "text ![i](data:image/png;base64,AAAA) end", "", false)
	f.Fuzz(func(t *testing.T, md1, code, md2, out string, lists bool) {
		for _, s := range []string{md1, code, md2, out} {
			if !utf8.ValidString(s) {
				return // JSON would hold U+FFFD instead
			}
		}
		source := func(s string) any {
			if !lists {
				return s
			}
			return strings.SplitAfter(s, "\n")
		}
		stream := map[string]any{"output_type": "stream", "name": "stdout", "text": source(out)}
		src := nbJSON(t, nil, mdCell(source(md1)), codeCell(source(code), stream), mdCell(source(md2)))
		doc, err := Split("nb/fuzz.ipynb", src, nil, markdown.Options{MaxSectionTokens: 40})
		if errors.Is(err, ErrNotDocumentation) {
			if strings.TrimSpace(dropEmbedded(md1)+dropEmbedded(md2)) != "" {
				t.Fatalf("ErrNotDocumentation for markdown cells %q and %q", md1, md2)
			}
			return
		}
		if err != nil {
			t.Fatalf("Split: %v", err)
		}
		checkDoc(t, doc)
		var all strings.Builder
		for _, s := range doc.Sections {
			all.WriteString(s.Text)
			all.WriteByte('\n')
		}
		text := unescape(all.String())
		want := strings.Fields(code)
		fenced := strings.TrimSpace(code) != ""
		if !hasControl(out) && len(out) <= maxOutputBytes && strings.Count(out, "\n") < maxOutputLines {
			want = append(want, strings.Fields(out)...) // an output too small to cut
		}
		want = append(want, plainWords(md1)...)
		if fenced {
			// A construct left open in md1 may reach into md2 only when
			// no code fence stands between them.
			want = append(want, plainWords(md2)...)
		}
		for _, w := range want {
			if !strings.Contains(text, unescape(w)) {
				t.Errorf("word %q lost (sections %q)", w, text)
			}
		}
		for _, s := range doc.Sections {
			if s.Line < 1 || s.Line > 3 {
				t.Errorf("section %q has Line %d, want a cell in 1..3", s.Heading, s.Line)
			}
		}
	})
}

// plainWords returns the words of a markdown cell's lines up to the first
// that is not plain, in the sense of the markdown reader's no-lost-text
// check: a line with '<', '>', '{' or '}', starting with '/' or ':' or an
// import or export, or holding a data: or attachment: URL. Text from such
// a line on may be dropped or swallowed by a construct it opens.
func plainWords(md string) []string {
	var words []string
	for l := range strings.SplitSeq(md, "\n") {
		if !plainLine(l) {
			break
		}
		words = append(words, strings.Fields(l)...)
	}
	return words
}

func plainLine(l string) bool {
	if strings.ContainsAny(l, "<>{}") {
		return false
	}
	low := strings.ToLower(l)
	if strings.Contains(low, "data:") || strings.Contains(low, "attachment:") {
		return false
	}
	t := strings.TrimLeft(l, " \t")
	for _, p := range []string{"/", ":", "import", "export"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// unescape drops backslashes, which the markdown reader may add to
// defuse pathological constructs.
func unescape(s string) string { return strings.ReplaceAll(s, "\\", "") }

// TestWordsKept checks on the golden notebooks what FuzzCells checks: no
// word of a code cell or a plain markdown line is lost.
func TestWordsKept(t *testing.T) {
	for _, in := range goldenInputs(t) {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string    `json:"cell_type"`
				Source multiline `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(src, &nb); err != nil {
			t.Fatal(err)
		}
		doc, err := Split(in, src, nil, markdown.DefaultOptions())
		if errors.Is(err, ErrNotDocumentation) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, s := range doc.Sections {
			all.WriteString(s.Text)
		}
		for _, c := range nb.Cells {
			words := strings.Fields(string(c.Source))
			if c.Type == "markdown" {
				words = plainWords(string(c.Source))
			}
			for _, w := range words {
				if !strings.Contains(all.String(), w) {
					t.Errorf("%s: word %q of a %s cell lost", in, w, c.Type)
				}
			}
		}
	}
}
