package markdown

import (
	"strings"
)

// TidyInfoStrings rewrites the info strings of text's fenced code blocks
// to what a reader of the markdown can use: the language, then the words
// that name a file ("```js src/App.js", "```json tsconfig.json"). Sites
// put their renderers' settings there ("hl_lines=\"2 6\"", "{1,3}",
// "twoslash", "{expectedErrors: ...}", "[[1, 3, \"updateName\"]]"),
// which mean nothing to an agent reading the section. Everything else
// stays as it is, so the text keeps its lines.
func TidyInfoStrings(text string) string {
	lines := strings.Split(text, "\n")
	changed := false
	var ch byte
	var n int // the open fence's character and length; n == 0: none open
	for i, l := range lines {
		if n > 0 {
			if fenceClose([]byte(l), ch, n) {
				n = 0
			}
			continue
		}
		c, m, ok := fenceOpen([]byte(l))
		if !ok {
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
