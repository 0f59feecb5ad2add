package rst

import (
	"strings"
)

// prescan records which explicit targets precede section titles, the
// titles Sphinx gives the file's other labels (noteLabels), the terms of
// its glossaries, and its substitution definitions. The text of an
// include is scanned where the include stands (prescanInclude): docutils
// reads it into the document, whose labels and terms its labels and
// terms are, so that a :ref: to an included file's label shows the title
// Sphinx gives it, or the label unlinked when it has none.
func (c *converter) prescan(ls []srcLine) {
	// The includes read here do not count against what the writing may
	// read.
	included := c.included
	pending := c.prescanLines(ls, nil, true)
	c.included = included
	for _, l := range pending {
		c.noteLabel(l, "")
	}
}

// prescanLines scans lines for prescan, with the labels pending before
// them, and returns the labels still pending after them. own tells that
// they are the file's own lines, whose top-level substitution
// definitions apply to the whole file (an included file's apply from
// where they are written: see explicit).
func (c *converter) prescanLines(ls []srcLine, pending []string, own bool) []string {
	for i := 0; i < len(ls); i++ {
		t := ls[i].text
		if t == "" {
			continue
		}
		if own && strings.HasPrefix(t, ".. |") {
			c.defineSubstitution(ls, i)
		}
		if label, ok := internalTarget(strings.TrimLeft(t, " ")); ok {
			pending = append(pending, label)
			continue
		}
		if n, title := titleAt(ls, i); n > 0 {
			for _, l := range pending {
				c.labelTitles[normalizeName(l)] = title
			}
			pending = pending[:0]
			i += n - 1
			continue
		}
		if end, rest, ok := c.prescanInclude(ls, i, pending); ok {
			pending = rest
			i = end - 1
			continue
		}
		c.noteGlossary(ls, i)
		c.noteInlineTargets(t)
		next, used := c.noteLabels(ls, i, pending)
		if used {
			pending = pending[:0]
		}
		i = next - 1
	}
	return pending
}

// prescanInclude scans the text of the include directive at ls[i], when
// it is one the reader writes as reStructuredText and can read (see
// include), with the labels pending before it. It returns the index
// after the directive, the labels pending after the included text, and
// whether it did. The file is read as include reads it: from the
// document's folder, within the bounds on depth, cycles and size.
func (c *converter) prescanInclude(ls []srcLine, i int, pending []string) (int, []string, bool) {
	d, end, ok := directiveAt(ls, i, "include")
	if !ok || hasOpt(d, "code") || hasOpt(d, "literal") {
		return 0, pending, false
	}
	p, data, reason := c.read(includeTarget(d))
	if reason != "" {
		return 0, pending, false
	}
	lines := includeFilter(fileLines(data), d)
	c.including = append(c.including, p)
	pending = c.prescanLines(splitLines(strings.Join(lines, "\n"), d.n), pending, false)
	c.including = c.including[:len(c.including)-1]
	return end, pending, true
}

// internalTarget returns the name of an internal target line
// (".. _label:" with nothing after the colon).
func internalTarget(t string) (string, bool) {
	if !strings.HasPrefix(t, ".. _") || !strings.HasSuffix(t, ":") {
		return "", false
	}
	name := t[4 : len(t)-1]
	if strings.HasPrefix(name, "`") && strings.HasSuffix(name, "`") && len(name) >= 2 {
		name = name[1 : len(name)-1]
	} else if strings.Contains(name, ": ") {
		return "", false
	}
	name = strings.TrimSpace(strings.ReplaceAll(name, `\:`, ":"))
	if name == "" || name == "_" {
		return "", false
	}
	return name, true
}
