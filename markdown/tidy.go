package markdown

import (
	"slices"
	"strings"
)

// Tidy mends what a section's markdown shows a reader where the readers
// keep what the splitter needs. An ATX heading loses its {#id} attribute
// (the reStructuredText reader writes one on every title, some markdown
// sites on theirs): the answer names the anchor beside the section. A
// fenced code block's info string keeps the language, then the words that name
// a file ("```js src/App.js", "```json tsconfig.json"): sites put their
// renderers' settings there ("hl_lines=\"2 6\"", "{1,3}", "twoslash",
// "{expectedErrors: ...}", "[[1, 3, \"updateName\"]]"), which mean
// nothing to an agent reading the section. A block whose one line is an
// include directive nobody resolved ({!path!}, {* path *}: its file is
// not in the repository) holds no code: it becomes "(example: path)", as
// such a directive outside a block does. Everything else stays as it is.
func Tidy(text string) string {
	lines := strings.Split(text, "\n")
	changed := false
	var ch byte
	var n int // the open fence's character and length; n == 0: none open
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if n > 0 {
			if fenceClose([]byte(l), ch, n) {
				n = 0
			}
			continue
		}
		c, m, ok := fenceOpen([]byte(l))
		if !ok {
			if h := withoutHeadingID(l); h != l {
				lines[i] = h
				changed = true
			}
			continue
		}
		if ex, end, ok := includeBlock(lines, i, c, m); ok {
			lines = slices.Replace(lines, i, end+1, ex)
			changed = true
			continue
		}
		ch, n = c, m
		k := strings.IndexByte(l, c) + m
		info := l[k:]
		lead := info[:len(info)-len(strings.TrimLeft(info, " \t"))]
		if tidy := lead + tidyInfo(info); tidy != info {
			lines[i] = l[:k] + tidy
			changed = true
		}
	}
	if !changed {
		return text
	}
	return strings.Join(lines, "\n")
}

// withoutHeadingID returns an ATX heading line without its trailing
// {#id} attribute, or line as it is.
func withoutHeadingID(line string) string {
	t := strings.TrimRight(line, " \t")
	if !strings.HasPrefix(strings.TrimLeft(t, " "), "#") || !strings.HasSuffix(t, "}") {
		return line
	}
	i := strings.LastIndex(t, " {#")
	if i < 0 || strings.ContainsAny(t[i+3:len(t)-1], " \t{}") || len(t[i+3:len(t)-1]) == 0 {
		return line
	}
	return strings.TrimRight(t[:i], " \t")
}

// includeBlock reports whether the block whose fence (m of c) opens at
// lines[i] closes and holds one line, blanks aside, that is an include
// directive, and returns that line rewritten and the closing line's index.
func includeBlock(lines []string, i int, c byte, m int) (string, int, bool) {
	only := -1
	for j := i + 1; j < len(lines); j++ {
		switch {
		case fenceClose([]byte(lines[j]), c, m):
			if only < 0 {
				return "", 0, false
			}
			out, kind := rewriteLine([]byte(lines[only]))
			if kind != rewriteLineOnly || !strings.Contains(string(out), "(example: ") {
				return "", 0, false
			}
			return string(out), j, true
		case strings.TrimSpace(lines[j]) == "":
		case only >= 0:
			return "", 0, false
		default:
			only = j
		}
	}
	return "", 0, false
}

// tidyInfo keeps of an info string its first word, the language, and the
// words that look like file names.
func tidyInfo(info string) string {
	words := strings.Fields(info)
	if len(words) == 0 {
		return ""
	}
	lang, rest := words[0], words[1:]
	if i := strings.IndexAny(lang, "{[=\"'"); i >= 0 {
		// "js{1,3}": the language before the setting; "{1,3}",
		// "[tsconfig.json]", "title=\"x\"": no language word.
		if i == 0 {
			rest = words
		}
		lang = lang[:i]
	}
	out := []string{}
	if lang != "" {
		out = append(out, lang)
	}
	for _, w := range rest {
		if w = strings.Trim(w, "[]"); fileName(w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// fileName reports whether w looks like a file's name or path: a dot
// or slash between letters, and none of a setting's characters.
func fileName(w string) bool {
	if len(w) < 3 || strings.ContainsAny(w, "{}[]=\"',:()") {
		return false
	}
	i := strings.IndexAny(w, "./")
	return i > 0 && i < len(w)-1
}
