package context7

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/tokens"
)

// Snippet kinds.
const (
	KindCode = "code"
	KindInfo = "info"
)

// Snippet is one piece of documentation from Context7.
type Snippet struct {
	// Kind is KindCode (an example with the text that explains it) or
	// KindInfo (prose).
	Kind string `json:"kind"`
	// Title is the snippet's title or heading path.
	Title string `json:"title"`
	// Source is the page it comes from, usually a URL.
	Source string `json:"source,omitempty"`
	// Text is the snippet as markdown, in Context7's text layout.
	Text string `json:"-"`
	// Tokens is the size of Text (package tokens).
	Tokens int `json:"tokens"`
}

// separator separates snippets in Context7's text answers of /v2, and in
// Doc's text.
const separator = "--------------------------------"

// joiner goes between two snippets of Doc's text.
const joiner = "\n\n" + separator + "\n\n"

// apiContext is a /v2/context answer with type=json.
type apiContext struct {
	CodeSnippets *[]apiCodeSnippet `json:"codeSnippets"`
	InfoSnippets *[]apiInfoSnippet `json:"infoSnippets"`
}

type apiCodeSnippet struct {
	CodeTitle       string `json:"codeTitle"`
	CodeDescription string `json:"codeDescription"`
	CodeLanguage    string `json:"codeLanguage"`
	CodeID          string `json:"codeId"`
	PageTitle       string `json:"pageTitle"`
	CodeList        []struct {
		Language string `json:"language"`
		Code     string `json:"code"`
	} `json:"codeList"`
}

type apiInfoSnippet struct {
	PageID     string `json:"pageId"`
	Breadcrumb string `json:"breadcrumb"`
	Content    string `json:"content"`
}

// parseContextJSON reads a /v2/context JSON answer into code and info
// snippets, in Context7's order. An answer with neither list is malformed.
func parseContextJSON(body []byte) (code, info []Snippet, err error) {
	var a apiContext
	if err := checkJSON(body, &a); err != nil {
		return nil, nil, err
	}
	if a.CodeSnippets == nil && a.InfoSnippets == nil {
		return nil, nil, fmt.Errorf("%w: a context answer without codeSnippets or infoSnippets", ErrMalformed)
	}
	if a.CodeSnippets != nil {
		for _, s := range *a.CodeSnippets {
			if sn, ok := codeSnippet(s); ok {
				code = append(code, sn)
			}
		}
	}
	if a.InfoSnippets != nil {
		for _, s := range *a.InfoSnippets {
			if sn, ok := infoSnippet(s); ok {
				info = append(info, sn)
			}
		}
	}
	return code, info, nil
}

var snippetAnchor = regexp.MustCompile(`#_snippet_\d+$`)

// codeSnippet renders a code snippet as Context7's text answers do.
func codeSnippet(s apiCodeSnippet) (Snippet, bool) {
	title := firstNonEmpty(s.CodeTitle, s.PageTitle, "Example")
	source := snippetAnchor.ReplaceAllString(strings.TrimSpace(s.CodeID), "")
	var b strings.Builder
	b.WriteString("### " + oneLine(title) + "\n\n")
	if source != "" {
		b.WriteString("Source: " + source + "\n\n")
	}
	desc := strings.TrimSpace(s.CodeDescription)
	if desc != "" {
		b.WriteString(desc + "\n\n")
	}
	blocks := 0
	for _, c := range s.CodeList {
		code := strings.Trim(c.Code, "\n")
		if strings.TrimSpace(code) == "" {
			continue
		}
		lang := oneLine(firstNonEmpty(c.Language, s.CodeLanguage))
		fence := fenceFor(code)
		b.WriteString(fence + lang + "\n" + code + "\n" + fence + "\n\n")
		blocks++
	}
	if blocks == 0 && desc == "" {
		return Snippet{}, false
	}
	text := strings.TrimRight(b.String(), "\n")
	return Snippet{Kind: KindCode, Title: title, Source: source, Text: text, Tokens: tokens.Count(text)}, true
}

// infoSnippet renders an info snippet as Context7's text answers do.
func infoSnippet(s apiInfoSnippet) (Snippet, bool) {
	content := strings.TrimSpace(s.Content)
	if content == "" {
		return Snippet{}, false
	}
	title := firstNonEmpty(s.Breadcrumb, "Documentation")
	source := strings.TrimSpace(s.PageID)
	text := "### " + oneLine(title) + "\n\n"
	if source != "" {
		text += "Source: " + source + "\n\n"
	}
	text += content
	return Snippet{Kind: KindInfo, Title: title, Source: source, Text: text, Tokens: tokens.Count(text)}, true
}

// fenceFor returns a backtick fence longer than any run of backticks at
// the start of a line in code.
func fenceFor(code string) string {
	longest := 0
	for line := range strings.SplitSeq(code, "\n") {
		line = strings.TrimLeft(line, " \t")
		n := len(line) - len(strings.TrimLeft(line, "`"))
		longest = max(longest, n)
	}
	return strings.Repeat("`", max(3, longest+1))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkText checks a text answer: documentation, not binary data or an
// HTML page. An answer that says there is nothing is errEmpty.
func checkText(body []byte) ([]Snippet, error) {
	if !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 {
		return nil, fmt.Errorf("%w: binary data where documentation text was expected", ErrMalformed)
	}
	t := strings.TrimSpace(string(body))
	switch {
	case looksLikeHTML(t):
		return nil, fmt.Errorf("%w: an HTML page where documentation text was expected", ErrMalformed)
	case looksLikeJSON(t):
		return nil, fmt.Errorf("%w: JSON where documentation text was expected", ErrMalformed)
	case t == "" || strings.EqualFold(t, "No content available") || strings.EqualFold(t, "No context data available"):
		return nil, errEmpty
	}
	snips := splitText(t)
	if len(snips) == 0 {
		return nil, errEmpty
	}
	return snips, nil
}

// looksLikeJSON reports whether a text answer t (trimmed) is JSON, whole
// or cut short: an error body cut by a proxy must not be cached as
// documentation. Context7's text answers start with a title ("TITLE: ",
// "### "), never with an object.
func looksLikeJSON(t string) bool {
	return strings.HasPrefix(t, `{"`) || strings.HasPrefix(t, `[{"`) ||
		(strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t))
}

// splitText splits a text answer into snippets. A line of ten or more
// dashes outside a code fence, after a blank line, a fence or the start,
// ends a snippet (Context7 uses 32 dashes in /v2 answers and 40 in /v1
// ones; a markdown setext underline follows a line of text, so it is not
// taken for one). So does a "### " heading after a blank line whose next
// non-blank line starts with "Source: ", the head of every /v2 snippet, for
// where code snippets end and info snippets begin without a separator.
func splitText(s string) []Snippet {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var out []Snippet
	var cur []string
	flush := func() {
		text := strings.Trim(strings.Join(cur, "\n"), "\n ")
		cur = cur[:0]
		if strings.TrimSpace(text) != "" {
			out = append(out, textSnippet(text))
		}
	}
	fence := ""   // the open fence, or ""
	after := true // the previous line is blank, a fence, or there is none
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if fence == "" {
			if after && isSeparatorLine(t) {
				flush()
				after = true
				continue
			}
			if after && strings.HasPrefix(line, "### ") && hasContent(cur) && sourceFollows(lines[i+1:]) {
				flush()
			}
		}
		cur = append(cur, line)
		switch f := fenceOf(t); {
		case fence == "" && f != "":
			fence = f
			after = true
		case fence != "" && f != "" && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			fence = ""
			after = true
		default:
			after = t == ""
		}
	}
	flush()
	return out
}

func isSeparatorLine(t string) bool {
	return len(t) >= 10 && strings.Trim(t, "-") == ""
}

// fenceOf returns the fence a line opens or closes (``` or ~~~ and
// longer), or "".
func fenceOf(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

func hasContent(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}

func sourceFollows(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return strings.HasPrefix(t, "Source: ")
		}
	}
	return false
}

// textSnippet reads the title, source and kind of a snippet of a text
// answer: "### title" or "TITLE: title", "Source: " or "SOURCE: ", and
// code when it has a fence or a "CODE:" line.
func textSnippet(text string) Snippet {
	s := Snippet{Kind: KindInfo, Text: text, Tokens: tokens.Count(text)}
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case s.Title == "" && strings.HasPrefix(t, "### "):
			s.Title = strings.TrimSpace(t[4:])
		case s.Title == "" && strings.HasPrefix(t, "TITLE: "):
			s.Title = strings.TrimSpace(t[len("TITLE: "):])
		case s.Source == "" && (strings.HasPrefix(t, "Source: ") || strings.HasPrefix(t, "SOURCE: ")):
			s.Source = strings.TrimSpace(t[len("Source: "):])
		case t == "CODE:" || fenceOf(t) != "":
			s.Kind = KindCode
		}
	}
	if s.Title == "" {
		s.Title = clip(strings.SplitN(text, "\n", 2)[0], 80)
	}
	if s.Title == "" {
		s.Title = "Documentation" // the first line held only control characters
	}
	s.Source = snippetAnchor.ReplaceAllString(s.Source, "")
	return s
}

// trimToTokens cuts text to at most budget tokens with tokens.Cut
// (at a paragraph, a line or, for one line too long, a rune, never leaving
// a code fence open) and marks the cut; "" when not even the mark fits.
func trimToTokens(text string, budget int) string {
	const mark = "\n\n[… cut to fit the token budget]"
	room := budget - tokens.Count(mark)
	if room <= 0 {
		return ""
	}
	head, _ := tokens.Cut(strings.TrimSpace(text), room)
	if strings.TrimSpace(head) == "" || tokens.Count(head) > room {
		return ""
	}
	return head + mark
}
