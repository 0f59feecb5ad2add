package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

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
	if len(doc.Content) == 0 {
		return fail(noLibraries(0))
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return fail(noLibraries(root.Line))
	}
	if root.Kind != yaml.MappingNode {
		return fail(&Error{Line: root.Line,
			Msg: "the file must be a mapping with a libraries: list, for example: " + exampleConfig})
	}

	w := &walker{lines: map[string]int{}, byLine: map[int]string{}}
	w.walk(root, reflect.TypeFor[Config](), "")

	cfg := &Config{File: name, lines: w.lines}
	if len(w.errs) == 0 {
		src := data
		if w.normalized {
			var err error
			if src, err = yaml.Marshal(&doc); err != nil {
				return fail(&Error{Msg: "cannot re-encode the config: " + err.Error()})
			}
		}
		dec := yaml.NewDecoder(bytes.NewReader(src))
		dec.KnownFields(true)
		if err := dec.Decode(cfg); err != nil {
			// The walker has checked keys, shapes and tags, so this is a
			// backstop that should not fire.
			return fail(w.decodeErrors(err)...)
		}
	} else {
		// Best effort, so that validation can report the other problems in the
		// same run; what cannot be decoded is already reported by the walker.
		fill(root, reflect.ValueOf(cfg).Elem())
	}
	for i := range cfg.Libraries {
		cfg.Libraries[i].Line = w.lines[fmt.Sprintf("libraries[%d]", i)]
	}
	cfg.slashGlobs()

	errs := w.errs
	rootBroken := false
	for _, e := range w.errs {
		rootBroken = rootBroken || e.Field == ""
	}
	if !rootBroken {
		for _, e := range cfg.problems() {
			if !w.covers(e.Field) {
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return fail(errs...)
	}
	return cfg, nil
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
	if strings.HasPrefix(msg, "exceeded max depth") {
		// The parser stops at 10,000 levels, before tooDeep can look.
		e.Msg = tooDeepMsg
		return e
	}
	e.Msg = "invalid YAML: " + quotedRE.ReplaceAllString(msg, "the value") + " (check indentation, quoting and that lists use \"- \")"
	return e
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

// findUnsupported reports every anchor, alias and explicit tag in the tree, at
// most 10: the config has no use for them, refusing aliases before decoding
// rules out alias bombs, and refusing tags keeps values plain text.
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

// walker checks the YAML tree against the Go types before decoding: unknown
// and duplicate keys, and values of the wrong shape, each with its line and
// field path. It records the line of every field for later validation.
type walker struct {
	errs []*Error
	// lines maps field paths ("libraries[0].versions[1].ref") to lines.
	lines map[string]int
	// byLine maps a line to the deepest field path on it.
	byLine map[int]string
	// normalized is set when the tree was changed (an empty mapping taken
	// as an empty list), so decoding must use the re-encoded tree.
	normalized bool
	// reported holds the fields of errs, built by covers.
	reported map[string]bool
}

func (w *walker) errorf(n *yaml.Node, field, format string, args ...any) {
	w.errs = append(w.errs, &Error{Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (w *walker) record(path string, line int) {
	w.lines[path] = line
	if old, ok := w.byLine[line]; !ok || len(path) > len(old) {
		w.byLine[line] = path
	}
}

// covers reports whether the walker already reported a problem at field or
// at a value containing it ("libraries[0]" covers "libraries[0].id").
func (w *walker) covers(field string) bool {
	if w.reported == nil {
		w.reported = map[string]bool{}
		for _, e := range w.errs {
			w.reported[e.Field] = true
		}
	}
	for {
		if w.reported[field] {
			return true
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			return false
		}
		field = field[:i]
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	}
	return "something else"
}

type structFields struct {
	names []string
	index map[string]int
}

// fieldCache maps a reflect.Type to its structFields.
var fieldCache sync.Map

// yamlFields returns the YAML keys of struct type t, in field order, with
// their field indexes. The results are shared: do not modify them.
func yamlFields(t reflect.Type) (names []string, index map[string]int) {
	if f, ok := fieldCache.Load(t); ok {
		sf := f.(structFields)
		return sf.names, sf.index
	}
	defer func() { fieldCache.Store(t, structFields{names, index}) }()
	index = map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
		index[name] = i
	}
	return names, index
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	switch t.Kind() {
	case reflect.Struct:
		w.walkStruct(n, t, path)
	case reflect.Slice:
		switch {
		case isNull(n):
		case n.Kind == yaml.MappingNode && len(n.Content) == 0:
			// "topics: {}" (as in the design's example) means none.
			n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
			w.normalized = true
		case n.Kind != yaml.SequenceNode:
			example := ""
			if t.Elem().Kind() == reflect.String {
				example = fmt.Sprintf(`, e.g. ["%s"]`, strings.ReplaceAll(n.Value, `"`, `\"`))
				if n.Kind != yaml.ScalarNode {
					example = ""
				}
			}
			w.errorf(n, path, "must be a list, not %s; write each item on its own line after \"- \"%s", kindName(n), example)
		default:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				w.record(p, c.Line)
				w.walk(c, t.Elem(), p)
			}
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			w.errorf(n, path, "must be a single value, not %s; quote it if it contains \": \" or starts with [ or {", kindName(n))
		}
	}
}

func (w *walker) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	where := "in " + path
	if path == "" {
		where = "at the top level"
	}
	if n.Kind != yaml.MappingNode {
		hint := ""
		if t == reflect.TypeFor[Library]() {
			hint = "; each library needs at least id: and repo:"
		}
		w.errorf(n, path, "must be a mapping of keys to values, not %s%s", kindName(n), hint)
		return
	}
	names, index := yamlFields(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			w.errorf(k, path, "keys must be plain names %s; valid keys: %s", where, strings.Join(names, ", "))
			continue
		}
		p := joinPath(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			w.errorf(k, p, "key %q appears twice %s (first at line %d); keep one", k.Value, where, first)
			continue
		}
		seen[k.Value] = k.Line
		fi, ok := index[k.Value]
		if !ok {
			msg := fmt.Sprintf("unknown key %q %s; valid keys: %s", k.Value, where, strings.Join(names, ", "))
			if s := closest(k.Value, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			w.errorf(k, p, "%s", msg)
			continue
		}
		w.record(p, k.Line)
		w.walk(v, t.Field(fi).Type, p)
	}
}

// fill decodes n into v as far as it has the expected shape, keeping list
// items at their positions (so field paths stay right) and the first of
// duplicate keys. It is used only when the walker found problems, and never
// fails: what does not fit is left zero.
func fill(n *yaml.Node, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		_, index := yamlFields(v.Type())
		done := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			fi, ok := index[k.Value]
			if k.Kind != yaml.ScalarNode || !ok || done[k.Value] {
				continue
			}
			done[k.Value] = true
			fill(n.Content[i+1], v.Field(fi))
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			fill(c, s.Index(i))
		}
		v.Set(s)
	case reflect.String:
		if n.Kind == yaml.ScalarNode && !isNull(n) {
			v.SetString(n.Value)
		}
	}
}

// decodeErrors maps the errors of a strict decode to *Error values.
func (w *walker) decodeErrors(err error) []*Error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []*Error{syntaxError(err, nil)}
	}
	var out []*Error
	for _, msg := range te.Errors {
		e := &Error{Msg: msg}
		if m := lineRE.FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
			e.Line, _ = strconv.Atoi(msg[m[2]:m[3]])
			e.Msg = msg[m[1]:]
			e.Field = w.byLine[e.Line]
		}
		// Values may hold secrets: yaml quotes them in backticks.
		e.Msg = "cannot read value: " + quotedRE.ReplaceAllString(e.Msg, "the value")
		out = append(out, e)
	}
	return out
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
		if d := editDistance(ls, n); d <= max(2, len(n)/3) && d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
