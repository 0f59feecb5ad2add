package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/codex7/codex7/internal/editdist"
)

// tree is the YAML tree of a config file, indexed so that the problems a
// strict decode reports by line alone can be told by field path, with the
// messages users are shown: the valid keys, a "did you mean", the shape a
// value should have. It also neutralizes each node at fault, so that a
// lenient decode of the tree keeps every list item at its position.
type tree struct {
	// lines maps field paths ("libraries[0].versions[1].ref") to lines.
	lines map[string]int
	// sites holds the nodes where the config expects a key or a value, by
	// line, in document order (the order the decoder reports them in).
	sites map[int][]*site
	// next holds, by line, the index in sites after the site claim last
	// returned, where its next search starts.
	next map[int]int
	// unknown holds the sites of keys the config does not have.
	unknown []*site
	errs    []*Error
}

// site is a node where the config expects a value of type want, or, if key
// is set, a key of the struct type want.
type site struct {
	n    *yaml.Node
	in   *yaml.Node // the mapping or list holding n
	path string     // of the value; for a key, of its mapping
	want reflect.Type
	key  bool
	// claimed is set once a decode error is matched to the site.
	claimed bool
}

// newTree indexes the tree under root, a mapping decoded into a Config. It
// reports what the decoder would pass over silently: a list item or a value
// left empty where a mapping is expected, and empty keys. It drops empty
// items of lists of strings, as the decoder does, so that the recorded lines
// of the items after them stay right.
func newTree(root *yaml.Node) *tree {
	t := &tree{lines: map[string]int{}, sites: map[int][]*site{}, next: map[int]int{}}
	t.index(root, nil, reflect.TypeFor[Config](), "")
	return t
}

func (t *tree) index(n, in *yaml.Node, want reflect.Type, path string) {
	t.add(&site{n: n, in: in, path: path, want: want})
	switch want.Kind() {
	case reflect.Struct:
		if isNull(n) {
			t.errorf(n, path, "%s", shapeMsg(n, want))
			t.neutralize(n, want)
			return
		}
		if n.Kind != yaml.MappingNode {
			return
		}
		_, fields := yamlFields(want)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ks := &site{n: k, in: n, path: path, want: want, key: true}
			t.add(ks)
			if isNull(k) { // the decoder skips a key left empty
				t.unknownKey(ks)
				continue
			}
			p := joinPath(path, k.Value)
			ft, ok := fields[k.Value]
			if !ok && k.Kind == yaml.ScalarNode {
				t.unknown = append(t.unknown, ks)
			}
			if _, dup := t.lines[p]; !ok || dup || k.Kind != yaml.ScalarNode {
				continue
			}
			t.lines[p] = k.Line
			t.index(v, n, ft, p)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		if want.Elem().Kind() == reflect.String {
			items := n.Content[:0]
			for _, c := range n.Content {
				if !isNull(c) {
					items = append(items, c)
				}
			}
			n.Content = items
		}
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			t.lines[p] = c.Line
			t.index(c, n, want.Elem(), p)
		}
	}
}

func (t *tree) add(s *site) { t.sites[s.n.Line] = append(t.sites[s.n.Line], s) }

func (t *tree) errorf(n *yaml.Node, field, format string, args ...any) {
	t.errs = append(t.errs, &Error{Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// claim returns the first unclaimed site on line that match accepts, and
// claims it; nil if there is none. The decoder reports problems in
// document order, so the search starts after the site claim last returned
// on the line, and wraps around: a line holding a whole flow-style (or
// JSON) config is searched through once, not once per problem.
func (t *tree) claim(line int, match func(*site) bool) *site {
	sites := t.sites[line]
	from := t.next[line]
	for k := range len(sites) {
		i := (from + k) % len(sites)
		if s := sites[i]; !s.claimed && match(s) {
			s.claimed = true
			t.next[line] = i + 1
			return s
		}
	}
	return nil
}

// The problems go.yaml.in/yaml/v3 reports in a *yaml.TypeError, one per
// string; the decoder names the line of the key or value at fault, and the
// Go type it was decoding into.
var (
	unknownRE   = regexp.MustCompile(`(?s)^line (\d+): field (.*) not found in type (\S+)$`)
	duplicateRE = regexp.MustCompile(`(?s)^line (\d+): mapping key (".*") already defined at line (\d+)$`)
	shapeRE     = regexp.MustCompile(`(?s)^line (\d+): cannot unmarshal (\S+).* into (\S+)$`)
)

// decodeError adds the problems of err, an error of decoding the tree, to
// t.errs, and neutralizes their nodes. A problem that cannot be matched to
// a node is reported with its line and no field.
func (t *tree) decodeError(err error) {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		t.errs = append(t.errs, syntaxError(err, nil))
		return
	}
	for _, msg := range te.Errors {
		if !t.match(msg) {
			t.unmatched(msg)
		}
	}
}

// match reports the problem msg at its site, if it finds it.
func (t *tree) match(msg string) bool {
	if m := unknownRE.FindStringSubmatch(msg); m != nil {
		line, name, typ := atoi(m[1]), m[2], m[3]
		s := t.claim(line, func(s *site) bool { return s.key && s.n.Value == name && s.want.String() == typ })
		if s != nil {
			t.unknownKey(s)
		}
		return s != nil
	}
	if m := duplicateRE.FindStringSubmatch(msg); m != nil {
		line, first := atoi(m[1]), atoi(m[3])
		name, err := strconv.Unquote(m[2])
		if err != nil {
			return false
		}
		s := t.claim(line, func(s *site) bool { return s.key && s.n.Value == name })
		if s == nil {
			// A key given three times or more is reported once per pair
			// of its occurrences: the key on this line has had its
			// message (as a duplicate, or as an unknown key). It goes too,
			// so that the lenient decode reads the mapping.
			i := slices.IndexFunc(t.sites[line], func(s *site) bool { return s.key && s.claimed && s.n.Value == name })
			if i < 0 {
				return false
			}
			removeKey(t.sites[line][i].in, t.sites[line][i].n)
			return true
		}
		t.errorf(s.n, joinPath(s.path, name), "key %q appears twice %s (first at line %d); keep one", name, where(s.path), first)
		// The decoder skips a mapping with a key twice: the lenient decode
		// sees it without the key, but the unknown keys in it are ours to
		// report.
		removeKey(s.in, s.n)
		for _, u := range t.unknown {
			if !u.claimed && (u.path == s.path || strings.HasPrefix(u.path, s.path+".") || strings.HasPrefix(u.path, s.path+"[")) {
				t.unknownKey(u)
			}
		}
		return true
	}
	if m := shapeRE.FindStringSubmatch(msg); m != nil {
		line, tag, typ := atoi(m[1]), m[2], m[3]
		s := t.claim(line, func(s *site) bool {
			return s.n.ShortTag() == tag && (s.key && typ == "string" || !s.key && s.want.String() == typ)
		})
		switch {
		case s == nil:
			return false
		case s.key:
			names, _ := yamlFields(s.want)
			t.errorf(s.n, s.path, "keys must be plain names %s; valid keys: %s", where(s.path), strings.Join(names, ", "))
			removeKey(s.in, s.n)
		case s.want.Kind() == reflect.Slice && s.n.Kind == yaml.MappingNode && len(s.n.Content) == 0:
			// "topics: {}" (as in the design's example) means none.
			t.neutralize(s.n, s.want)
		default:
			t.errorf(s.n, s.path, "%s", shapeMsg(s.n, s.want))
			t.neutralize(s.n, s.want)
		}
		return true
	}
	return false
}

// unmatched reports a decode problem that names no node the tree knows,
// with its line. Values may hold secrets: yaml quotes them in backticks.
func (t *tree) unmatched(msg string) {
	e := &Error{Msg: msg}
	if m := lineRE.FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
		e.Line = atoi(msg[m[2]:m[3]])
		e.Msg = msg[m[1]:]
	}
	e.Msg = "cannot read value: " + quotedRE.ReplaceAllString(e.Msg, "the value")
	t.errs = append(t.errs, e)
}

// neutralize replaces n, in place, by an empty value that decodes into
// want without error: an empty list, mapping or string.
func (t *tree) neutralize(n *yaml.Node, want reflect.Type) {
	kind, tag := yaml.ScalarNode, "!!str"
	switch want.Kind() {
	case reflect.Slice:
		kind, tag = yaml.SequenceNode, "!!seq"
	case reflect.Struct:
		kind, tag = yaml.MappingNode, "!!map"
	}
	*n = yaml.Node{Kind: kind, Tag: tag, Style: yaml.FlowStyle, Line: n.Line, Column: n.Column}
}

// removeKey removes key k and its value from mapping m.
func removeKey(m, k *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] == k {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// shapeMsg says that n is not of the shape of want and how to write it.
func shapeMsg(n *yaml.Node, want reflect.Type) string {
	switch want.Kind() {
	case reflect.Slice:
		example := ""
		if want.Elem().Kind() == reflect.String && n.Kind == yaml.ScalarNode {
			example = fmt.Sprintf(`, e.g. ["%s"]`, strings.ReplaceAll(n.Value, `"`, `\"`))
		}
		return fmt.Sprintf("must be a list, not %s; write each item on its own line after \"- \"%s", kindName(n), example)
	case reflect.Struct:
		hint := ""
		switch {
		case want == reflect.TypeFor[Library]():
			hint = "; each library needs at least id: and repo:"
		case want == reflect.TypeFor[Version]() && n.Kind == yaml.ScalarNode:
			hint = fmt.Sprintf("; write {ref: %s}", flowValue(n.Value))
		case want == reflect.TypeFor[TopicOverride]() && n.Kind == yaml.ScalarNode:
			hint = fmt.Sprintf("; write {name: %s, paths: [...]}", flowValue(n.Value))
		}
		return fmt.Sprintf("must be a mapping of keys to values, not %s%s", kindName(n), hint)
	}
	return fmt.Sprintf("must be a single value, not %s; quote it if it contains \": \" or starts with [ or {", kindName(n))
}

// flowValue writes v as a YAML flow scalar: plain when it can be, else
// double-quoted.
func flowValue(v string) string {
	if v != "" && !strings.ContainsAny(v, ":{}[],&*#?|<>=!%@`'\"\\") && strings.TrimSpace(v) == v && !strings.HasPrefix(v, "-") {
		return v
	}
	return strconv.Quote(v)
}

// unknownKey claims s, a key the config does not have, and reports it with
// the valid keys and the one it may be a typo of.
func (t *tree) unknownKey(s *site) {
	s.claimed = true
	key := s.n.Value
	names, _ := yamlFields(s.want)
	msg := fmt.Sprintf("unknown key %q %s; valid keys: %s", key, where(s.path), strings.Join(names, ", "))
	if c := closest(key, names); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	t.errorf(s.n, joinPath(s.path, key), "%s", msg)
}

// where names the mapping at path in a message.
func where(path string) string {
	if path == "" {
		return "at the top level"
	}
	return "in " + path
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case isNull(n):
		return "an empty value"
	case n.Kind == yaml.ScalarNode:
		return "a single value"
	}
	return "something else"
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// yamlFields returns the YAML keys of struct type t, in field order, and
// the type of the field of each key.
func yamlFields(t reflect.Type) (names []string, types map[string]reflect.Type) {
	types = map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
		types[name] = f.Type
	}
	return names, types
}

// closest returns the name nearest to s if it is a plausible typo or
// variant, else "".
func closest(s string, names []string) string {
	ls := strings.ToLower(s)
	best, bestD := "", len(s)+1
	for _, n := range names {
		if ls == n || (len(n) >= 3 && strings.HasPrefix(ls, n)) || (len(ls) >= 3 && strings.HasPrefix(n, ls)) {
			return n
		}
		if d := editdist.Distance(ls, n); d <= max(2, len(n)/3) && d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
