package asciidoc

import (
	"html"
	"strings"
)

// Inline macros (link:, xref:, image:, kbd:, footnote: …), cross
// references and character references: what inline.go's scanner hands
// over when it meets a macro name or an entity. Links and cross
// references become markdown links (an xref to a page by its repository
// path), which package links resolves to the sections they name.

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// macroNames are the inline macros the converter knows, besides URLs.
var macroNames = map[string]bool{
	"xref": true, "link": true, "mailto": true, "image": true, "footnote": true,
	"footnoteref": true, "kbd": true, "btn": true, "menu": true, "anchor": true,
	"stem": true, "latexmath": true, "asciimath": true, "icon": true,
	"indexterm": true, "indexterm2": true,
	"http": true, "https": true, "ftp": true, "irc": true, "file": true,
}

// macro handles name:target[text] macros and URLs.
func (in *inliner) macro(b *strings.Builder, s string, i int, flush func(int)) int {
	j := i
	for j < len(s) && j-i < 12 && (isASCIILetter(s[j]) || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j >= len(s) || s[j] != ':' {
		return i
	}
	name := s[i:j]
	if !macroNames[name] {
		return i
	}
	url := name == "http" || name == "https" || name == "ftp" || name == "irc" || name == "file"
	t := j + 1
	if url {
		t = i
	}
	// The target: up to '[' or, for bare URLs, whitespace; an xref's
	// may hold spaces (xref:Section Title[]), not start with one.
	k := t
	if name == "xref" {
		if t < len(s) && s[t] != ' ' && s[t] != '\t' {
			if k = in.lineBracket(s, t); k-t > 2048 {
				return i
			}
		}
	} else {
		for k < len(s) && s[k] != '[' && s[k] != ' ' && s[k] != '\n' && s[k] != '\t' && k-t < 2048 {
			k++
		}
	}
	target := s[t:k]
	if k >= len(s) || s[k] != '[' {
		if url && len(target) > len(name)+3 {
			flush(i)
			u := strings.TrimRight(target, ".,;:!?)")
			in.lit(b, u)
			return i + len(u)
		}
		return i
	}
	e := bracketEnd(s, k)
	if e < 0 {
		return i
	}
	text := strings.ReplaceAll(s[k+1:e], `\]`, "]")
	flush(i)
	end := e + 1
	switch name {
	case "xref":
		in.xref(b, target, text, false)
	case "http", "https", "ftp", "irc", "file", "link", "mailto":
		text = linkText(text)
		if name == "mailto" {
			target = strings.TrimPrefix(target, "")
		}
		if text == "" {
			in.lit(b, strings.TrimPrefix(target, "mailto:"))
			break
		}
		if in.plain || in.inLink || name == "mailto" {
			b.WriteString(in.sub(text))
			break
		}
		b.WriteString("[")
		b.WriteString(in.subLinkText(text))
		b.WriteString("](")
		b.WriteString(markdownURL(target))
		b.WriteString(")")
	case "image", "icon":
		alt, _, _ := strings.Cut(text, ",")
		in.lit(b, strings.Trim(alt, `"`))
	case "footnote", "footnoteref":
		if name == "footnoteref" {
			_, text, _ = strings.Cut(text, ",")
		}
		if strings.TrimSpace(text) != "" {
			b.WriteString(" (")
			b.WriteString(in.sub(text))
			b.WriteString(")")
		}
	case "kbd", "stem", "latexmath", "asciimath":
		in.code(b, text)
	case "btn":
		in.lit(b, "["+text+"]")
	case "menu":
		items := []string{target}
		for _, it := range strings.Split(text, ">") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		in.raw(b, "**")
		in.lit(b, strings.Join(items, " > "))
		in.raw(b, "**")
	case "anchor":
		// anchor:id[reftext] shows nothing: its text is what <<id>>
		// shows.
		in.anchor(target, text)
		if !in.plain {
			in.c.hide(text)
		}
	case "indexterm":
	case "indexterm2":
		b.WriteString(in.sub(text))
	}
	return end
}

// lineBracket returns the index of the first '[' or line break at or
// after t in s, or len(s), remembering it (in.fail) so that the targets
// of many xref: macros on a line are searched for once.
func (in *inliner) lineBracket(s string, t int) int {
	if k, ok := in.fail["xref["]; ok && k >= t {
		return k
	}
	k := strings.IndexAny(s[t:], "[\n")
	if k < 0 {
		k = len(s)
	} else {
		k += t
	}
	if in.fail != nil {
		in.fail["xref["] = k
	}
	return k
}

// bracketEnd returns the index of the ']' closing the '[' at s[k], on the
// same line, skipping escaped ones, or -1.
func bracketEnd(s string, k int) int {
	for i := k + 1; i < len(s) && i-k < 4096; i++ {
		switch s[i] {
		case '\\':
			i++
		case ']':
			return i
		case '\n':
			if i+1 < len(s) && s[i+1] == '\n' {
				return -1
			}
		}
	}
	return -1
}

// linkText returns a link macro's text without its attributes
// (",window=_blank", a trailing "^") and quotes.
func linkText(t string) string {
	if strings.Contains(t, "=") {
		if i := strings.IndexByte(t, ','); i >= 0 {
			if strings.Contains(t[i:], "=") {
				t = t[:i]
			}
		}
		if strings.Contains(t, "=") && !strings.Contains(t, " ") {
			t = ""
		}
	}
	t = strings.TrimSuffix(t, "^")
	return strings.Trim(strings.TrimSpace(t), `"`)
}

// markdownURL makes a URL safe inside (...): spaces and parentheses are
// percent-encoded.
func markdownURL(u string) string {
	r := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")
	return r.Replace(u)
}

// xref writes a cross reference as a markdown link to the page (by its
// repository path) or section it points to, with its text: the text
// given, else the title of the section or page, else its target's name.
// A reference to a page outside the repository is its text alone. A
// target that names no page (xrefTarget: "<<id>>", "<<page.adoc>>",
// "xref:id[]", "xref:Section Title[]") is an element of this page, by
// its id or its text (xrefs.go); a fragment after "#" is taken as
// written. A page that is this one, or whose text the page includes (a
// book's chapter files), is this page, as Asciidoctor's
// catalog[:includes] check has it.
func (in *inliner) xref(b *strings.Builder, target, text string, shorthand bool) {
	if shorthand {
		target, text, _ = strings.Cut(target, ",")
		target = strings.TrimSpace(target)
	}
	text = strings.Trim(strings.TrimSpace(text), `"`)
	page, frag, hasFrag := xrefTarget(target, shorthand)
	frag = in.passesAsWritten(frag)
	if p := in.c.resolvePage(page); page != "" && (p == in.c.path || in.c.includes[p]) {
		page = "" // this page
	}
	// ref is what resolveRefs resolves: the fragment as written, or a
	// natural reference.
	ref := "#" + frag
	if !hasFrag && !strings.Contains(frag, "\n") {
		ref = frag
	}
	var dest string
	switch {
	case page == "" && frag != "":
		dest = "#" + frag
	case page != "":
		if p := in.c.resolvePage(page); p != "" {
			dest = "/" + p
			if frag != "" {
				dest += "#" + frag
			}
		}
	}
	if text != "" {
		if page == "" && ref == frag && mayNameByText(frag) {
			in.refLink(b, in.subLinkText(text), ref)
			return
		}
		in.link(b, in.subLinkText(text), dest)
		return
	}
	if page == "" {
		if frag == "" {
			in.lit(b, in.c.pageTitle(in.c.path))
			return
		}
		if in.plain {
			b.WriteString(humanizeID(frag))
			return
		}
		// The section's title is known once the page is read (resolveRefs).
		mark := byte(refMark)
		if in.inLink {
			mark = textRefMark
		}
		b.WriteByte(mark)
		b.WriteString(ref)
		b.WriteByte(mark)
		return
	}
	var t strings.Builder
	in.label(&t, in.c.pageTitle(page))
	in.link(b, t.String(), dest)
}

// label writes plain text s as a link's text ("Step 1] unpack": see lit).
func (in *inliner) label(b *strings.Builder, s string) {
	saved := in.inLink
	in.inLink = true
	in.lit(b, s)
	in.inLink = saved
}

// link writes text (markdown) as a link to dest, or alone when dest is
// empty, the output is plain text or text of another link.
func (in *inliner) link(b *strings.Builder, text, dest string) {
	if in.plain || in.inLink || dest == "" || strings.TrimSpace(text) == "" {
		b.WriteString(text)
		return
	}
	b.WriteString("[")
	b.WriteString(text)
	b.WriteString("](")
	b.WriteString(markdownURL(dest))
	b.WriteString(")")
}

// humanizeID turns an id into words: "_install_gems" gives
// "install gems".
func humanizeID(id string) string {
	id = strings.TrimLeft(id, "_-")
	return strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(id))
}

// decodeEntities decodes character references (&#8217;, &amp;) as the
// page shows them: those Asciidoctor passes through as references
// (entityLen) as the browser decodes them; any other is text, escaped
// on the page ("&amp0A;", "&#1;").
func decodeEntities(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			break
		}
		if n := entityLen(s[i:]); n > 0 {
			// As the browser reads it: "&nosuch;" stays, "&ampxx;" is
			// "&xx;".
			b.WriteString(s[:i])
			b.WriteString(html.UnescapeString(s[i : i+n]))
			s = s[i+n:]
			continue
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}
