package markdown

import (
	"bytes"
	"cmp"
	"slices"
)

// goldmark's parser is quadratic on some hostile inputs that no real
// documentation contains: every container opened on a line rescans the
// rest of the line; every "](" rescans the line for a link destination;
// every backtick run, link title or raw HTML tag left open rescans the
// rest of its paragraph; every "]" closing a label walks the nodes since
// its "[" and reads the label by walking the paragraph's lines back from
// its end; every reference definition copies the paragraph's remaining
// lines. limitParse bounds each of these: it escapes the construct that
// would go past a limit with a backslash, so that goldmark reads it as
// text, drops indentation past a limit, and ends a paragraph that grew
// too long with a blank line. The text stays (the backslashes are read as
// escapes); only the structure of an absurd document flattens. The limits
// are far above what documentation uses: over the shared corpus of 43,000
// files, 3 container markers on one line, 28 columns of indentation, 66
// definitions in a row, 223 lines in a paragraph, and no edit at all.
const (
	// maxContainerDepth is the number of container markers (">", "-",
	// "*", "+", "1." or "1)") one line may open.
	maxContainerDepth = 32
	// maxContainerCols is the width in columns of a line's container
	// prefix (markers and indentation) past which indentation is dropped:
	// lists also nest by indentation alone.
	maxContainerCols = 128
	// maxParagraphLines is the number of lines a paragraph (a run of
	// non-blank lines outside fences and tables) may hold before a blank
	// line ends it.
	maxParagraphLines = 1000
	// maxDefRun is the number of consecutive lines starting like a
	// reference definition ("[label]:") that one paragraph may hold.
	maxDefRun = 256
	// maxOpenTitles, maxOpenCodeSpans and maxOpenHTML are the numbers of
	// link titles, backtick runs and raw HTML tags left open at the end of
	// their line that one paragraph may hold.
	maxOpenTitles    = 16
	maxOpenCodeSpans = 16
	maxOpenHTML      = 16
	// maxOpenBrackets is the number of link labels ("[" without its "]")
	// a paragraph may have open at once.
	maxOpenBrackets = 32
	// linkScanSlack is what a line may spend scanning for the ends of code
	// spans, link destinations and titles beyond twice its length.
	linkScanSlack = 4096
)

// limitParse returns body with the edits described above applied outside
// fenced code, the fences moved to match, and the offsets in the returned
// body of the newlines it inserted (to leave out when numbering lines).
// When nothing needs editing it returns its arguments and no offsets.
func limitParse(body []byte, fences []span) ([]byte, []span, []int) {
	l := &limiter{}
	fi := 0
	for p := 0; p < len(body); {
		e := lineEnd(body, p)
		for fi < len(fences) && fences[fi].end <= p {
			fi++
		}
		if fi < len(fences) && fences[fi].start <= p {
			l.endParagraph()
			p = fences[fi].end
			continue
		}
		l.line(body[p:e], p)
		p = e + 1
	}
	if len(l.edits) == 0 {
		return body, fences, nil
	}
	// A title may be found from several "](": keep one edit of a kind per
	// position. A newline goes before a backslash at the same position.
	slices.SortStableFunc(l.edits, func(a, b edit) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.kind, b.kind))
	})
	l.edits = slices.Compact(l.edits)
	out := make([]byte, 0, len(body)+len(l.edits))
	newFences := make([]span, len(fences))
	var inserted []int
	prev := 0
	delta := 0
	fj := 0
	for _, ed := range l.edits {
		// Fences before this edit move by the edits before it.
		for fj < len(fences) && fences[fj].start < ed.pos {
			newFences[fj] = span{fences[fj].start + delta, fences[fj].end + delta}
			fj++
		}
		out = append(out, body[prev:ed.pos]...)
		prev = ed.pos
		switch ed.kind {
		case editDrop:
			delta -= ed.drop
			prev += ed.drop
		case editNewline:
			inserted = append(inserted, len(out))
			out = append(out, '\n')
			delta++
		case editEscape:
			out = append(out, '\\')
			delta++
		}
	}
	for ; fj < len(fences); fj++ {
		newFences[fj] = span{fences[fj].start + delta, fences[fj].end + delta}
	}
	out = append(out, body[prev:]...)
	return out, newFences, inserted
}

// An edit changes the body at pos.
type edit struct {
	pos  int
	kind editKind
	drop int // bytes dropped, for editDrop
}

// editKind says what an edit does.
type editKind int

const (
	editNewline editKind = iota // insert a newline before body[pos]
	editEscape                  // insert a backslash before body[pos]
	editDrop                    // drop body[pos:pos+drop]
)

// limiter holds limitParse's state: the edits so far and what the current
// paragraph holds.
type limiter struct {
	edits []edit

	lines        int    // lines in the paragraph
	table        bool   // the rest of the paragraph is a table
	tablePrefix  []byte // the container prefix of the table's lines
	prev         []byte // the previous line's content, after its container prefix
	defRun       int    // consecutive definition-like lines
	openTitles   int
	openCode     int
	openHTML     int
	openBrackets int
}

// endParagraph resets what the current paragraph holds.
func (l *limiter) endParagraph() {
	edits := l.edits
	*l = limiter{edits: edits}
}

// line handles one line outside fences, b, which starts at off in the body.
func (l *limiter) line(b []byte, off int) {
	if len(bytes.TrimSpace(b)) == 0 {
		l.endParagraph()
		return
	}
	if l.lines++; l.lines > maxParagraphLines && !l.table && !isUnderline(b) {
		l.edits = append(l.edits, edit{pos: off, kind: editNewline})
		l.endParagraph()
		l.lines = 1
	}
	i := l.prefix(b, off)
	prefix := b[:i]
	i = skipBlanks(b, i)
	content := b[i:]
	if l.table && (!bytes.Equal(prefix, l.tablePrefix) || endsTable(content)) {
		// Another block interrupts the table: a new paragraph starts.
		l.endParagraph()
		l.lines = 1
	}
	if !l.table && l.lines >= 2 {
		if n := delimCells(content); n > 0 && n == rowCells(l.prev) {
			// goldmark parses each cell alone.
			l.table, l.tablePrefix = true, prefix
		}
	}
	l.prev = content
	defLike := len(content) > 0 && content[0] == '[' && bytes.Contains(content, []byte("]:"))
	if !defLike {
		l.defRun = 0
	} else if l.defRun++; l.defRun > maxDefRun {
		l.escape(off + i)
		l.defRun = 0
		defLike = false // now text: the paragraph holds no more definitions
	}
	if !l.table {
		l.inline(b, off, i, defLike)
	}
}

// isUnderline reports whether line holds only '=', '-', ':', '|', spaces
// and tabs: a setext underline or a table delimiter row, which must stay
// with the line before it.
func isUnderline(line []byte) bool {
	for _, c := range line {
		if c != '=' && c != '-' && c != ':' && c != '|' && c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// endsTable reports whether a line's content (after its container
// prefix) may start a block that interrupts a paragraph, and so a table:
// an ATX heading, an HTML block, a thematic break or a setext underline.
// It may say so of lines that do not: a table is then limited like a
// paragraph, which only costs its structure past maxParagraphLines.
func endsTable(content []byte) bool {
	if len(content) == 0 {
		return false
	}
	if content[0] == '#' || content[0] == '<' || isThematicBreak(content) {
		return true
	}
	t := bytes.TrimRight(content, " \t\r")
	return len(bytes.Trim(t, "=")) == 0 || len(bytes.Trim(t, "-")) == 0
}

// delimCells returns the number of cells of a table delimiter row as
// goldmark's table extension reads it ("|---|:-:|"), or 0. It asks for a
// pipe, which goldmark does not, so that a setext underline is never
// taken for one.
func delimCells(line []byte) int {
	if !isUnderline(line) || bytes.IndexByte(line, '=') >= 0 || bytes.IndexByte(line, '-') < 0 || bytes.IndexByte(line, '|') < 0 {
		return 0
	}
	cols := bytes.Split(line, []byte("|"))
	if len(bytes.TrimSpace(cols[0])) == 0 {
		cols = cols[1:]
	}
	if len(cols) > 0 && len(bytes.TrimSpace(cols[len(cols)-1])) == 0 {
		cols = cols[:len(cols)-1]
	}
	for _, c := range cols {
		c = bytes.TrimSpace(c)
		c = bytes.TrimPrefix(c, []byte(":"))
		c = bytes.TrimSuffix(c, []byte(":"))
		if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
			return 0
		}
	}
	return len(cols)
}

// rowCells returns the number of cells of a table header row as goldmark's
// table extension reads it: cells are separated by pipes not preceded by a
// backslash, and a leading and a trailing pipe are dropped.
func rowCells(line []byte) int {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '|' {
		line = line[1:]
	}
	if len(line) > 0 && line[len(line)-1] == '|' {
		line = line[:len(line)-1]
	}
	n := 0
	for pos := 0; pos < len(line); n++ {
		j := pos
		for j < len(line) && !(line[j] == '|' && (j == 0 || line[j-1] != '\\')) {
			j++
		}
		pos = j + 1
	}
	return n
}

// prefix bounds the container prefix of line b (at off) and returns where
// the prefix ends.
func (l *limiter) prefix(b []byte, off int) int {
	i, cols, depth := 0, 0, 0
	for i < len(b) {
		if ch := b[i]; ch == ' ' || ch == '\t' {
			w := 1
			if ch == '\t' {
				w = 4 - cols%4
			}
			if cols+w > maxContainerCols {
				// Keep one blank, which may end a marker, and drop the
				// rest of the run.
				j := i + 1
				for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
					j++
				}
				if j > i+1 {
					l.edits = append(l.edits, edit{pos: off + i + 1, kind: editDrop, drop: j - i - 1})
				}
				i = j
				continue
			}
			cols += w
			i++
			continue
		}
		n := markerLen(b, i)
		if n == 0 {
			break
		}
		if depth == maxContainerDepth {
			if !isThematicBreak(b[i:]) {
				l.escape(off + i + n - 1)
			}
			break
		}
		depth++
		cols += n
		i += n
	}
	return i
}

// markerLen returns the length of the container marker at b[i] (a
// blockquote '>', a bullet followed by a space, a tab or the line's end,
// or an ordered list number of up to 9 digits with its '.' or ')'), or 0.
func markerLen(b []byte, i int) int {
	spaceAfter := func(j int) bool { return j == len(b) || b[j] == ' ' || b[j] == '\t' }
	switch ch := b[i]; {
	case ch == '>':
		return 1
	case ch == '-' || ch == '*' || ch == '+':
		if spaceAfter(i + 1) {
			return 1
		}
	case isDigit(ch):
		j := i
		for j < len(b) && j-i < 10 && isDigit(b[j]) {
			j++
		}
		if j-i <= 9 && j < len(b) && (b[j] == '.' || b[j] == ')') && spaceAfter(j+1) {
			return j + 1 - i
		}
	}
	return 0
}

// isThematicBreak reports whether b is a thematic break: three or more of
// one of '-', '*', '_' with only spaces and tabs between them.
func isThematicBreak(b []byte) bool {
	var ch byte
	n := 0
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t':
		case (c == '-' || c == '*' || c == '_') && (ch == 0 || c == ch):
			ch = c
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// inline bounds the inline constructs of line b (at off) from i: code
// spans, link labels, destinations and titles, and raw HTML. goldmark
// looks for the end of every backtick run, raw HTML tag and link title
// over the rest of its paragraph, and for the destination after every "]("
// over the rest of the line. The line has a scanning budget; once it is
// spent, or once the paragraph holds too many open constructs (see the
// limits above), the backticks, the '[', the '(' after ']', the title's
// opening quote or the '<' are escaped. def tells that the line starts a
// reference definition, whose title is bounded the same way.
func (l *limiter) inline(b []byte, off, i int, def bool) {
	budget := 2*len(b) + linkScanSlack
	if def {
		if k := bytes.Index(b[i:], []byte("]:")); k >= 0 {
			j := skipBlanks(b, i+k+2)
			d, cost := destEnd(b, j, budget)
			budget -= cost
			if d >= 0 {
				budget -= l.title(b, off, d, budget)
			}
		}
	}
	// gt, dq and sq are the next '>', '"' and '\'' at or after k, or len(b).
	gt, dq, sq := -1, -1, -1
	for k := i; k < len(b); k++ {
		switch b[k] {
		case '\\':
			k++
		case '`':
			n := 1
			for k+n < len(b) && b[k+n] == '`' {
				n++
			}
			close, cost := closingRun(b, k+n, n, budget)
			budget -= cost
			if close >= 0 {
				k = close + n - 1
				continue
			}
			if l.openCode++; l.openCode > maxOpenCodeSpans || budget <= 0 {
				for j := range n {
					l.escape(off + k + j)
				}
			}
			k += n - 1
		case '<':
			if !rawHTMLStart(b[k:]) {
				continue
			}
			if gt < k {
				gt = nextByte(b, k, '>')
			}
			if dq < k {
				dq = nextByte(b, k, '"')
			}
			if sq < k {
				sq = nextByte(b, k, '\'')
			}
			if gt < len(b) && gt < min(dq, sq) {
				continue // closed on its line
			}
			if l.openHTML++; l.openHTML > maxOpenHTML {
				l.escape(off + k)
			}
		case '[':
			if l.openBrackets >= maxOpenBrackets {
				l.escape(off + k)
				continue
			}
			l.openBrackets++
		case ']':
			if l.openBrackets > 0 {
				l.openBrackets--
			}
			if k+1 >= len(b) || b[k+1] != '(' {
				continue
			}
			if budget <= 0 {
				l.escape(off + k + 1)
				continue
			}
			d, cost := destEnd(b, skipBlanks(b, k+2), budget)
			budget -= cost
			if d < 0 {
				if budget <= 0 {
					l.escape(off + k + 1)
				}
				continue
			}
			budget -= l.title(b, off, d, budget)
		}
	}
}

// rawHTMLStart reports whether b starts like goldmark's raw HTML: '<'
// followed by a letter or digit, by '/' and one, by '!' or by '?'.
func rawHTMLStart(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	alnum := func(c byte) bool { return isASCIILetter(c) || isDigit(c) }
	switch c := b[1]; {
	case alnum(c), c == '!', c == '?':
		return true
	case c == '/':
		return len(b) > 2 && alnum(b[2])
	}
	return false
}

// nextByte returns the index of the first c in b at or after i, or len(b).
func nextByte(b []byte, i int, c byte) int {
	if j := bytes.IndexByte(b[i:], c); j >= 0 {
		return i + j
	}
	return len(b)
}

// title handles a link title that may start at or after b[d] and returns
// what looking for its end cost.
func (l *limiter) title(b []byte, off, d, budget int) int {
	t := skipBlanks(b, d)
	if t >= len(b) || (b[t] != '"' && b[t] != '\'' && b[t] != '(') {
		return t - d
	}
	closer := b[t]
	if closer == '(' {
		closer = ')'
	}
	cost := t - d
	for j := t + 1; j < len(b); j++ {
		if cost++; cost > budget {
			break
		}
		if b[j] == '\\' {
			j++
			continue
		}
		if b[j] == closer {
			return cost
		}
	}
	// Open at the end of the line (or too costly to tell).
	if l.openTitles++; l.openTitles > maxOpenTitles || cost > budget {
		l.escape(off + t)
	}
	return cost
}

// destEnd returns where the link destination starting at b[j] ends, as
// goldmark reads it (up to '>' for <...>, else up to a space or an
// unbalanced ')'), or -1 when it has none, and the bytes it scanned. It
// scans at most budget bytes and returns -1 when that is not enough.
func destEnd(b []byte, j, budget int) (int, int) {
	if j >= len(b) {
		return -1, 0
	}
	start := j
	if b[j] == '<' {
		for j++; j < len(b); j++ {
			if j-start > budget {
				return -1, j - start
			}
			if b[j] == '\\' {
				j++
				continue
			}
			if b[j] == '>' {
				return j + 1, j + 1 - start
			}
		}
		return -1, j - start
	}
	depth := 0
	for ; j < len(b); j++ {
		if j-start > budget {
			return -1, j - start
		}
		switch b[j] {
		case '\\':
			j++
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return j, j - start
			}
		case ' ', '\t', '\r':
			return j, j - start
		}
	}
	return min(j, len(b)), j - start
}

// closingRun returns the start of the first run of exactly n backticks in
// b from i, or -1, and the bytes it scanned, at most budget.
func closingRun(b []byte, i, n, budget int) (int, int) {
	start := i
	for i < len(b) {
		if i-start > budget {
			return -1, i - start
		}
		if b[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < len(b) && b[i+m] == '`' {
			m++
		}
		if m == n {
			return i, i - start
		}
		i += m
	}
	return -1, i - start
}

// skipBlanks returns the index of the first byte at or after i that is
// not a space or a tab.
func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// escape records a backslash to insert before body[pos].
func (l *limiter) escape(pos int) {
	l.edits = append(l.edits, edit{pos: pos, kind: editEscape})
}
