package context7api

import (
	"strings"

	"github.com/codex7/codex7/search"
)

// ContextResponse is the JSON answer of the docs endpoints (schema
// ContextResponse of docs/openapi.json). Both slices are always present,
// possibly empty.
type ContextResponse struct {
	CodeSnippets []CodeSnippet `json:"codeSnippets"`
	InfoSnippets []InfoSnippet `json:"infoSnippets"`
}

// CodeSnippet is a section with code: its heading path below the document
// title as CodeTitle, the document title as PageTitle, its prose as the
// description and each fenced block as an entry of CodeList.
type CodeSnippet struct {
	CodeTitle       string        `json:"codeTitle"`
	CodeDescription string        `json:"codeDescription"`
	CodeLanguage    string        `json:"codeLanguage"`
	CodeTokens      int           `json:"codeTokens"`
	CodeID          string        `json:"codeId"`
	PageTitle       string        `json:"pageTitle"`
	CodeList        []CodeExample `json:"codeList"`
}

// CodeExample is one fenced code block.
type CodeExample struct {
	Language string `json:"language"`
	Code     string `json:"code"`
}

// InfoSnippet is a section without code.
type InfoSnippet struct {
	PageID        string `json:"pageId"`
	Breadcrumb    string `json:"breadcrumb"`
	Content       string `json:"content"`
	ContentTokens int    `json:"contentTokens"`
}

// contextResponse turns an answer's sections, best first, into snippets.
func contextResponse(ans *search.Answer) ContextResponse {
	out := ContextResponse{CodeSnippets: []CodeSnippet{}, InfoSnippets: []InfoSnippet{}}
	for i := range ans.Sections {
		s := &ans.Sections[i]
		prose, code := splitFences(withoutHeading(s.Text))
		source := s.Path
		if s.Anchor != "" {
			source += "#" + s.Anchor
		}
		if len(code) == 0 {
			out.InfoSnippets = append(out.InfoSnippets, InfoSnippet{PageID: source, Breadcrumb: strings.Join(s.HeadingPath, " > "),
				Content: prose, ContentTokens: s.Tokens})
			continue
		}
		// The page is the document; the title is the section's place in it,
		// which says more than a heading such as "Example" alone.
		page, title := s.Title, s.Title
		if len(s.HeadingPath) > 0 {
			page = s.HeadingPath[0]
		}
		if len(s.HeadingPath) > 1 {
			title = strings.Join(s.HeadingPath[1:], " > ")
		}
		out.CodeSnippets = append(out.CodeSnippets, CodeSnippet{CodeTitle: title, CodeDescription: prose, CodeLanguage: code[0].Language,
			CodeTokens: s.Tokens, CodeID: source, PageTitle: page, CodeList: code})
	}
	return out
}

// withoutHeading drops a section's heading line (ATX, or setext with its
// underline): breadcrumb and codeTitle carry it.
func withoutHeading(text string) string {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.HasPrefix(strings.TrimLeft(first, " "), "#") {
		return strings.TrimLeft(rest, "\n")
	}
	if second, after, _ := strings.Cut(rest, "\n"); strings.TrimSpace(first) != "" && isSetextUnderline(second) {
		return strings.TrimLeft(after, "\n")
	}
	return text
}

func isSetextUnderline(line string) bool {
	line = strings.TrimSpace(line)
	return line != "" && (strings.Trim(line, "=") == "" || strings.Trim(line, "-") == "")
}

// splitFences separates markdown into its prose, with fenced code blocks
// removed and blank runs collapsed, and the blocks themselves. A fence is
// three or more backticks or tildes indented at most three spaces; it
// closes at a line of at least as many of the same character, or at the
// end of the text. The language is the first word of the info string,
// lower-cased, without braces or attributes ("ts" for "```ts {1,3}").
func splitFences(text string) (prose string, code []CodeExample) {
	var p, c strings.Builder
	inFence := false
	var fenceChar byte
	var fenceLen, indent int
	var lang string
	for line := range strings.Lines(text) {
		body := strings.TrimSuffix(line, "\n")
		if !inFence {
			ch, n, ind, info, ok := fenceOpen(body)
			if !ok {
				p.WriteString(line)
				continue
			}
			inFence, fenceChar, fenceLen, indent, lang = true, ch, n, ind, infoLang(info)
			c.Reset()
			continue
		}
		if fenceClose(body, fenceChar, fenceLen) {
			code = append(code, CodeExample{Language: lang, Code: strings.TrimSuffix(c.String(), "\n")})
			inFence = false
			continue
		}
		c.WriteString(dedent(line, indent))
	}
	if inFence {
		code = append(code, CodeExample{Language: lang, Code: strings.TrimSuffix(c.String(), "\n")})
	}
	return collapseBlank(p.String()), code
}

// fenceOpen reports whether line opens a fence, with its character, length,
// indentation and info string.
func fenceOpen(line string) (ch byte, n, indent int, info string, ok bool) {
	for indent < len(line) && indent < 4 && line[indent] == ' ' {
		indent++
	}
	if indent > 3 || indent == len(line) || (line[indent] != '`' && line[indent] != '~') {
		return 0, 0, 0, "", false
	}
	ch = line[indent]
	for indent+n < len(line) && line[indent+n] == ch {
		n++
	}
	info = strings.TrimSpace(line[indent+n:])
	if n < 3 || (ch == '`' && strings.Contains(info, "`")) {
		return 0, 0, 0, "", false
	}
	return ch, n, indent, info, true
}

func fenceClose(line string, ch byte, n int) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	t = strings.TrimRight(t, " \t\r")
	return len(t) >= n && strings.Trim(t, string(ch)) == ""
}

// infoLang is the language an info string names.
func infoLang(info string) string {
	f := strings.FieldsFunc(info, func(r rune) bool { return r == ' ' || r == '\t' || r == '{' || r == ',' })
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}

// dedent removes up to n leading spaces, the fence's own indentation.
func dedent(line string, n int) string {
	for i := 0; i < n && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
	return line
}

// collapseBlank trims s and turns runs of blank lines into one.
func collapseBlank(s string) string {
	var b strings.Builder
	blank := 0
	for line := range strings.Lines(strings.TrimSpace(s)) {
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if blank > 0 && b.Len() > 0 {
			b.WriteString("\n")
		}
		blank = 0
		b.WriteString(line)
	}
	return strings.TrimSpace(b.String())
}
