package asciidoc

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// builtinAttributes are the character replacement attributes Asciidoctor
// defines in every document: its INTRINSIC_ATTRIBUTES (2.0.18), each
// as the text it renders ("&#43;" as "+"); and sectids, set by default
// (DEFAULT_ATTRIBUTES), which a document unsets to have sections
// without generated ids.
var builtinAttributes = map[string]string{
	"blank": "", "empty": "", "sp": " ", "nbsp": "\u00a0", "zwsp": "\u200b", "wj": "\u2060",
	"apos": "'", "quot": `"`, "lsquo": "\u2018", "rsquo": "\u2019",
	"ldquo": "\u201c", "rdquo": "\u201d", "deg": "\u00b0", "plus": "+",
	"brvbar": "\u00a6", "vbar": "|", "amp": "&", "lt": "<", "gt": ">",
	"startsb": "[", "endsb": "]", "caret": "^", "asterisk": "*",
	"tilde": "~", "backslash": `\`, "backtick": "`", "two-colons": "::",
	"two-semicolons": ";;", "cpp": "C++", "pp": "++",
	"sectids": "",
}

// attributes are a document's attributes at one point of the document.
type attributes struct {
	vals map[string]string
	// locked are the names the Antora component sets hard: entries in the
	// page do not change them.
	locked map[string]bool
}

func newAttributes() *attributes {
	return &attributes{vals: maps.Clone(builtinAttributes), locked: map[string]bool{}}
}

func (a *attributes) clone() *attributes {
	return &attributes{vals: maps.Clone(a.vals), locked: a.locked}
}

func (a *attributes) defined(name string) bool {
	_, ok := a.vals[strings.ToLower(strings.TrimSpace(name))]
	return ok
}

func (a *attributes) get(name string) (string, bool) {
	v, ok := a.vals[strings.ToLower(name)]
	return v, ok
}

// setEntry applies an attribute entry of the document.
func (a *attributes) setEntry(name, value string, unset bool) {
	name = strings.ToLower(name)
	if a.locked[name] {
		return
	}
	if unset {
		delete(a.vals, name)
		return
	}
	a.vals[name] = a.substitute(value)
}

// substitute replaces {name} references to defined attributes; undefined
// ones and escaped ones (\{name}) are left as written (the escape
// removed).
func (a *attributes) substitute(s string) string {
	if strings.IndexByte(s, '{') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		k := j + 1
		for k < len(s) && isAttrNameByte(s[k]) {
			k++
		}
		if k == j+1 || k >= len(s) || s[k] != '}' {
			b.WriteString(s[i : j+1])
			i = j + 1
			continue
		}
		if j > 0 && s[j-1] == '\\' {
			b.WriteString(s[i : j-1])
			b.WriteString(s[j : k+1])
			i = k + 1
			continue
		}
		b.WriteString(s[i:j])
		if v, ok := a.get(s[j+1 : k]); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[j : k+1])
		}
		i = k + 1
	}
	return b.String()
}

func isAttrNameByte(c byte) bool {
	return isWordByte(c) || c == '-'
}

// attributeEntry reads a ":name: value" line (":name!:" and ":!name:"
// unset). A value continued with " \" on following lines is not joined:
// its first line is the value.
func attributeEntry(t string) (name, value string, unset, ok bool) {
	if len(t) < 3 || t[0] != ':' {
		return "", "", false, false
	}
	i := strings.IndexByte(t[1:], ':')
	if i < 1 {
		return "", "", false, false
	}
	name = t[1 : i+1]
	if strings.HasPrefix(name, "!") {
		name, unset = name[1:], true
	} else if strings.HasSuffix(name, "!") {
		name, unset = name[:len(name)-1], true
	}
	if name == "" || !isWordByte(name[0]) {
		return "", "", false, false
	}
	// Asciidoctor allows any character but ':' after the first.
	name = strings.TrimSpace(name)
	rest := t[i+2:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false, false
	}
	value = strings.TrimSpace(rest)
	value = strings.TrimSuffix(value, " \\")
	return name, value, unset, true
}

// component is the Antora component a file belongs to.
type component struct {
	dir    string // repository path of the directory holding antora.yml
	name   string
	module string // the file's module
}

// antoraDescriptor is the part of antora.yml the reader uses.
type antoraDescriptor struct {
	Name     string `yaml:"name"`
	Title    string `yaml:"title"`
	Version  any    `yaml:"version"`
	AsciiDoc struct {
		Attributes map[string]any `yaml:"attributes"`
	} `yaml:"asciidoc"`
}

// findComponent walks up from a file's directory to the nearest
// antora.yml and reads it. A file not under <component>/modules/<module>/
// belongs to no component. Errors reading the descriptor are returned;
// a missing one is not an error.
func findComponent(repo fs.FS, p string, attrs *attributes) (*component, error) {
	if repo == nil {
		return nil, nil
	}
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		desc := path.Join(dir, "antora.yml")
		b, err := fs.ReadFile(repo, desc)
		if err == nil {
			rel := strings.TrimPrefix(p, dir+"/")
			if dir == "." {
				rel = p
			}
			parts := strings.Split(rel, "/")
			if len(parts) < 3 || parts[0] != "modules" {
				return nil, nil
			}
			var d antoraDescriptor
			if err := yaml.Unmarshal(b, &d); err != nil {
				return nil, fmt.Errorf("read %s: %w", desc, err)
			}
			// The attributes Antora sets on every page.
			version := ""
			if d.Version != nil && d.Version != false {
				version = fmt.Sprint(d.Version)
			}
			for k, v := range map[string]string{
				"env": "site", "env-site": "", "site-gen": "antora", "site-gen-antora": "",
				"page-component-name": d.Name, "page-component-title": firstNonEmpty(d.Title, d.Name),
				"page-component-version": version, "page-version": version,
				"page-module": parts[1], "page-relative-src-path": path.Join(parts[3:]...),
			} {
				attrs.vals[k] = v
			}
			for k, v := range d.AsciiDoc.Attributes {
				setComponentAttribute(attrs, k, v)
			}
			return &component{dir: dir, name: d.Name, module: parts[1]}, nil
		}
		if dir == "." || dir == "/" || dir == "" {
			return nil, nil
		}
	}
}

// setComponentAttribute applies one of antora.yml's asciidoc.attributes:
// a string ending in "@" is soft (pages may change it), false or null
// unsets, anything else is set hard.
func setComponentAttribute(a *attributes, name string, v any) {
	name = strings.ToLower(name)
	var s string
	switch v := v.(type) {
	case nil:
		delete(a.vals, name)
		a.locked[name] = true
		return
	case bool:
		if !v {
			delete(a.vals, name)
			a.locked[name] = true
			return
		}
	case string:
		s = v
	default:
		s = fmt.Sprint(v)
	}
	soft := strings.HasSuffix(s, "@")
	if soft {
		s = strings.TrimSuffix(s, "@")
	}
	a.vals[name] = a.substitute(s)
	if !soft {
		a.locked[name] = true
	}
}
