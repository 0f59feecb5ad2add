package rst

import (
	"slices"
	"strings"
)

// directive is one parsed directive: ".. name:: arg", the argument's
// further lines, the options and the body.
type directive struct {
	name string
	arg  string
	n    int
	// more are the lines after the first up to a blank line or an option:
	// more argument (a further signature) or, for directives that take
	// none, the start of the body.
	more []srcLine
	opts []option
	body []srcLine
}

type option struct{ key, val string }

func (d *directive) opt(key string) (string, bool) {
	for _, o := range d.opts {
		if o.key == key {
			return o.val, true
		}
	}
	return "", false
}

// content returns the argument, its further lines and the body as one run
// of lines: the text of a directive whose argument is prose.
func (d *directive) content() []srcLine {
	var out []srcLine
	if strings.TrimSpace(d.arg) != "" {
		out = append(out, srcLine{text: strings.TrimSpace(d.arg), n: d.n})
	}
	out = append(out, d.more...)
	if len(d.body) > 0 {
		if len(out) > 0 {
			out = append(out, srcLine{n: d.body[0].n})
		}
		out = append(out, d.body...)
	}
	return out
}

// directiveName reads "name:: arg" and returns the name, lower-cased, and
// the argument.
func directiveName(s string) (string, string, bool) {
	i := strings.Index(s, "::")
	if i <= 0 || i > 64 {
		return "", "", false
	}
	if i+2 < len(s) && s[i+2] != ' ' {
		return "", "", false
	}
	name := s[:i]
	for j := 0; j < len(name); j++ {
		b := name[j]
		if !(isWordByte(b) && b < 0x80) && !(j > 0 && strings.IndexByte("-_:.+", b) >= 0) {
			return "", "", false
		}
	}
	return strings.ToLower(name), strings.TrimSpace(s[i+2:]), true
}

// explicit handles the explicit markup block starting at ls[i] (a
// target, footnote, substitution definition, directive or comment) and
// returns the index after it.
func (c *converter) explicit(ls []srcLine, i int, top bool, depth int) int {
	j := indentedEnd(ls, i+1)
	first := strings.TrimLeft(strings.TrimPrefix(ls[i].text, ".."), " ")
	if label, ok := internalTarget(ls[i].text); ok && j == i+1 {
		c.labels = append(c.labels, MakeID(normalizeName(label)))
		return j
	}
	switch {
	case strings.HasPrefix(first, "|"):
		// A substitution definition shows nothing where it stands. It
		// is defined again here (prescan defined the file's top-level
		// ones, which apply to the whole file, as in docutils) for one
		// in an included file or an indented block, which prescan does
		// not see: it applies from here on. Defining a name twice gives
		// the same definition.
		c.defineSubstitution(ls, i)
		return j
	case strings.HasPrefix(first, "_"):
		return j // external targets
	case strings.HasPrefix(first, "["):
		if k := strings.IndexByte(first, ']'); k > 1 {
			c.placeLabels()
			off := len(ls[i].text) - len(first) + k + 1
			return c.item(ls, i, off, escapeText(first[:k+1])+" ", depth, false)
		}
	}
	name, arg, ok := directiveName(first)
	if !ok {
		return j // a comment
	}
	d := parseDirective(name, arg, ls[i].n, dedent(ls[i+1:j]))
	k := j
	for k < len(ls) && ls[k].text == "" {
		k++
	}
	if top && k < len(ls) {
		n, _ := titleAt(ls, k)
		c.titleNext = n > 0
	}
	c.directive(d, top, depth)
	c.titleNext = false
	return j
}

// parseDirective splits a directive's block into argument lines, options
// and body.
func parseDirective(name, arg string, n int, block []srcLine) *directive {
	d := &directive{name: name, arg: arg, n: n}
	k := 0
	for k < len(block) && block[k].text != "" && !isOptionLine(block[k].text) {
		d.more = append(d.more, block[k])
		k++
	}
	for k < len(block) && block[k].text != "" && isOptionLine(block[k].text) {
		t := block[k].text
		m, key := fieldLen(t)
		val := strings.TrimSpace(t[m:])
		k++
		for k < len(block) && block[k].text != "" && indentOf(block[k].text) > 0 {
			val += " " + strings.TrimSpace(block[k].text)
			k++
		}
		d.opts = append(d.opts, option{strings.ToLower(key), val})
	}
	for k < len(block) && block[k].text == "" {
		k++
	}
	// Lines after the options without a blank line are body too.
	d.body = block[k:]
	return d
}

func isOptionLine(t string) bool {
	n, _ := fieldLen(t)
	return n > 0
}

// admonitions are the directives written as labelled prose.
var admonitions = map[string]string{
	"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
	"caution": "Caution", "danger": "Danger", "attention": "Attention", "hint": "Hint",
	"error": "Error", "seealso": "See also", "todo": "Todo",
}

// versionNotes are Sphinx's version directives and their labels.
var versionNotes = map[string]string{
	"versionadded": "Added in version", "versionchanged": "Changed in version",
	"deprecated": "Deprecated since version", "versionremoved": "Removed in version",
	"deprecated-removed": "Deprecated since version",
}

// codeDirectives are the directives whose body is code, with the language
// to use when the argument gives none ("" for the file's highlight
// language).
var codeDirectives = map[string]string{
	"code-block": "", "code": "", "sourcecode": "", "code-tab": "",
	"testcode": "python", "testsetup": "python", "testcleanup": "python",
	"testoutput": "text", "doctest": "pycon", "ipython": "ipython",
	"jupyter-execute": "python", "productionlist": "text", "parsed-literal": "text",
	"math": "latex", "graphviz": "dot", "digraph": "dot", "graph": "dot",
	"mermaid": "mermaid", "plantuml": "plantuml", "uml": "plantuml", "prompt": "text",
}

// takesLang lists the code directives whose argument is the language.
var takesLang = map[string]bool{"code-block": true, "code": true, "sourcecode": true, "code-tab": true, "prompt": true}

// droppedDirectives are left out with their bodies: navigation, images,
// raw output and settings that show no text.
var droppedDirectives = map[string]bool{
	"image": true, "raw": true, "contents": true, "sectnum": true,
	"index": true, "meta": true, "tabularcolumns": true,
	"role": true, "title": true, "rst-class": true, "cssclass": true,
	"target-notes": true, "header": true, "footer": true,
	"spelling:word-list": true, "highlightlang": true,
}

// containers keep their bodies; those mapped to true keep their argument
// as a label ("**Bash:** ...") or title paragraph.
var containers = map[string]bool{
	"tabs": false, "tab-set": false, "container": false, "only": false, "ifconfig": false,
	"hlist": false, "compound": false, "epigraph": false, "highlights": false,
	"pull-quote": false, "grid": false, "grid-item": false,
	"grid-item-card": true, "card": true, "tab": true, "group-tab": true, "tab-item": true,
	"dropdown": true, "topic": true, "sidebar": true, "figure": false, "table": true,
	"csv-table": true, "rubric": true, "centered": true, "class-list": false,
}

// autodoc maps autodoc directives to the kind of object they document.
var autodoc = map[string]string{
	"automodule": "Module", "autoclass": "Class", "autoexception": "Exception",
	"autofunction": "Function", "automethod": "Method", "autoattribute": "Attribute",
	"autodata": "Data", "autodecorator": "Decorator", "autoproperty": "Property",
	"autonewtypedata": "Data", "autotypealias": "Type", "click": "Command",
	"autoflask": "Routes", "autopydantic_model": "Model", "autopydantic_settings": "Settings",
}

// directive writes one directive.
func (c *converter) directive(d *directive, top bool, depth int) {
	name := d.name
	_, object := objectKindOf(name)
	switch {
	case name == "include" || object:
		// An include's labels are its text's; an object description
		// places them itself.
	case showsNothing[name] || (name == "module" || name == "py:module") && len(d.body) == 0:
		// The labels are the next block's.
	default:
		c.placeLabels()
	}
	if n, ok := d.opt("name"); ok && !object {
		c.innerTarget(MakeID(normalizeName(n)))
	}
	if name == "include" || name == "literalinclude" {
		c.include(d, top, depth)
		return
	}
	if lang, ok := codeDirectives[name]; ok {
		c.codeDirective(d, lang)
		return
	}
	if label, ok := admonitions[name]; ok {
		c.labelled("**"+label+":** ", d.content(), d.n, depth)
		return
	}
	if label, ok := versionNotes[name]; ok {
		version, rest, _ := strings.Cut(d.arg, " ")
		d.arg = rest
		ls := d.content()
		if !slices.ContainsFunc(ls, func(l srcLine) bool { return strings.TrimSpace(l.text) != "" }) {
			// No explanation: a sentence of its own, as Sphinx writes it,
			// not a label with nothing after it.
			c.labelled("**"+label+" "+escapeText(version)+".**", nil, d.n, depth)
			return
		}
		c.labelled("**"+label+" "+escapeText(version)+":** ", ls, d.n, depth)
		return
	}
	if kind, ok := autodoc[name]; ok {
		c.autodoc(d, kind, depth)
		return
	}
	if k, ok := objectKindOf(name); ok {
		c.object(d, name, k, depth)
		return
	}
	switch name {
	case "highlight":
		c.highlight = normalizeLang(firstWord(d.arg))
		return
	case "module", "py:module", "currentmodule", "py:currentmodule":
		c.module = strings.TrimSpace(d.arg)
		if c.module == "None" {
			c.module = ""
		}
		c.class = ""
		if name == "module" || name == "py:module" {
			c.moduleTarget(d)
		}
		c.blocks(d.body, false, depth+1)
		return
	case "glossary", "std:glossary":
		c.glossary(glossaryContent(d), depth)
		return
	case "default-role":
		c.defaultRole = strings.ToLower(strings.TrimSpace(d.arg))
		return
	case "program", "std:program":
		c.program = strings.Join(strings.Fields(d.arg), "-")
		return
	case "admonition":
		c.labelled("**"+c.inline(strings.TrimSpace(d.arg))+":** ", append(d.more, d.body...), d.n, depth)
		return
	case "autosummary":
		var names []string
		var ns []int
		for _, l := range append(d.more, d.body...) {
			if t := strings.TrimSpace(l.text); t != "" && !isOptionLine(t) {
				names = append(names, codeSpan(strings.TrimPrefix(t, "~")))
				ns = append(ns, l.n)
			}
		}
		c.w.para(names, ns)
		return
	case "toctree":
		c.toctree(d)
		return
	case "list-table":
		c.listTable(d, depth)
		return
	case "csv-table":
		c.titled(d)
		if h, ok := d.opt("header"); ok {
			c.w.para([]string{c.inline(h)}, []int{d.n})
		}
		var md []string
		var ns []int
		for _, l := range append(d.more, d.body...) {
			if t := strings.TrimSpace(l.text); t != "" {
				md = append(md, c.inline(t))
				ns = append(ns, l.n)
			}
		}
		c.w.para(md, ns)
		return
	}
	if droppedDirectives[name] {
		return
	}
	if labelArg, ok := containers[name]; ok {
		if !labelArg || strings.TrimSpace(d.arg) == "" {
			// Sphinx lets only and ifconfig hold sections.
			sections := top && (name == "only" || name == "ifconfig")
			c.blocks(append(d.more, d.body...), sections, depth+1)
			return
		}
		switch name {
		case "tab", "group-tab", "tab-item":
			c.labelled("**"+c.inline(strings.TrimSpace(d.arg))+":** ", append(d.more, d.body...), d.n, depth)
		default:
			c.titled(d)
			c.blocks(d.body, false, depth+1)
		}
		return
	}
	// An unknown directive: its argument and body as prose.
	c.blocks(d.content(), false, depth+1)
}

// titled writes a directive's argument (and its further lines) as a
// bold paragraph.
func (c *converter) titled(d *directive) {
	t := strings.TrimSpace(d.arg)
	for _, l := range d.more {
		t += " " + strings.TrimSpace(l.text)
	}
	if t = strings.TrimSpace(t); t != "" {
		c.w.para([]string{"**" + c.inline(t) + "**"}, []int{d.n})
	}
}

// labelled writes lines as prose with label before their first
// paragraph.
func (c *converter) labelled(label string, ls []srcLine, n, depth int) {
	c.w.setPrefix(label, n)
	c.blocks(ls, false, depth+1)
	c.w.flushPrefix()
}

// codeDirective writes a code directive as a fenced block.
func (c *converter) codeDirective(d *directive, lang string) {
	arg := strings.TrimSpace(d.arg)
	var lines []srcLine
	if takesLang[d.name] {
		if arg != "" {
			lang = firstWord(arg)
		}
	} else if arg != "" {
		lines = append(lines, srcLine{text: arg, n: d.n})
	}
	if lang == "" {
		lang = c.highlight
	}
	if caption, ok := d.opt("caption"); ok && caption != "" {
		c.w.para([]string{c.inline(caption)}, []int{d.n})
	}
	lines = append(lines, d.more...)
	if len(d.more) > 0 && len(d.body) > 0 {
		lines = append(lines, srcLine{n: d.body[0].n})
	}
	lines = append(lines, d.body...)
	if d.name == "parsed-literal" {
		c.parsedLiteral(dedent(lines), d.n)
		return
	}
	c.codeLines(normalizeLang(lang), dedent(lines), d.n)
}

// parsedLiteral writes a parsed-literal block. docutils parses its
// inline markup and shows the result preformatted; a markdown code block
// holds no markup, so it holds the text the markup renders (strong text
// and references as their text, roles as Sphinx shows them), with the
// block's line breaks and indentation. Markup that spans lines may join
// them ("`text\n<url>`_" is "text"), as in docutils; each line of the
// block then stands for the source line of its index.
func (c *converter) parsedLiteral(ls []srcLine, n int) {
	if len(ls) == 0 {
		return
	}
	raw := make([]string, len(ls))
	for i, l := range ls {
		raw[i] = l.text
	}
	body := strings.Split(c.renderedText(strings.Join(raw, "\n")), "\n")
	ns := make([]int, len(body))
	for i := range body {
		ns[i] = ls[min(i, len(ls)-1)].n
	}
	c.w.code("text", body, ns, n)
}

// normalizeLang maps Sphinx's highlight names to fence languages.
func normalizeLang(l string) string {
	l = strings.ToLower(strings.TrimSpace(l))
	switch l {
	case "default", "python3", "py3", "py":
		return "python"
	case "none":
		return "text"
	}
	return l
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// autodoc writes an autodoc directive as a line naming the object: the
// docstring it would pull in is not in the repository's documentation.
func (c *converter) autodoc(d *directive, kind string, depth int) {
	target := strings.TrimSpace(d.arg)
	if d.name == "automodule" {
		// Sphinx runs ".. py:module::" for it, options passed on.
		c.module = target
		c.class = ""
		c.moduleTarget(d)
	} else if target != "" && !strings.Contains(target, ".") && c.module != "" && d.name != "click" {
		target = c.module + "." + target
	}
	line := kind
	if target != "" {
		line += " " + codeSpan(target)
	}
	line += " (API reference generated from its docstring)."
	c.w.para([]string{line}, []int{d.n})
	c.blocks(d.body, false, depth+1)
}

// toctree writes a toctree as its caption and a list of the documents it
// links: their titles when given ("Title <path>"), else their paths.
func (c *converter) toctree(d *directive) {
	if caption, ok := d.opt("caption"); ok && caption != "" {
		c.w.para([]string{"**" + c.inline(caption) + "**"}, []int{d.n})
	}
	var items []string
	var ns []int
	for _, l := range append(d.more, d.body...) {
		t := strings.TrimSpace(l.text)
		if t == "" || t == "self" || isOptionLine(t) {
			continue
		}
		if title, _, explicit := splitTitle(t); explicit && title != "" {
			t = title
		}
		items = append(items, escapeText(t))
		ns = append(ns, l.n)
	}
	c.w.list(items, ns)
}
