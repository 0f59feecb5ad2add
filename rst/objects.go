package rst

import (
	"strings"
)

// objectKind says how an object description directive makes its id.
type objectKind struct {
	// python objects get Sphinx's Python domain ids: the module, the
	// enclosing class and the name, dotted.
	python bool
	// nests tells that the object's body describes members (classes).
	nests bool
	// prefix makes "prefix-name" ids, as Sphinx's std domain and
	// add_object_type / add_crossref_type do; "" means SphinxID(name).
	prefix string
	// option objects get "cmdoption-[program-]name" ids.
	option bool
}

// objectDirectives are the directives that describe an object and become
// headings one level below their section. To add a project's own object
// type, add its directive name with the id prefix Sphinx gives it: for
// app.add_object_type in conf.py the directive name ("django-admin" makes
// "django-admin-migrate"), for app.add_crossref_type "std-" and the name
// (Sphinx runs it as "std:setting", and ':' becomes '-' in the id:
// "std-setting-SESSION_COOKIE_AGE").
var objectDirectives = map[string]objectKind{
	// Python domain, with or without "py:".
	"function": {python: true}, "method": {python: true}, "classmethod": {python: true},
	"staticmethod": {python: true}, "attribute": {python: true}, "property": {python: true},
	"data": {python: true}, "decorator": {python: true}, "decoratormethod": {python: true},
	"type":  {python: true},
	"class": {python: true, nests: true}, "exception": {python: true, nests: true},
	// Sphinx's std domain.
	"envvar": {prefix: "envvar"}, "confval": {prefix: "confval"}, "option": {option: true},
	"describe": {}, "object": {},
	"rst:directive": {prefix: "directive"}, "rst:role": {prefix: "role"},
	"rst:directive:option": {prefix: "directive-option"},
	// Django's documentation types.
	"setting": {prefix: "std-setting"}, "templatetag": {prefix: "std-templatetag"},
	"templatefilter": {prefix: "std-templatefilter"}, "fieldlookup": {prefix: "std-fieldlookup"},
	"django-admin": {prefix: "django-admin"}, "django-admin-option": {option: true},
}

// otherDomains are domains whose object directives are headings with
// ids approximated by SphinxID of the name.
var otherDomains = []string{"c:", "cpp:", "js:", "http:", "mongodb:", "proto:"}

// objectKindOf returns the kind of an object description directive.
func objectKindOf(name string) (objectKind, bool) {
	if n, ok := strings.CutPrefix(name, "py:"); ok {
		k, ok := objectDirectives[n]
		return k, ok && k.python
	}
	if n, ok := strings.CutPrefix(name, "std:"); ok {
		k, ok := objectDirectives[n]
		return k, ok && !k.python
	}
	if k, ok := objectDirectives[name]; ok {
		return k, true
	}
	for _, d := range otherDomains {
		if strings.HasPrefix(name, d) && len(name) > len(d) {
			return objectKind{}, true
		}
	}
	return objectKind{}, false
}

// object writes an object description as a heading one level below the
// enclosing section or object, with its Sphinx id, and its body under it.
//
// Sphinx's ids never use docutils' automatic "idN" counter: an object
// whose id is taken gets the next free number of a counter of its own
// (make_id with env.new_serialno: "id0", "cmdoption-x-0"), and one with
// :noindex: gets no id at all. Its heading still needs an anchor; that
// one is chosen once the document's ids are all known (anchorNoindex),
// so that it takes none of them.
func (c *converter) object(d *directive, name string, k objectKind, depth int) {
	sig := strings.TrimSpace(d.arg)
	level := max(max(c.level, c.objLevel)+1, 2)
	bodyClass := c.class
	var id string
	// serial is what Sphinx numbers the object with when its id is taken.
	serial := "id"
	switch {
	case k.python:
		var fullname, prefix string
		fullname, prefix = c.pyFullname(sig)
		if fullname == "" {
			id = SphinxID(sig)
		} else {
			mod := c.module
			if m, ok := d.opt("module"); ok {
				mod = m
			}
			if mod != "" {
				id = SphinxID(mod + "." + fullname)
			} else {
				id = SphinxID(fullname)
			}
			if k.nests {
				bodyClass = fullname
			} else if prefix != "" {
				bodyClass = strings.TrimSuffix(prefix, ".")
			}
		}
	case k.option:
		opt := sig
		if i := strings.Index(opt, ", "); i >= 0 {
			opt = opt[:i]
		}
		if i := strings.IndexAny(opt, " =["); i > 0 {
			opt = opt[:i]
		}
		prefix := "cmdoption"
		if c.program != "" {
			prefix += "-" + c.program
		}
		if !strings.HasPrefix(opt, "-") && !strings.HasPrefix(opt, "/") {
			prefix += "-arg"
		}
		id = SphinxID(prefix + "-" + opt)
		serial = prefix + "-"
	case name == "django-admin":
		// Django's parse_django_admin_node names the command and makes it
		// the program of the options that follow.
		c.program = firstWord(sig)
		id = SphinxID(k.prefix + "-" + c.program)
		serial = k.prefix + "-"
	case k.prefix != "":
		id = SphinxID(k.prefix + "-" + sig)
		serial = k.prefix + "-"
	default:
		id = SphinxID(sig)
	}
	noindex := hasOpt(d, "noindex") || hasOpt(d, "no-index")
	if len(d.body) == 0 && len(d.more) == 0 && c.titleNext && id != "" && !noindex {
		// A bodiless description right before a section title, as
		// Django's ".. setting:: NAME" before "NAME" underlined: Sphinx
		// moves its target onto the section, which is the entry.
		c.labels = append([]string{id}, c.labels...)
		return
	}
	// Labels before it name it (docutils leaves their ids just above
	// it): its section holds them.
	from := len(c.inner)
	c.placeLabels()
	title := sig
	if name == "decorator" || name == "py:decorator" || name == "decoratormethod" || name == "py:decoratormethod" {
		title = "@" + sig
	}
	if name == "django-admin" {
		title = "django-admin " + sig
	}
	if noindex {
		c.w.lateHeading(level, escapeText(title), id, d.n)
	} else {
		c.w.heading(level, escapeText(title), c.objectID(id, serial), d.n)
	}
	c.w.markEntry()
	c.placedHere(from)
	if len(d.more) > 0 {
		var sigs []string
		var ns []int
		for _, l := range d.more {
			sigs = append(sigs, codeSpan(strings.TrimSpace(l.text)))
			ns = append(ns, l.n)
		}
		c.w.para(sigs, ns)
	}
	savedClass, savedLevel := c.class, c.objLevel
	c.class, c.objLevel = bodyClass, level
	c.blocks(d.body, false, depth+1)
	c.class, c.objLevel = savedClass, savedLevel
}

// pyFullname returns the full name (without module) Sphinx's Python
// domain gives a signature in the current class, and the signature's
// dotted prefix, or "" when the signature has no name.
func (c *converter) pyFullname(sig string) (string, string) {
	for _, kw := range []string{"async ", "class ", "final ", "abstract "} {
		sig = strings.TrimPrefix(sig, kw)
	}
	sig = strings.TrimPrefix(sig, "@")
	j := 0
	for j < len(sig) && (isWordByte(sig[j]) || sig[j] == '_' || sig[j] == '.') {
		j++
	}
	dotted := strings.Trim(sig[:j], ".")
	if dotted == "" {
		return "", ""
	}
	prefix, name := "", dotted
	if i := strings.LastIndexByte(dotted, '.'); i >= 0 {
		prefix, name = dotted[:i+1], dotted[i+1:]
	}
	cls := c.class
	switch {
	case cls == "":
		return prefix + name, prefix
	case prefix != "" && (prefix == cls+"." || strings.HasPrefix(prefix, cls+".")):
		return prefix + name, prefix
	case prefix != "":
		return cls + "." + prefix + name, prefix
	default:
		return cls + "." + name, prefix
	}
}

// objectID returns the id Sphinx's make_id gives an indexed object that
// wants id: id itself when free, else serial and the next number of its
// own counter (from 0) that is free. It records the id.
func (c *converter) objectID(id, serial string) string {
	for id == "" || c.ids[id] {
		id = serial + itoa(c.serial[serial])
		c.serial[serial]++
	}
	c.ids[id] = true
	return id
}

// anchorNoindex gives the headings of :noindex: object descriptions, which
// have no id on the site, their anchors once every id of the document is
// known: the id the object would have had if no id of the document (nor
// an automatic "idN", which may name what the reader does not count) has
// it, else "noindex-N". None of the document's ids moves for them.
func (c *converter) anchorNoindex() {
	n := 0
	for i := range c.w.late {
		a := &c.w.late[i]
		id := a.id
		if id == "" || c.ids[id] || isAutoID(id) {
			for {
				n++
				if id = "noindex-" + itoa(n); !c.ids[id] {
					break
				}
			}
		}
		c.ids[id] = true
		a.id = id
	}
}

// isAutoID reports whether id has the form of docutils' automatic ids
// ("id" and digits).
func isAutoID(id string) bool {
	d, ok := strings.CutPrefix(id, "id")
	return ok && d != "" && strings.Trim(d, "0123456789") == ""
}
