package markdown

import (
	"bytes"
)

// isESM reports whether line starts an MDX import or export statement. In
// MDX files any top-level import/export line does; in plain markdown only
// lines that clearly are ESM (import ... from '...', import '...', export
// const/function/default ...) do.
func (c *cleaner) isESM(line []byte) bool {
	var rest []byte
	switch {
	case bytes.HasPrefix(line, []byte("import")):
		rest = line[6:]
		if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '{' && rest[0] != '*' && rest[0] != '\'' && rest[0] != '"') {
			return false
		}
		if c.mdx {
			return true
		}
		r := bytes.TrimLeft(rest, " ")
		if len(r) > 0 && (r[0] == '\'' || r[0] == '"') {
			return true
		}
		if bytes.Contains(rest, []byte(" from '")) || bytes.Contains(rest, []byte(" from \"")) {
			return true
		}
		// A multi-line import: import {\n  a,\n} from 'x'.
		return bytes.Equal(bytes.TrimSpace(r), []byte("{"))
	case bytes.HasPrefix(line, []byte("export")):
		rest = line[6:]
		if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '{' && rest[0] != '*') {
			return false
		}
		if c.mdx {
			return true
		}
		r := bytes.TrimLeft(rest, " ")
		for _, kw := range []string{"const ", "let ", "var ", "function ", "function*", "default ", "class ", "async ", "{", "*"} {
			if bytes.HasPrefix(r, []byte(kw)) {
				return true
			}
		}
	}
	return false
}

// esmEnd returns the position of the '\n' that ends the ESM statement
// starting at p (or end): the first line end where brackets are balanced
// outside strings. A statement that never balances ends at its first line.
func (c *cleaner) esmEnd(p, end int) int {
	src := c.src
	limit := end
	if c.budget <= 0 {
		limit = min(end, p+256)
	}
	limit = min(limit, p+maxConstructLen)
	depth := 0
	for i := p; i < limit; i++ {
		switch ch := src[i]; ch {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case '\n':
			if depth == 0 {
				return i
			}
		case '/':
			if i+1 < limit && src[i+1] == '/' { // line comment
				for i+1 < limit && src[i+1] != '\n' {
					i++
				}
			}
		case '"', '\'', '`':
			j := quotedEnd(src, i, limit)
			if j >= limit {
				i = limit
				continue
			}
			if src[j] == '\n' {
				// An unterminated string: let the newline be seen.
				i = j - 1
				continue
			}
			i = j
		}
	}
	if limit == end && depth == 0 {
		return end
	}
	// Unbalanced: MDX drops the first line only, markdown keeps it.
	c.spend(limit - p)
	if !c.mdx {
		return p
	}
	return lineEnd(src[:end], p)
}
