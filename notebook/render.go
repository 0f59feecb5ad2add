package notebook

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on the outputs kept: an output longer than either is cut after
// the lines that fit, and a line saying how many lines were cut ends it.
// Training logs and printed tensors run to thousands of lines; their head
// is what a reader needs to recognise them.
const (
	maxOutputLines = 40
	maxOutputBytes = 4 << 10
)

// rendered is a notebook translated into markdown.
type rendered struct {
	text []byte
	// lineCell[i] is the index in the notebook's cells of the cell that
	// line i+1 of text belongs to.
	lineCell []int
	// hasMarkdown tells whether some markdown cell holds text.
	hasMarkdown bool
}

// cellLine maps a 1-based line of the rendered text to the 1-based index
// of its cell.
func (r *rendered) cellLine(line int) int {
	if len(r.lineCell) == 0 {
		return 1
	}
	line = min(max(line, 1), len(r.lineCell))
	return r.lineCell[line-1] + 1
}

// write appends s, which ends with a newline, as lines of cell i.
func (r *rendered) write(i int, s string) {
	if len(r.text) == 0 {
		// A blank first line keeps a cell starting with "---" or "+++"
		// from being read as front matter.
		r.text = append(r.text, '\n')
		r.lineCell = append(r.lineCell, i)
	}
	r.text = append(r.text, s...)
	for range strings.Count(s, "\n") {
		r.lineCell = append(r.lineCell, i)
	}
}

// render translates cells into markdown, each cell followed by a blank
// line: markdown cells with data: URIs dropped and their open constructs
// closed, so that nothing in one cell reaches into the next; code cells as
// fenced blocks followed by their outputs; raw cells as markdown when they
// target markdown or nothing, else as fenced blocks.
func render(cells []cell) *rendered {
	r := &rendered{}
	for i, c := range cells {
		switch c.Type {
		case "markdown":
			src := dropEmbedded(c.Source)
			if strings.TrimSpace(src) == "" {
				continue
			}
			r.hasMarkdown = true
			r.write(i, isolate(src)+"\n")
		case "code":
			if strings.TrimSpace(c.Source) != "" {
				r.write(i, fence(codeLanguage(c.Language, c.Source), c.Source)+"\n")
			}
			for _, o := range mergeStreams(c.Outputs) {
				if t := outputText(o); t != "" {
					r.write(i, fence("text", t)+"\n")
				}
			}
		case "raw":
			if strings.TrimSpace(c.Source) == "" {
				continue
			}
			switch f := strings.ToLower(strings.TrimSpace(c.Format)); f {
			case "", "text/markdown", "markdown", "md":
				r.write(i, isolate(dropEmbedded(c.Source))+"\n")
			default:
				r.write(i, fence(rawLanguage(f), c.Source)+"\n")
			}
		}
	}
	return r
}

// fence returns code as a fenced block with the given info string, its
// fence a run of backticks longer than any in the code, so that no line of
// the code closes it.
func fence(lang, code string) string {
	run, longest := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	var b strings.Builder
	b.Grow(len(code) + 2*len(f) + len(lang) + 3)
	b.WriteString(f)
	b.WriteString(lang)
	b.WriteByte('\n')
	b.WriteString(code)
	if !strings.HasSuffix(code, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(f)
	b.WriteByte('\n')
	return b.String()
}

// cellMagics maps IPython cell magics that run another language to that
// language's fence name.
var cellMagics = map[string]string{
	"bash":       "bash",
	"sh":         "sh",
	"script":     "",
	"html":       "html",
	"javascript": "javascript",
	"js":         "javascript",
	"latex":      "latex",
	"markdown":   "markdown",
	"perl":       "perl",
	"ruby":       "ruby",
	"sql":        "sql",
	"svg":        "svg",
	"writefile":  "text",
}

// codeLanguage returns a code cell's fence language: the language a cell
// magic on its first line names (%%bash, %%writefile x.yaml), else the
// cell's or kernel's language, made safe for an info string.
func codeLanguage(kernel, src string) string {
	lang := kernel
	if first, _, _ := strings.Cut(strings.TrimLeft(src, " \t\r\n"), "\n"); strings.HasPrefix(first, "%%") {
		fields := strings.Fields(first[2:])
		if len(fields) > 0 {
			if l, ok := cellMagics[fields[0]]; ok {
				lang = l
				switch {
				case fields[0] == "writefile" && len(fields) > 1:
					lang = extLanguage(fields[len(fields)-1])
				case fields[0] == "script" && len(fields) > 1:
					lang = fields[1]
				}
			}
		}
	}
	return infoWord(lang)
}

// extLanguage names the language of a file written by %%writefile from its
// extension.
func extLanguage(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "text"
	}
	switch ext := strings.ToLower(name[i+1:]); ext {
	case "py":
		return "python"
	case "sh":
		return "bash"
	case "yml":
		return "yaml"
	case "md":
		return "markdown"
	case "txt":
		return "text"
	default:
		return ext
	}
}

// rawLanguage names a raw cell's fence language from its target mime type
// (text/restructuredtext gives "restructuredtext", text/x-python "python").
func rawLanguage(format string) string {
	if _, sub, ok := strings.Cut(format, "/"); ok {
		format = strings.TrimPrefix(sub, "x-")
	}
	return infoWord(format)
}

// infoWord makes s a safe fence info word: lower-cased, cut at the first
// character that is not a letter, digit or one of "+#._-".
func infoWord(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+#._-", r)
		if !ok {
			return s[:i]
		}
	}
	return s
}

// mergeStreams joins consecutive stream outputs of the same stream, as
// Jupyter shows them: a loop printing a line at a time writes one output
// per flush.
func mergeStreams(outs []output) []output {
	var merged []output
	for i := 0; i < len(outs); {
		o := outs[i]
		j := i + 1
		for j < len(outs) && o.Type == "stream" && outs[j].Type == "stream" && outs[j].Name == o.Name {
			j++
		}
		if j > i+1 {
			var b strings.Builder
			for _, p := range outs[i:j] {
				b.WriteString(p.Text)
			}
			o.Text = b.String()
		}
		merged = append(merged, o)
		i = j
	}
	return merged
}

// outputText returns the text kept of one output: terminal control
// sequences interpreted, bare object reprs ("<Figure size 640x480 with 1
// Axes>") dropped, and the result cut to maxOutputLines and
// maxOutputBytes. It returns "" for an output with nothing to keep.
func outputText(o output) string {
	t := strings.TrimRight(terminalText(o.Text), " \t\n")
	t = strings.TrimLeft(t, "\n")
	if t == "" {
		return ""
	}
	if o.Type != "stream" && !strings.Contains(t, "\n") && strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
		return "" // a repr standing in for a rich output
	}
	return capOutput(t)
}

// capOutput cuts t, which does not end with a newline, to
// maxOutputLines lines and maxOutputBytes bytes (a first line longer than
// that is cut at a rune boundary, and counts as cut) and ends it with a
// line saying how many lines were cut.
func capOutput(t string) string {
	if len(t) <= maxOutputBytes && strings.Count(t, "\n") < maxOutputLines {
		return t
	}
	lines := strings.SplitAfter(t, "\n")
	var b strings.Builder
	kept := 0
	for kept < len(lines) && kept < maxOutputLines && b.Len()+len(lines[kept]) <= maxOutputBytes {
		b.WriteString(lines[kept])
		kept++
	}
	if kept == 0 {
		l := lines[0]
		n := maxOutputBytes
		for n > 0 && !utf8.RuneStart(l[n]) {
			n--
		}
		b.WriteString(l[:n])
	}
	out := strings.TrimSuffix(b.String(), "\n") + "\n"
	cut := len(lines) - kept
	if cut == 1 {
		return out + "… 1 line cut"
	}
	return out + "… " + strconv.Itoa(cut) + " lines cut"
}

// terminalText interprets what a terminal would of a stream's text: ANSI
// escape sequences are dropped, a carriage return starts its line over
// (progress bars), a backspace erases the character before it, and other
// control characters but tabs are dropped.
func terminalText(s string) string {
	if !strings.ContainsAny(s, "\x1b\r\b") && !hasControl(s) {
		return s
	}
	var out []byte
	lineStart := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			out = append(out, c)
			lineStart = len(out)
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			if i+1 < len(s) {
				// Text follows: it overwrites the line. A trailing \r
				// keeps the line as it is.
				out = out[:lineStart]
			}
		case c == '\b':
			if len(out) > lineStart {
				_, size := utf8.DecodeLastRune(out[lineStart:])
				out = out[:len(out)-size]
			}
		case c == 0x1b:
			i = escapeEnd(s, i) - 1
		case c < 0x20 && c != '\t', c == 0x7f:
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// escapeEnd returns the end of the escape sequence starting at s[i] ==
// ESC: a CSI sequence (ESC [ parameters final byte), an OSC sequence (ESC
// ] ... BEL or ESC \), or ESC and one more character.
func escapeEnd(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return j
	}
	switch s[j] {
	case '[':
		for j++; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
			if s[j] == '\n' {
				return j
			}
		}
		return j
	case ']':
		for j++; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			if s[j] == '\n' {
				return j
			}
		}
		return j
	}
	if s[j] == '\n' {
		return j
	}
	_, size := utf8.DecodeRuneInString(s[j:])
	return j + size
}

// hasControl reports whether s holds a control character other than tab
// and newline.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return true
		}
	}
	return false
}
