package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrInvalid is matched (errors.Is) by every *Error, so callers can tell a
// config the user must fix from an I/O failure.
var ErrInvalid = errors.New("invalid config")

// MaxFileSize is the largest config file Parse accepts, in bytes.
const MaxFileSize = 1 << 20

// Error is one problem in a config file: where it is and what to do about it.
type Error struct {
	// File is the config's name as given to Parse or Load; may be empty.
	File string
	// Line is 1-based; 0 when unknown (an empty file, a Config built in code).
	Line int
	// Field is the path of the offending value, e.g. "libraries[2].id";
	// empty for problems of the whole file.
	Field string
	// Msg says what is wrong and how to fix it.
	Msg string
}

// Error formats the problem as "codex7.yaml:12: libraries[2].id: msg".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// exampleConfig is the smallest useful config, shown when there is none.
const exampleConfig = `libraries: [{id: /org/project, repo: "https://github.com/org/project"}]`

// Load reads and validates the config file at path. On success File is path
// as given and Dir is the absolute directory holding it, against which
// callers resolve relative repo paths. Validation problems come back joined
// (errors.Join), each an *Error; I/O failures are returned wrapped as they are.
func Load(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config: load %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	cfg, err := Parse(f, path)
	if err != nil {
		return nil, err
	}
	cfg.Dir = filepath.Dir(abs)
	// Local repositories can be judged against the roots now that the
	// directory is known.
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Parse reads a config from r and validates it; name (the file name) is used
// in error messages and as Config.File. Dir is left empty. At most
// MaxFileSize bytes are read. All problems are reported together, sorted by
// line, as errors.Join of *Error; the returned config is nil on error.
func Parse(r io.Reader, name string) (*Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", name, err)
	}
	if len(data) > MaxFileSize {
		return nil, joinErrors([]*Error{{File: name,
			Msg: "file is larger than 1 MiB; a config lists libraries, not documents: split it or remove what is not a library"}})
	}
	return parse(data, name)
}

func parse(data []byte, name string) (*Config, error) {
	fail := func(errs ...*Error) (*Config, error) {
		for _, e := range errs {
			e.File = name
		}
		return nil, joinErrors(errs)
	}
	noLibraries := func(line int) *Error {
		return &Error{Line: line, Field: "libraries",
			Msg: "no libraries to index; add a libraries: list, for example: " + exampleConfig}
	}

	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fail(noLibraries(0))
		}
		return fail(syntaxError(err, data))
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return fail(&Error{Line: extra.Line,
			Msg: `only one YAML document is allowed; remove the "---" separator and put every library under the one libraries: list`})
	case !errors.Is(err, io.EOF):
		return fail(syntaxError(err, data))
	}

	if e := tooDeep(&doc, "", 0); e != nil {
		return fail(e)
	}
	if errs := findUnsupported(&doc, "", nil); len(errs) > 0 {
		return fail(errs...)
	}
	if errs := crowded(&doc); len(errs) > 0 {
		return fail(errs...)
	}
	if len(doc.Content) == 0 {
		return fail(noLibraries(0))
	}
	root := doc.Content[0]
	if isNull(root) {
		return fail(noLibraries(root.Line))
	}
	if root.Kind != yaml.MappingNode {
		return fail(&Error{Line: root.Line,
			Msg: "the file must be a mapping with a libraries: list, for example: " + exampleConfig})
	}

	// The strict decode finds unknown keys, duplicate keys and values of
	// the wrong shape; the tree turns each of its line-numbered messages
	// into an *Error naming the field, and neutralizes the node at fault.
	t := newTree(root)
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(new(Config)); err != nil {
		t.decodeError(err)
	}
	// Decoding the neutralized tree (leniently: unknown keys were reported
	// above) keeps every list item at its position, so that validation can
	// report the other problems in the same run with the right fields. Its
	// errors are those of mappings the strict decode skipped for a key
	// given twice.
	cfg := &Config{File: name, lines: t.lines}
	if err := doc.Decode(cfg); err != nil {
		t.decodeError(err)
	}
	for i := range cfg.Libraries {
		cfg.Libraries[i].Line = t.lines[fmt.Sprintf("libraries[%d]", i)]
	}
	cfg.slashGlobs()

	errs := t.errs
	reported := map[string]bool{}
	for _, e := range t.errs {
		reported[e.Field] = true
	}
	// A problem with no field is one of the whole file: the decoded config
	// may then be too far from the file for validation to name fields.
	if !reported[""] {
		for _, e := range cfg.problems() {
			if !covered(reported, e.Field) {
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return fail(errs...)
	}
	return cfg, nil
}

// covered reports whether a problem at field, or at a value containing it
// ("libraries[0]" contains "libraries[0].id"), is among the reported fields.
func covered(reported map[string]bool, field string) bool {
	for {
		if reported[field] {
			return true
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			return false
		}
		field = field[:i]
	}
}

// slashGlobs rewrites every glob of the config (docs, exclude, topics'
// paths) with slashGlob, before validation, so that a glob written with
// Windows separators is checked and matched as its slash form.
func (c *Config) slashGlobs() {
	for i := range c.Libraries {
		l := &c.Libraries[i]
		for j := range l.Docs {
			l.Docs[j] = slashGlob(l.Docs[j])
		}
		for j := range l.Exclude {
			l.Exclude[j] = slashGlob(l.Exclude[j])
		}
		for j := range l.Topics {
			for k := range l.Topics[j].Paths {
				l.Topics[j].Paths[k] = slashGlob(l.Topics[j].Paths[k])
			}
		}
	}
}

// slashGlob returns g with the backslashes a Windows user types as path
// separators turned into slashes. In doublestar syntax a backslash
// escapes the next character, so only backslashes that cannot be meant
// as escapes are turned: all of them in a glob without a slash
// ("docs\**\*.md" → "docs/**/*.md"), and in a glob with slashes those
// before a character a glob gives no meaning to, which escaping would
// leave as it is ("docs/api\guide.md" → "docs/api/guide.md"), or at the
// end. "docs/\[draft\].md" keeps its escapes. slashGlob(slashGlob(g)) is
// slashGlob(g).
func slashGlob(g string) string {
	if !strings.Contains(g, `\`) {
		return g
	}
	if !strings.Contains(g, "/") {
		return strings.ReplaceAll(g, `\`, "/")
	}
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch {
		case g[i] != '\\':
			b.WriteByte(g[i])
		case i+1 < len(g) && strings.IndexByte(globMeta, g[i+1]) >= 0:
			b.WriteString(g[i : i+2]) // an escape, kept with what it escapes
			i++
		default:
			b.WriteByte('/')
		}
	}
	return b.String()
}

// globMeta holds the characters that have a meaning in doublestar syntax,
// in or out of brackets and braces: a backslash before one of them is an
// escape.
const globMeta = `*?[]{},\!^-`

// maxProblems caps the problems reported for one file; past it, the last
// one says how many more there are.
const maxProblems = 100

// joinErrors sorts errs by line (stable) and joins them; nil if there are none.
func joinErrors(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	if n := len(errs); n > maxProblems {
		errs = append(errs[:maxProblems-1:maxProblems-1], &Error{File: errs[0].File,
			Msg: fmt.Sprintf("%d more problems not shown; fix the ones above first", n-maxProblems+1)})
	}
	list := make([]error, len(errs))
	for i, e := range errs {
		list[i] = e
	}
	return errors.Join(list...)
}

var (
	lineRE   = regexp.MustCompile(`line (\d+): (?:column \d+: )?`)
	quotedRE = regexp.MustCompile("`[^`]*`")
)

// syntaxError turns a YAML parser error on data into an *Error.
func syntaxError(err error, data []byte) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{}
	if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
		e.Line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	if strings.Contains(msg, "tab character") {
		// The parser names the line of the value before the tab: point
		// at the tab's own line.
		if line := tabLine(data, e.Line); line > 0 {
			e.Line = line
		}
		e.Msg = "invalid YAML: a tab in the indentation; YAML indents with spaces only"
		return e
	}
	if strings.HasPrefix(msg, "did not find expected") && data != nil {
		e.Line = problemLine(data, e.Line, msg)
	}
	if strings.HasPrefix(msg, "exceeded max depth") {
		// The parser stops at 10,000 levels, before tooDeep can look.
		e.Msg = tooDeepMsg
		return e
	}
	e.Msg = "invalid YAML: " + quotedRE.ReplaceAllString(msg, "the value") + " (check indentation, quoting and that lists use \"- \")"
	return e
}

// problemLine returns the line (1-based) of a block-structure error
// ("did not find expected key", "... '-' indicator"), which the parser
// reports at the line before the collection it was reading (its context,
// counted from 0): for a library of a long list, the line above the
// list. The error is on the last line of the shortest prefix of data
// that fails with the same message, found by bisection from that line:
// a broken block stays broken as lines are added. It returns from when
// the search finds nothing better.
func problemLine(data []byte, from int, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool {
		var v any
		err := yaml.Unmarshal(bytes.Join(lines[:n], nil), &v)
		if err == nil {
			return false
		}
		m := strings.TrimPrefix(err.Error(), "yaml: ")
		if i := lineRE.FindStringIndex(m); i != nil {
			m = m[:i[0]] + m[i[1]:]
		}
		return m == msg
	}
	lo, hi := max(from, 1), len(lines) // fails(hi); the answer is in [lo, hi]
	if lo > hi || !fails(hi) {
		return from
	}
	for lo < hi {
		if mid := lo + (hi-lo)/2; fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

// tabLine returns the number of the first line at or after from (1-based)
// whose indentation holds a tab, or 0.
func tabLine(data []byte, from int) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i+1 < from {
			continue
		}
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return i + 1
		}
	}
	return 0
}

// maxNesting is the most lists and mappings a value may sit in. A valid
// config uses 6 (the top-level mapping, libraries, a library, its topics,
// a topic, its paths); deeper files are mistakes or attacks.
const maxNesting = 16

// tooDeepMsg says why a file nested too deeply is refused.
var tooDeepMsg = fmt.Sprintf("lists and mappings are nested more than %d levels deep; a codex7.yaml needs at most 6 "+
	"(libraries, a library, its topics, a topic, its paths): check the brackets and the indentation", maxNesting)

// tooDeep returns an *Error for the first list or mapping of the tree
// nested in maxNesting others, or nil. The YAML parser allows 10,000
// levels; refusing past maxNesting keeps every later walk shallow and the
// message about the real problem.
func tooDeep(n *yaml.Node, path string, depth int) *Error {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		if depth == maxNesting {
			return &Error{Line: n.Line, Field: path, Msg: tooDeepMsg}
		}
		depth++
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if e := tooDeep(n.Content[i+1], joinPath(path, n.Content[i].Value), depth); e != nil {
				return e
			}
			if e := tooDeep(n.Content[i], path, depth); e != nil {
				return e
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if e := tooDeep(c, fmt.Sprintf("%s[%d]", path, i), depth); e != nil {
				return e
			}
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if e := tooDeep(c, path, depth); e != nil {
				return e
			}
		}
	}
	return nil
}

// maxKeys is the most keys a mapping may hold. The largest mapping of a
// codex7.yaml, a library, has 12.
const maxKeys = 64

// crowded returns the problems of a file whose mappings the YAML decoder
// would take quadratic time over, or nil: the first mapping of more than
// maxKeys keys, or the keys that repeat an earlier key of their mapping
// when there are more than maxProblems of them. The decoder compares
// every key of a mapping with every other and reports each pair of equal
// keys, so that a 1 MiB file of one key repeated would take hours and
// gigabytes to refuse. Within these bounds its work stays linear in the
// file, and it reports the duplicates, with the file's other problems.
func crowded(doc *yaml.Node) []*Error {
	var big *Error
	var dups []*Error
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if big != nil || len(dups) > maxProblems {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			if keys := len(n.Content) / 2; keys > maxKeys {
				big = &Error{Line: n.Line, Field: path,
					Msg: fmt.Sprintf("a mapping of %d keys %s; a codex7.yaml mapping has at most 12 (a library's): check the indentation, and that each library starts with \"- \"", keys, where(path))}
				return
			}
			// The decoder's rule: keys of one kind and value are equal.
			type key struct {
				kind  yaml.Kind
				value string
			}
			first := map[key]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if line, dup := first[key{k.Kind, k.Value}]; dup {
					dups = append(dups, &Error{Line: k.Line, Field: joinPath(path, k.Value),
						Msg: fmt.Sprintf("key %q appears twice %s (first at line %d); keep one", k.Value, where(path), line)})
				} else {
					first[key{k.Kind, k.Value}] = k.Line
				}
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i], path)
				walk(n.Content[i+1], joinPath(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		}
	}
	walk(doc, "")
	switch {
	case big != nil:
		return []*Error{big}
	case len(dups) > maxProblems:
		// Past maxProblems the count is unknown: say so without one.
		return append(dups[:maxProblems-1], &Error{Line: dups[maxProblems-1].Line,
			Msg: "more keys appear twice from here on; keep one of each, and fix the ones above first"})
	}
	return nil
}

// findUnsupported reports every anchor, alias, merge key and explicit tag in
// the tree, at most 10: the config has no use for them, refusing aliases
// before decoding rules out alias bombs, and refusing tags keeps values
// plain text.
func findUnsupported(n *yaml.Node, path string, errs []*Error) []*Error {
	if len(errs) >= 10 {
		return errs
	}
	const fix = "; YAML anchors and aliases are not supported in codex7.yaml, write the values out in full"
	switch {
	case n.Kind == yaml.AliasNode:
		return append(errs, &Error{Line: n.Line, Field: path,
			Msg: fmt.Sprintf("alias *%s%s", n.Value, fix)})
	case n.Anchor != "":
		errs = append(errs, &Error{Line: n.Line, Field: path,
			Msg: fmt.Sprintf("anchor &%s%s", n.Anchor, fix)})
	case n.Style&yaml.TaggedStyle != 0:
		errs = append(errs, &Error{Line: n.Line, Field: path,
			Msg: fmt.Sprintf("YAML tag %s is not supported in codex7.yaml; remove it, and quote the value if it should stay text", n.Tag)})
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.ShortTag() == "!!merge" && v.Kind != yaml.AliasNode && len(errs) < 10 {
				// The decoder would merge the mapping in silently.
				errs = append(errs, &Error{Line: k.Line, Field: joinPath(path, k.Value),
					Msg: "merge key <<; YAML merge keys are not supported in codex7.yaml, write the keys out in full"})
			}
			errs = findUnsupported(k, path, errs)
			errs = findUnsupported(v, joinPath(path, k.Value), errs)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			errs = findUnsupported(c, fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			errs = findUnsupported(c, path, errs)
		}
	}
	return errs
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
