package rst

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// codeRoles are the roles whose text Sphinx shows in code font: Python,
// C and JavaScript domain cross-references, std roles naming things
// typed at a keyboard, and Django's.
var codeRoles = map[string]bool{
	"func": true, "meth": true, "class": true, "attr": true, "data": true, "exc": true,
	"mod": true, "obj": true, "const": true, "type": true, "envvar": true, "option": true,
	"file": true, "samp": true, "program": true, "command": true, "code": true, "kbd": true,
	"makevar": true, "any": true, "regexp": true, "mimetype": true, "keyword": true,
	"token": true, "literal": true, "math": true, "member": true, "macro": true,
	"var": true, "struct": true, "union": true, "enum": true, "enumerator": true,
	"expr": true, "texpr": true, "directive": true, "role": true, "confval": true,
	"setting": true, "ttag": true, "tfilter": true, "lookup": true, "djadmin": true,
	"djadminopt": true, "fieldlookup": true, "templatetag": true, "templatefilter": true,
}

// parenRoles get "()" after their target, as Sphinx's
// add_function_parentheses does.
var parenRoles = map[string]bool{"func": true, "meth": true, "py:func": true, "py:meth": true}

// isCodeRole reports whether a role's text is shown as code.
func isCodeRole(role string) bool {
	if codeRoles[role] {
		return true
	}
	dom, name, ok := strings.Cut(role, ":")
	if !ok {
		return false
	}
	switch dom {
	case "py", "c", "cpp", "js", "rst", "std", "http":
		return name != "ref" && name != "doc" && name != "term" && name != "numref" && name != "keyword" || dom != "std"
	}
	return false
}

// inline converts a paragraph's inline markup to markdown; newlines are
// kept.
func (c *converter) inline(s string) string {
	return c.convertInline(s, true)
}

// plainInline returns the text of inline markup without markup, as
// docutils sees a title when it makes its id (substitution references
// are not resolved yet: they show their name).
func plainInline(s string) string {
	v := newInl(s, false)
	v.run()
	return v.out.String()
}

// renderedText returns the text inline markup renders, without markup
// or markdown escapes: roles as Sphinx shows them (with the file's
// section titles for :ref:), references as their text. Line breaks and
// spaces outside markup are kept.
func (c *converter) renderedText(s string) string {
	return c.convertInline(s, false)
}

// convertInline converts inline markup the page shows, and records its
// inline targets (_`name`) as places at the current end of the markdown,
// where the text is written next.
func (c *converter) convertInline(s string, md bool) string {
	v := newInl(s, md)
	v.labels, v.anon, v.terms, v.defaultRole, v.subs, v.budget = c.labelTitles, c.anonLabels, &c.terms, c.defaultRole, c.subs, &c.subBudget
	v.run()
	for _, name := range v.targets {
		c.innerTarget(MakeID(normalizeName(name)))
	}
	return v.out.String()
}

// inl is one conversion of inline markup.
type inl struct {
	s  string
	md bool
	// labels and anon are the file's labels with the titles a :ref:
	// without one shows, and those that have none (converter.labelTitles,
	// anonLabels); terms are its glossary terms (termTable.lookup).
	labels map[string]string
	anon   map[string]bool
	terms  *termTable
	// targets are the names of the inline targets read, in order.
	targets []string
	// defaultRole is the role of `text` without one (".. default-role::"),
	// "" for docutils' title reference.
	defaultRole string
	// subs are the file's substitutions (defineSubstitution); budget is
	// what references may still show of them (substitutionBudget), in
	// bytes. inSub tells that s is a replace:: definition's text.
	subs   map[string]substitution
	budget *int
	inSub  bool
	out    strings.Builder
	// noClose remembers, per closing delimiter, a position after which it
	// has no valid occurrence, so that unclosed openers stay linear.
	noClose map[string]int
}

func newInl(s string, md bool) *inl {
	return &inl{s: s, md: md, noClose: map[string]int{}}
}

// substitution writes what the substitution reference |name| shows: the
// text of its definition, else its name. In a replace:: definition's text
// only unicode:: references are replaced, which keeps expansion to one
// level (docutils resolves any depth).
func (v *inl) substitution(name string) {
	sub, ok := v.subs[normalizeName(name)]
	if !ok || (v.inSub && !sub.literal) || *v.budget < len(sub.text) {
		v.text(name)
		return
	}
	*v.budget -= len(sub.text)
	if sub.literal {
		v.text(sub.text)
		return
	}
	w := newInl(sub.text, v.md)
	w.labels, w.anon, w.terms, w.defaultRole, w.subs, w.budget, w.inSub = v.labels, v.anon, v.terms, v.defaultRole, v.subs, v.budget, true
	w.run()
	v.out.WriteString(w.out.String())
	v.targets = append(v.targets, w.targets...)
}

// text writes plain text, escaped for markdown when converting.
func (v *inl) text(t string) {
	if v.md {
		v.out.WriteString(escapeText(t))
	} else {
		v.out.WriteString(t)
	}
}

// code writes an inline literal: a code span when converting (on one
// line), else its text as written, line breaks kept.
func (v *inl) code(t string) {
	if v.md {
		v.out.WriteString(codeSpan(t))
	} else {
		v.out.WriteString(t)
	}
}

// destEscaper percent-encodes what cannot stand in a markdown link
// destination written without angle brackets (which the markdown cleaner
// would take for an HTML tag: "<my file.rst>").
var destEscaper = strings.NewReplacer(" ", "%20", "\n", "%20", "\t", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")

// link writes a markdown link to target with text t, or t alone when
// not converting or when the target is empty.
func (v *inl) link(t, target string) {
	target = strings.TrimSpace(target)
	if !v.md || target == "" || strings.TrimSpace(t) == "" {
		v.text(t)
		return
	}
	v.writeLink(escapeText(t), target)
}

// writeLink writes a markdown link to target whose text is md, markdown
// already.
func (v *inl) writeLink(md, target string) {
	v.out.WriteByte('[')
	v.out.WriteString(md)
	v.out.WriteString("](")
	v.out.WriteString(destEscaper.Replace(target))
	v.out.WriteByte(')')
}

func (v *inl) wrap(mark, t string) {
	if v.md && strings.TrimSpace(t) != "" {
		v.out.WriteString(mark + escapeText(t) + mark)
	} else {
		v.text(t)
	}
}

// startOK reports whether inline markup may start at s[i]: at the start,
// or after whitespace or opening punctuation, and before a non-space.
func (v *inl) startOK(i, n int) bool {
	if i+n >= len(v.s) || isSpaceByte(v.s[i+n]) {
		return false
	}
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(v.s[:i])
	if unicode.IsSpace(r) || strings.ContainsRune(`-:/'"<([{`, r) {
		return true
	}
	return r >= 0x80 && unicode.IsPunct(r)
}

// endOK reports whether a closing delimiter may be at s[i:i+n]: after a
// non-space, before the end, whitespace or closing punctuation.
func (v *inl) endOK(i, n int) bool {
	if i == 0 || isSpaceByte(v.s[i-1]) {
		return false
	}
	j := i + n
	if j >= len(v.s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(v.s[j:])
	if unicode.IsSpace(r) || strings.ContainsRune(`-.,:;!?\/'")]}>`, r) {
		return true
	}
	return r >= 0x80 && unicode.IsPunct(r)
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// find returns the index of the first valid closing delim at or after
// from, or -1. backtick also accepts a closer followed by what may follow
// interpreted text or a substitution (a reference's "_", a role suffix).
func (v *inl) find(delim string, from int, backtick bool) int {
	key := delim
	if backtick {
		key += "+suffix"
	}
	if p, ok := v.noClose[key]; ok && from >= p {
		return -1
	}
	for k := from; k < len(v.s); {
		j := strings.Index(v.s[k:], delim)
		if j < 0 {
			break
		}
		j += k
		if v.s[j-1] == '\\' && delim != "``" {
			k = j + 1
			continue
		}
		if delim == "*" && j+1 < len(v.s) && v.s[j+1] == '*' {
			k = j + 2
			continue
		}
		if v.endOK(j, len(delim)) {
			return j
		}
		if backtick && j > 0 && !isSpaceByte(v.s[j-1]) && j+1 < len(v.s) && (v.s[j+1] == '_' || v.s[j+1] == ':') {
			return j
		}
		k = j + 1
	}
	v.noClose[key] = from
	return -1
}

func (v *inl) run() {
	s := v.s
	plainStart := 0
	flush := func(i int) {
		if i > plainStart {
			v.text(unescapeRST(s[plainStart:i]))
		}
	}
	i := 0
	for i < len(s) {
		ch := s[i]
		switch {
		case ch == '\\':
			i += 2
			continue
		case ch == '`' && strings.HasPrefix(s[i:], "``") && v.startOK(i, 2):
			if j := v.find("``", i+2, false); j >= 0 {
				flush(i)
				v.code(s[i+2 : j])
				i = j + 2
				plainStart = i
				continue
			}
		case ch == '`' && v.startOK(i, 1):
			if j := v.find("`", i+1, true); j >= 0 {
				flush(i)
				i = v.interpreted("", i+1, j)
				plainStart = i
				continue
			}
		case ch == ':' && (i == 0 || v.startOK(i, 1)):
			if role, k := roleAt(s, i); k > 0 && k < len(s) && s[k] == '`' && v.startOK(k, 1) {
				if j := v.find("`", k+1, true); j >= 0 {
					flush(i)
					i = v.interpreted(role, k+1, j)
					plainStart = i
					continue
				}
			}
		case ch == '*' && strings.HasPrefix(s[i:], "**") && v.startOK(i, 2):
			if j := v.find("**", i+2, false); j >= 0 {
				flush(i)
				v.wrap("**", unescapeRST(s[i+2:j]))
				i = j + 2
				plainStart = i
				continue
			}
		case ch == '*' && v.startOK(i, 1):
			if j := v.find("*", i+1, false); j >= 0 {
				flush(i)
				v.wrap("*", unescapeRST(s[i+1:j]))
				i = j + 1
				plainStart = i
				continue
			}
		case ch == '|' && v.startOK(i, 1):
			if j := v.find("|", i+1, true); j >= 0 {
				flush(i)
				v.substitution(unescapeRST(s[i+1 : j]))
				i = v.skipRefSuffix(j + 1)
				plainStart = i
				continue
			}
		case ch == '_' && strings.HasPrefix(s[i:], "_`") && v.startOK(i, 2):
			if j := v.find("`", i+2, false); j >= 0 {
				flush(i)
				v.targets = append(v.targets, unescapeRST(s[i+2:j]))
				v.text(unescapeRST(s[i+2 : j]))
				i = j + 1
				plainStart = i
				continue
			}
		case ch == '[' && v.startOK(i, 1):
			if j := strings.IndexByte(s[i:], ']'); j > 1 && j < 64 && i+j+1 < len(s) && s[i+j+1] == '_' && v.refEnd(i+j+2) {
				flush(i)
				v.text(s[i : i+j+1])
				i = i + j + 2
				plainStart = i
				continue
			}
		case ch == 'h' || ch == 'm':
			if (strings.HasPrefix(s[i:], "http://") || strings.HasPrefix(s[i:], "https://") || strings.HasPrefix(s[i:], "mailto:")) && (i == 0 || !isWordByte(s[i-1])) {
				j := i
				for j < len(s) && !isSpaceByte(s[j]) && s[j] != '<' && s[j] != '>' && s[j] != '`' {
					j++
				}
				flush(i)
				// Markdown links the URL as written (GFM autolinks).
				v.out.WriteString(s[i:j])
				i = j
				plainStart = i
				continue
			}
		}
		if isWordByte(ch) && (i == 0 || !isWordByte(s[i-1])) {
			// A simple reference: name_ or name__ at word boundaries.
			j := refNameEnd(s, i)
			if j < len(s) && s[j] == '_' && v.startOK(i, 0) {
				k := j + 1
				if k < len(s) && s[k] == '_' {
					k++
				}
				if v.refEnd(k) {
					flush(i)
					v.text(s[i:j])
					i = k
					plainStart = i
					continue
				}
			}
			i = max(j, i+1)
			continue
		}
		i++
	}
	flush(len(s))
}

// refEnd reports whether position k ends a reference: the end, or
// whitespace or closing punctuation follows.
func (v *inl) refEnd(k int) bool {
	if k < 0 {
		return false
	}
	if k >= len(v.s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(v.s[k:])
	return unicode.IsSpace(r) || strings.ContainsRune(`-.,:;!?\/'")]}>`, r) || (r >= 0x80 && unicode.IsPunct(r))
}

// skipRefSuffix skips a reference's "_" or "__" at k.
func (v *inl) skipRefSuffix(k int) int {
	if k < len(v.s) && v.s[k] == '_' {
		k++
		if k < len(v.s) && v.s[k] == '_' {
			k++
		}
	}
	return k
}

func isWordByte(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b >= 0x80
}

// refNameEnd returns the end of the reference name starting at s[i]:
// alphanumerics joined by single '-', '.', '_', '+' or ':'.
func refNameEnd(s string, i int) int {
	j := i
	for j < len(s) {
		if isWordByte(s[j]) {
			j++
			continue
		}
		if strings.IndexByte("-._+:", s[j]) >= 0 && j+1 < len(s) && isWordByte(s[j+1]) {
			j++
			continue
		}
		break
	}
	return j
}

// roleAt returns the role named at s[i] (":name:") and the index after
// it, or 0.
func roleAt(s string, i int) (string, int) {
	j := i + 1
	for j < len(s) && j-i < 64 && (isWordByte(s[j]) || strings.IndexByte("-_.+:", s[j]) >= 0) {
		if s[j] == ':' && j+1 < len(s) && s[j+1] == '`' {
			if j == i+1 {
				return "", 0
			}
			return s[i+1 : j], j + 1
		}
		j++
	}
	return "", 0
}

// interpreted writes interpreted text s[a:b] (between backticks) with a
// role given before it or after it, or a hyperlink reference, and
// returns the index after it.
func (v *inl) interpreted(role string, a, b int) int {
	s := v.s
	k := b + 1
	ref := false
	if role == "" {
		switch {
		case strings.HasPrefix(s[k:], "__"):
			ref, k = true, k+2
		case strings.HasPrefix(s[k:], "_"):
			ref, k = true, k+1
		default:
			if k < len(s) && s[k] == ':' {
				j := k + 1
				for j < len(s) && j-k < 64 && (isWordByte(s[j]) || strings.IndexByte("-_.+:", s[j]) >= 0) {
					j++
				}
				// A suffix role ends with ':' before a boundary.
				for e := j; e > k+1; e-- {
					if s[e-1] == ':' && v.refEnd(e) {
						role, k = s[k+1:e-1], e
						break
					}
				}
			}
		}
	}
	// docutils looks roles up by their name lower-cased (":RFC:").
	role = strings.ToLower(role)
	body := strings.ReplaceAll(s[a:b], "\n", " ")
	title, target, explicit := splitTitle(body)
	switch {
	case ref:
		// `text <target>`_ links to a URL or a file; `text <name_>`_ and
		// `name`_ name a target defined elsewhere, written as text.
		switch {
		case explicit && title != "" && !strings.HasSuffix(target, "_"):
			// docutils drops the whitespace of a URI (one wrapped
			// across lines).
			v.link(unescapeRST(title), strings.Join(strings.Fields(target), ""))
		case explicit && title != "":
			v.text(unescapeRST(title))
		case explicit:
			v.link(unescapeRST(target), strings.Join(strings.Fields(target), ""))
		default:
			v.text(unescapeRST(body))
		}
	case role == "" && v.defaultRole != "":
		v.role(v.defaultRole, title, target, explicit, body)
	case role == "":
		v.wrap("*", unescapeRST(body))
	default:
		v.role(role, title, target, explicit, body)
	}
	return k
}

// splitTitle splits "title <target>" into its parts.
func splitTitle(body string) (title, target string, explicit bool) {
	t := strings.TrimRight(body, " ")
	if !strings.HasSuffix(t, ">") || strings.HasSuffix(t, `\>`) {
		return body, body, false
	}
	i := strings.LastIndex(t, "<")
	if i < 0 || (i > 0 && t[i-1] == '\\') {
		return body, body, false
	}
	if i > 0 && t[i-1] != ' ' {
		return body, body, false
	}
	return strings.TrimSpace(t[:i]), t[i+1 : len(t)-1], true
}

// role writes a role's text as Sphinx shows it.
func (v *inl) role(role, title, target string, explicit bool, body string) {
	name := role
	if dom, n, ok := strings.Cut(role, ":"); ok && (dom == "py" || dom == "std" || dom == "rst" || dom == "c" || dom == "cpp" || dom == "js") {
		name = n
	}
	show := unescapeRST(title)
	if !explicit {
		show = unescapeRST(body)
		show = strings.TrimPrefix(show, "!")
		if isCodeRole(role) {
			if strings.HasPrefix(show, "~") {
				show = show[1:]
				if d := strings.LastIndexByte(show, '.'); d >= 0 && !strings.HasSuffix(show, ".") {
					show = show[d+1:]
				}
			}
			show = strings.TrimLeft(show, ".")
			if parenRoles[role] && show != "" && !strings.HasSuffix(show, ")") {
				show += "()"
			}
		}
	}
	if v.xref(role, name, show, target, body, explicit) {
		return
	}
	switch name {
	case "doc":
		if doc := unescapeRST(target); !strings.Contains(doc, ":") {
			v.link(show, doc) // relative to this file, or to the source root with a leading /
		} else {
			v.text(show) // another project's (intersphinx)
		}
	case "pep":
		v.text("PEP " + show)
	case "rfc":
		v.text("RFC " + show)
	case "issue", "pr", "ghissue", "gh":
		if !explicit && show != "" && show[0] >= '0' && show[0] <= '9' {
			show = "#" + show
		}
		v.text(show)
	case "user":
		v.text("@" + show)
	case "emphasis", "dfn", "title-reference", "t", "title", "cite":
		v.wrap("*", show)
	case "strong":
		v.wrap("**", show)
	case "guilabel":
		v.text(strings.ReplaceAll(show, "&", ""))
	case "menuselection":
		v.text(strings.ReplaceAll(strings.ReplaceAll(show, "-->", "›"), "&", ""))
	default:
		if isCodeRole(role) || isCodeRole(name) {
			v.code(show)
		} else {
			v.text(show)
		}
	}
}

// unescapeRST removes reStructuredText backslash escapes: an escaped
// character stands for itself, an escaped space or newline for nothing.
func unescapeRST(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == ' ' {
				continue
			}
			if s[i] == '\n' {
				b.WriteByte('\n')
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// codeSpan returns t as a markdown code span.
func codeSpan(t string) string {
	t = strings.ReplaceAll(t, "\n", " ")
	if strings.TrimSpace(t) == "" {
		return t
	}
	n := longestRun([]string{t}, '`') + 1
	fence := strings.Repeat("`", n)
	if strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") || (strings.HasPrefix(t, " ") && strings.HasSuffix(t, " ")) {
		return fence + " " + t + " " + fence
	}
	return fence + t + fence
}

// escapeText escapes what markdown or the markdown cleaner would read as
// markup in plain text: backslashes, backticks, asterisks, brackets,
// braces, tags, and underscores that could open emphasis.
func escapeText(t string) string {
	var b strings.Builder
	b.Grow(len(t) + len(t)/16)
	for i := 0; i < len(t); i++ {
		ch := t[i]
		switch ch {
		case '\\', '`', '*', '[', ']', '{', '}':
			b.WriteByte('\\')
		case '_':
			if i == 0 || !isWordByte(t[i-1]) {
				b.WriteByte('\\')
			}
		case '<':
			if i+1 < len(t) && (isRomanOrLetter(t[i+1]) || strings.IndexByte("/!?>", t[i+1]) >= 0) {
				b.WriteByte('\\')
			}
		case '&':
			// An entity would be read as the character it names.
			if i+1 < len(t) && (isWordByte(t[i+1]) || t[i+1] == '#') {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// escapeLineStart escapes what would make a markdown line more than a
// paragraph line, or what the markdown cleaner rewrites at a line's
// start: headings, quotes, list markers, fences, setext underlines,
// table rows, admonition and include markers, ESM statements.
func escapeLineStart(l string) string {
	t := strings.TrimLeft(l, " \t")
	if t == "" {
		return t
	}
	switch t[0] {
	case '#', '>', '|', '=', '~', '+':
		return `\` + t
	case '-':
		if len(t) == 1 || t[1] == ' ' || t[1] == '\t' || strings.Trim(t, "- ") == "" {
			return `\` + t
		}
	case ':', '/':
		if len(t) > 1 && t[1] == t[0] {
			return `\` + t
		}
	case 'T', 'W', '?':
		if len(t) > 1 && t[1] == '>' {
			return t[:1] + `\` + t[1:]
		}
	case 'i', 'e':
		if (strings.HasPrefix(t, "import") || strings.HasPrefix(t, "export")) && (len(t) == 6 || strings.IndexByte(" {*'\"", t[6]) >= 0) {
			return " " + t
		}
	}
	if t[0] >= '0' && t[0] <= '9' {
		j := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j < len(t) && (t[j] == '.' || t[j] == ')') && (j+1 == len(t) || t[j+1] == ' ') {
			return t[:j] + `\` + t[j:]
		}
	}
	return t
}

// escapeHeading escapes a heading's text: its line start, and a closing
// sequence of '#'.
func escapeHeading(t string) string {
	t = strings.TrimSpace(strings.ReplaceAll(t, "\n", " "))
	if strings.HasSuffix(t, "#") {
		t = t[:len(t)-1] + `\#`
	}
	if t != "" && (t[0] == '#' || t[0] == '{') {
		t = `\` + t
	}
	return t
}
