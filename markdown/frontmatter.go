package markdown

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// frontMatter is the metadata Split reads from a file's front matter.
type frontMatter struct {
	title       string
	description string
	tags        []string
	order       int
}

// splitFrontMatter finds YAML (---) or TOML (+++) front matter at the start
// of src and returns the offset where the body starts (0 when there is
// none) and the fields it understood. A front matter that does not parse
// is still stripped; its fields are ignored.
func splitFrontMatter(src []byte) (int, frontMatter) {
	var fm frontMatter
	start := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	e := lineEnd(src, start)
	first := string(bytes.TrimRight(src[start:e], " \t\r"))
	if first != "---" && first != "+++" || e >= len(src) {
		return start, fm
	}
	toml := first == "+++"
	contentStart := e + 1
	for i := contentStart; i < len(src); {
		le := lineEnd(src, i)
		l := string(bytes.TrimRight(src[i:le], " \t\r"))
		if l == first || (!toml && l == "...") {
			body := min(le+1, len(src))
			if toml {
				fm = parseTOML(src[contentStart:i])
			} else {
				fm = parseYAML(src[contentStart:i])
			}
			return body, fm
		}
		i = le + 1
	}
	return start, fm
}

// parseYAML reads front matter fields from YAML, ignoring anything it
// cannot parse.
func parseYAML(b []byte) (fm frontMatter) {
	defer func() {
		if recover() != nil {
			fm = frontMatter{}
		}
	}()
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil || m == nil {
		return frontMatter{}
	}
	return fieldsFromMap(m)
}

// fieldsFromMap extracts the fields Split uses from a decoded front matter.
func fieldsFromMap(m map[string]any) frontMatter {
	var fm frontMatter
	fm.title = scalarString(m["title"])
	for _, k := range []string{"description", "summary"} {
		if s := scalarString(m[k]); s != "" {
			fm.description = s
			break
		}
	}
	for _, k := range []string{"tags", "keywords"} {
		if t := stringList(m[k]); len(t) > 0 {
			fm.tags = t
			break
		}
	}
	for _, k := range []string{"sidebar_position", "weight", "order", "nav_order"} {
		if n, ok := toInt(m[k]); ok {
			fm.order = n
			break
		}
	}
	return fm
}

// scalarString returns a string, number or bool value as trimmed text and
// anything else as "".
func scalarString(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v)
	}
	return ""
}

// stringList reads a list of scalars or a comma-separated string.
func stringList(v any) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v := v.(type) {
	case string:
		for s := range strings.SplitSeq(v, ",") {
			add(s)
		}
	case []any:
		for _, e := range v {
			add(scalarString(e))
		}
	case []string:
		for _, e := range v {
			add(e)
		}
	}
	return out
}

// toInt converts an integer-valued number or numeric string to an int.
func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int(v), true
		}
	case uint64:
		if v <= math.MaxInt32 {
			return int(v), true
		}
	case float64:
		if !math.IsNaN(v) && v >= math.MinInt32 && v <= math.MaxInt32 {
			return int(v), true
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, true
		}
	}
	return 0, false
}

// parseTOML reads top-level key = value lines of a TOML front matter:
// strings, integers and arrays of strings on one line. Anything else is
// skipped.
func parseTOML(b []byte) frontMatter {
	m := map[string]any{}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		l := strings.TrimSpace(string(line))
		if strings.HasPrefix(l, "[") {
			break // a table: the top-level keys are over
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		v = strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(v, "["):
			var list []any
			for e := range strings.SplitSeq(strings.Trim(v, "[]"), ",") {
				if s, ok := tomlString(strings.TrimSpace(e)); ok {
					list = append(list, s)
				}
			}
			m[k] = list
		default:
			if s, ok := tomlString(v); ok {
				m[k] = s
			} else if n, err := strconv.Atoi(v); err == nil {
				m[k] = n
			}
		}
	}
	return fieldsFromMap(m)
}

// tomlString decodes a one-line TOML basic or literal string.
func tomlString(v string) (string, bool) {
	if len(v) < 2 {
		return "", false
	}
	switch v[0] {
	case '"':
		if i := strings.LastIndexByte(v, '"'); i > 0 {
			if s, err := strconv.Unquote(v[:i+1]); err == nil {
				return s, true
			}
			return v[1:i], true
		}
	case '\'':
		if i := strings.LastIndexByte(v, '\''); i > 0 {
			return v[1:i], true
		}
	}
	return "", false
}
