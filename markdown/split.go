package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/tokens"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// ErrInvalidUTF8 is returned by Split for a file that is not valid UTF-8;
// callers skip such files.
var ErrInvalidUTF8 = errors.New("not valid UTF-8")

// md is shared by all calls: goldmark's parser keeps per-parse state in a
// fresh parser.Context and is safe for concurrent Parse calls once its
// lazy initialization (guarded by a sync.Once) has run.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithHeadingAttribute()),
)

// mdxMD parses MDX syntax, which has no indented code blocks: it is md
// without the indented code block parser, and with a paragraph parser that
// also opens on lines indented four or more columns (JSX children are
// often indented). Like md it is shared by all calls.
var mdxMD = goldmark.New(
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(mdxBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)),
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithHeadingAttribute()),
)

// mdxBlockParsers returns goldmark's default block parsers without the
// indented code block parser and with indentedParagraphParser in place of
// the paragraph parser.
func mdxBlockParsers() []util.PrioritizedValue {
	var out []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		bp := v.Value.(parser.BlockParser)
		if bp.CanAcceptIndentedLine() {
			continue // the indented code block parser
		}
		if bp == parser.NewParagraphParser() {
			v.Value = indentedParagraphParser{bp}
		}
		out = append(out, v)
	}
	return out
}

// indentedParagraphParser is goldmark's paragraph parser, also opening on
// lines indented four or more columns, which no other parser takes once
// indented code is gone.
type indentedParagraphParser struct{ parser.BlockParser }

func (indentedParagraphParser) CanAcceptIndentedLine() bool { return true }

// Split parses one markdown or MDX file into a Document. path is the
// file's repository-relative, slash-separated path; it gives the title
// fallback and, by its .mdx extension, turns on MDX cleaning. Split never
// does I/O and is safe for concurrent use; the returned Document shares no
// memory with src.
//
// The text before the first heading forms a level-0 section, which is no
// section's parent: headings with no enclosing heading have Parent -1.
// The only error is ErrInvalidUTF8 (wrapped).
func Split(path string, src []byte, opts Options) (*Document, error) {
	doc, _, err := split(path, src, opts)
	return doc, err
}

// splitResult is what split knows besides the Document: the cleaned body
// and, for every section, the range of the body it was built from. The
// ranges partition the body in order.
type splitResult struct {
	body   []byte
	ranges []span
	// inserted are the offsets in body of the newlines limitParse
	// inserted, which are no line ends of the file.
	inserted []int
}

func split(p string, src []byte, opts Options) (*Document, *splitResult, error) {
	if !utf8.Valid(src) {
		return nil, nil, fmt.Errorf("split %s: %w", p, ErrInvalidUTF8)
	}
	bodyStart, fm := splitFrontMatter(src)
	lineOffset := bytes.Count(src[:bodyStart], []byte("\n"))
	mdx := strings.EqualFold(path.Ext(p), ".mdx")
	mdxSyntax := mdx || looksMDX(src[bodyStart:])
	body, fences := clean(collapseTabs(src[bodyStart:]), mdx, mdxSyntax)
	body, fences, inserted := limitParse(body, fences)

	s := &splitter{
		body:   body,
		fences: fences,
		lines:  lineCounter{src: body, line: lineOffset + 1, skip: inserted},
		max:    opts.MaxSectionTokens,
	}
	parse := md
	if mdxSyntax {
		parse = mdxMD
	}
	root := parse.Parser().Parse(text.NewReader(body))
	s.collect(root)

	doc := &Document{
		Path:        p,
		Title:       fm.title,
		Description: fm.description,
		Tags:        fm.tags,
		Order:       fm.order,
		Sections:    []Section{},
	}
	if doc.Title == "" {
		for _, h := range s.heads {
			if h.level == 1 && h.title != "" {
				doc.Title = h.title
				break
			}
		}
	}
	if doc.Title == "" {
		doc.Title = titleFromPath(p)
	}
	s.docTitle = doc.Title
	s.build()
	s.fill(root)
	ranges := s.finish(doc)
	return doc, &splitResult{body: body, ranges: ranges, inserted: inserted}, nil
}

// looksMDX reports whether a markdown body is MDX in all but name: it has
// an ATX heading with a react.dev-style {/*id*/} anchor at its end.
func looksMDX(b []byte) bool {
	if !bytes.Contains(b, []byte("*/}")) {
		return false
	}
	for i := 0; i < len(b); {
		e := lineEnd(b, i)
		if bytes.HasSuffix(bytes.TrimRight(b[i:e], " \t\r"), []byte("*/}")) && isATXHeading(b[i:e]) {
			return true
		}
		i = e + 1
	}
	return false
}

// titleFromPath turns a file name into a title: the file's stem as
// written (prefer-const.md gives "prefer-const") without an ordering
// prefix ("2.guide.md" gives "guide"); index, README and _index files take
// their folder's name.
func titleFromPath(p string) string {
	base := path.Base(p)
	name := strings.TrimSuffix(base, path.Ext(base))
	switch strings.ToLower(name) {
	case "index", "readme", "_index":
		if dir := path.Base(path.Dir(p)); dir != "." && dir != "/" && dir != "" {
			name = dir
		}
	}
	name = strings.TrimSpace(name)
	// An ordering prefix: digits and a dot before a letter (Nuxt's
	// "6.going-further").
	if i := strings.IndexFunc(name, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && name[i] == '.' && i+1 < len(name) && isASCIILetter(name[i+1]) {
		name = name[i+1:]
	}
	if name == "" {
		name = "untitled"
	}
	return name
}

// head is one heading found in the AST.
type head struct {
	node      *ast.Heading
	level     int
	lineStart int // offset of the start of the heading's line in the body
	raw       string
	title     string
	explicit  string // explicit anchor, if any
}

// topBlock is a child of the AST's document node.
type topBlock struct {
	// start is the offset of the start of its first line. Starts do not
	// decrease; a block whose start is unknown, or not after the previous
	// block's, gets the previous start and known false: no chunk starts there.
	start int
	known bool
}

// unit is one output section before assembly: a whole section or a chunk.
type unit struct {
	head      int // index into heads, -1 for the level-0 section
	start     int // range in the body
	end       int
	line      int
	part      int
	prose     []byte
	code      []CodeBlock
	inline    []string
	links     []Link
	firstUnit int // index of the unit holding part 0 of this section
}

type splitter struct {
	body     []byte
	fences   []span
	lines    lineCounter
	max      int
	docTitle string

	heads []head
	tops  []topBlock

	units []unit
	// headUnit[i] is the first unit of heads[i]; topCut[i] is the unit
	// that starts with tops[i], or -1.
	headUnit []int
	topCut   []int
	hasLead  bool // units[0] is the level-0 section
}

// collect records the headings and top-level blocks of the AST.
func (s *splitter) collect(root ast.Node) {
	last := 0
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		tb := topBlock{start: last}
		if pos := nodePos(n); pos >= 0 {
			if ls := lineStartOf(s.body, pos); ls > last {
				tb.start, tb.known = ls, true
				last = ls
			}
		}
		s.tops = append(s.tops, tb)
	}
	prev := -1
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Type() == ast.TypeInline {
			return ast.WalkSkipChildren, nil
		}
		h, ok := n.(*ast.Heading)
		if !ok {
			return ast.WalkContinue, nil
		}
		pos := h.Pos()
		if pos < 0 && h.Lines().Len() > 0 {
			pos = h.Lines().At(0).Start
		}
		if pos < 0 {
			return ast.WalkSkipChildren, nil
		}
		ls := lineStartOf(s.body, pos)
		if ls <= prev {
			// Two headings cannot share a line; keep the first.
			return ast.WalkSkipChildren, nil
		}
		prev = ls
		s.heads = append(s.heads, s.newHead(h, ls))
		return ast.WalkSkipChildren, nil
	})
}

// nodePos returns the source position of a block node, looking into its
// descendants when the node itself has none, or -1.
func nodePos(n ast.Node) int {
	for ; n != nil; n = n.FirstChild() {
		if p := n.Pos(); p >= 0 {
			return p
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	return -1
}

// lineStartOf returns the offset of the start of the line holding pos.
func lineStartOf(b []byte, pos int) int {
	pos = min(pos, len(b))
	return bytes.LastIndexByte(b[:pos], '\n') + 1
}

// newHead reads a heading's text, title and explicit anchor.
func (s *splitter) newHead(h *ast.Heading, lineStart int) head {
	hd := head{node: h, level: h.Level, lineStart: lineStart}
	hd.raw = headingSource(s.body, h, lineStart)
	limit := len(s.body)
	if mdxAnchor(hd.raw) != "" {
		// Emphasis parsing would turn {/*id*/} into {/id/}: stop before it.
		e := lineEnd(s.body, lineStart)
		if i := bytes.LastIndex(s.body[lineStart:e], []byte("{/*")); i >= 0 {
			limit = lineStart + i
		}
	}
	b := appendPlain(nil, h, s.body, limit)
	title := string(b)
	title = strings.TrimSpace(stripTrailingMDXComment(title))
	hd.title = normalizeSpace(title)
	if v, ok := h.AttributeString("id"); ok {
		switch v := v.(type) {
		case []byte:
			hd.explicit = strings.TrimSpace(string(v))
		case string:
			hd.explicit = strings.TrimSpace(v)
		}
	}
	if hd.explicit == "" {
		hd.explicit = mdxAnchor(hd.raw)
	}
	return hd
}

// headingSource returns a heading's text as written: for ATX headings the
// line after the opening #s without a closing sequence, for setext headings
// the text lines joined by spaces.
func headingSource(body []byte, h *ast.Heading, lineStart int) string {
	lines := h.Lines()
	if pos := h.Pos(); pos >= 0 && pos < len(body) && body[pos] == '#' {
		e := lineEnd(body, pos)
		l := body[pos:e]
		i := 0
		for i < len(l) && l[i] == '#' {
			i++
		}
		t := bytes.TrimSpace(l[i:])
		// A closing sequence: #s preceded by a space, or the whole text.
		j := len(t)
		for j > 0 && t[j-1] == '#' {
			j--
		}
		if j < len(t) && (j == 0 || t[j-1] == ' ' || t[j-1] == '\t') {
			t = bytes.TrimSpace(t[:j])
		}
		return string(t)
	}
	var parts []string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		e := lineEnd(body, min(seg.Start, len(body)))
		parts = append(parts, string(bytes.TrimSpace(body[seg.Start:max(e, seg.Start)])))
	}
	return strings.Join(parts, " ")
}

// mdxAnchor returns the id of a trailing react.dev-style {/*id*/} anchor.
func mdxAnchor(raw string) string {
	t := strings.TrimSpace(raw)
	if !strings.HasSuffix(t, "*/}") {
		return ""
	}
	i := strings.LastIndex(t, "{/*")
	if i < 0 || i+3 > len(t)-3 {
		return ""
	}
	return strings.TrimSpace(t[i+3 : len(t)-3])
}

// stripTrailingMDXComment removes a trailing {/*...*/} and any {#id}
// attribute goldmark left in a heading's plain text.
func stripTrailingMDXComment(t string) string {
	t = strings.TrimSpace(t)
	if strings.HasSuffix(t, "*/}") {
		if i := strings.LastIndex(t, "{/*"); i >= 0 && i+3 <= len(t)-3 {
			t = strings.TrimSpace(t[:i])
		}
	}
	if strings.HasSuffix(t, "}") {
		if i := strings.LastIndex(t, "{#"); i >= 0 && !strings.ContainsAny(t[i:], " \t") {
			t = strings.TrimSpace(t[:i])
		}
	}
	return t
}

// build lays out the units: the level-0 section, the heading sections and
// the chunks of oversized ones, with their body ranges.
func (s *splitter) build() {
	n := len(s.body)
	firstHead := n
	if len(s.heads) > 0 {
		firstHead = s.heads[0].lineStart
	}
	s.topCut = make([]int, len(s.tops))
	for i := range s.topCut {
		s.topCut[i] = -1
	}
	s.headUnit = make([]int, len(s.heads))

	leadEnd := firstHead
	if len(bytes.TrimSpace(s.body[:leadEnd])) > 0 {
		s.hasLead = true
		s.addSection(-1, 0, leadEnd)
	}
	for i, h := range s.heads {
		start := h.lineStart
		if i == 0 && !s.hasLead {
			start = 0 // whitespace before the first heading joins it
		}
		end := n
		if i+1 < len(s.heads) {
			end = s.heads[i+1].lineStart
		}
		s.headUnit[i] = len(s.units)
		s.addSection(i, start, end)
	}
}

// addSection adds the units of one section covering body[start:end],
// cutting it into chunks when it is larger than the token limit.
func (s *splitter) addSection(hi, start, end int) {
	first := len(s.units)
	line := 0
	contentStart := start
	if hi >= 0 {
		contentStart = s.heads[hi].lineStart
	} else {
		// Skip the lines collapse would drop as blank (\v and \f included).
		for contentStart < end {
			e := min(lineEnd(s.body, contentStart), end)
			if len(bytes.TrimSpace(s.body[contentStart:e])) > 0 {
				break
			}
			contentStart = e + 1
		}
		contentStart = lineStartOf(s.body, min(contentStart, end))
	}
	line = s.lines.lineOf(contentStart)
	s.units = append(s.units, unit{head: hi, start: start, end: end, line: line, firstUnit: first})
	// A token costs at least one byte, so short sections need no count.
	if s.max <= 0 || end-start <= s.max {
		return
	}
	total := tokens.Count(string(s.body[start:end]))
	if total <= s.max {
		return
	}
	// Candidate cuts: top-level blocks starting after the section's first
	// line (its heading, or its first block).
	headingLine := lineEnd(s.body, contentStart)
	lo, _ := slices.BinarySearchFunc(s.tops, headingLine+1, func(t topBlock, v int) int {
		if t.start < v {
			return -1
		}
		if t.start > v {
			return 1
		}
		return 0
	})
	var cuts []int // indexes into tops
	for i := lo; i < len(s.tops) && s.tops[i].start < end; i++ {
		if s.tops[i].known && s.tops[i].start > headingLine {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return
	}
	headTokens := 0
	if hi >= 0 {
		headTokens = tokens.Count(s.headingLine(hi))
	}
	// Greedily fill chunks with the pieces between cuts.
	pieceStart := start
	chunk := 0 // tokens in the current chunk
	chunkBlocks := 0
	for k := 0; k <= len(cuts); k++ {
		pieceEnd := end
		if k < len(cuts) {
			pieceEnd = s.tops[cuts[k]].start
		}
		t := tokens.Count(string(s.body[pieceStart:pieceEnd]))
		if chunkBlocks > 0 && chunk+t > s.max {
			// Start a new chunk at pieceStart, which is the start of tops[cuts[k-1]].
			ti := cuts[k-1]
			u := &s.units[len(s.units)-1]
			u.end = pieceStart
			s.topCut[ti] = len(s.units)
			s.units = append(s.units, unit{
				head: hi, start: pieceStart, end: end,
				line: s.lines.lineOf(pieceStart), part: u.part + 1, firstUnit: first,
			})
			chunk, chunkBlocks = headTokens, 0
		}
		chunk += t
		chunkBlocks++
		pieceStart = pieceEnd
	}
}

// headingLine returns the heading line prepended to later chunks, without
// MDX comments.
func (s *splitter) headingLine(hi int) string {
	h := s.heads[hi]
	return strings.Repeat("#", h.level) + " " + string(stripMDXComments([]byte(h.raw)))
}

// stripHeadingComments removes the MDX comments ({/*id*/} anchors) from
// the first line of a section's text, its heading line.
func stripHeadingComments(t []byte) []byte {
	e := bytes.IndexByte(t, '\n')
	if e < 0 {
		e = len(t)
	}
	if !bytes.Contains(t[:e], []byte("{/*")) {
		return t
	}
	line := stripMDXComments(t[:e])
	return append(line, t[e:]...)
}

// stripMDXComments returns line without its {/* ... */} comments and
// without the spaces they leave at its end; it does not modify line.
func stripMDXComments(line []byte) []byte {
	var out []byte
	for {
		i := bytes.Index(line, []byte("{/*"))
		if i < 0 {
			break
		}
		j := bytes.Index(line[i+3:], []byte("*/}"))
		if j < 0 {
			break
		}
		out = append(out, line[:i]...)
		line = line[i+3+j+3:]
	}
	out = append(out, line...)
	return bytes.TrimRight(out, " \t")
}

// finish assembles the Document's sections from the units and returns
// their body ranges.
func (s *splitter) finish(doc *Document) []span {
	ranges := make([]span, 0, len(s.units))
	sl := newSlugger()
	anchors := make([]string, len(s.heads))
	for i, h := range s.heads {
		a := h.explicit
		if a == "" {
			a = Slug(h.title)
		}
		anchors[i] = sl.unique(a)
	}
	// Parent and heading path: a stack of the open heading sections.
	type open struct {
		level int
		index int // index of the section's first unit
		path  []string
	}
	var stack []open
	root := []string{s.docTitle}
	var paths [][]string
	parents := make([]int, len(s.units))
	for i := range s.units {
		u := &s.units[i]
		if u.part > 0 {
			parents[i] = parents[u.firstUnit]
			paths = append(paths, paths[u.firstUnit])
			continue
		}
		if u.head < 0 {
			parents[i] = -1
			paths = append(paths, root)
			continue
		}
		h := s.heads[u.head]
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		parent, base := -1, root
		if len(stack) > 0 {
			parent, base = stack[len(stack)-1].index, stack[len(stack)-1].path
		}
		p := base
		if !(h.level == 1 && h.title == s.docTitle) {
			p = append(slices.Clip(base), h.title)
		}
		parents[i] = parent
		paths = append(paths, p)
		stack = append(stack, open{level: h.level, index: i, path: p})
	}
	doc.Sections = make([]Section, 0, len(s.units))
	for i := range s.units {
		u := &s.units[i]
		sec := Section{
			Title:       s.docTitle,
			HeadingPath: slices.Clone(paths[i]),
			Parent:      parents[i],
			Line:        u.line,
			Part:        u.part,
			Parts:       1,
			Code:        u.code,
			InlineCode:  u.inline,
			Links:       u.links,
		}
		if u.head >= 0 {
			h := s.heads[u.head]
			sec.Anchor = anchors[u.head]
			sec.Heading = h.raw
			sec.Title = h.title
			sec.Level = h.level
		}
		var t []byte
		prose := u.prose
		if u.part > 0 && u.head >= 0 {
			t = append(t, s.headingLine(u.head)...)
			t = append(t, "\n\n"...)
			prose = append([]byte(sec.Title+" "), prose...)
		}
		t = collapse(t, s.body, u.start, u.end, s.fences)
		if u.head >= 0 && u.part == 0 {
			t = stripHeadingComments(t)
		}
		sec.Text = string(t)
		sec.Prose = normalizeSpace(string(prose))
		sec.Tokens = tokens.Count(sec.Text)
		doc.Sections = append(doc.Sections, sec)
		doc.Tokens += sec.Tokens
		ranges = append(ranges, span{u.start, u.end})
	}
	// Parts counts the chunks of each section.
	for i := 0; i < len(doc.Sections); {
		j := i + 1
		for j < len(doc.Sections) && doc.Sections[j].Part > 0 {
			j++
		}
		for k := i; k < j; k++ {
			doc.Sections[k].Parts = j - i
		}
		i = j
	}
	return ranges
}

// collapse appends body[a:b] to dst with runs of blank lines outside fenced
// code reduced to one, whitespace-only lines emptied, and leading blank
// lines and trailing whitespace trimmed.
func collapse(dst, body []byte, a, b int, fences []span) []byte {
	base := len(dst)
	fi, _ := slices.BinarySearchFunc(fences, a, func(f span, v int) int {
		if f.end <= v {
			return -1
		}
		return 1
	})
	blank := 0
	for p := a; p < b; {
		e := min(lineEnd(body, p), b)
		for fi < len(fences) && fences[fi].end <= p {
			fi++
		}
		inFence := fi < len(fences) && fences[fi].start <= p
		line := body[p:e]
		if !inFence && len(bytes.TrimSpace(line)) == 0 {
			blank++
		} else {
			if len(dst) > base {
				if blank > 0 {
					dst = append(dst, '\n')
				}
			}
			blank = 0
			dst = append(dst, line...)
			dst = append(dst, '\n')
		}
		p = e + 1
	}
	return bytes.TrimRight(dst, " \t\r\n")
}

// normalizeSpace collapses runs of whitespace to one space and trims.
func normalizeSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\v', 0x85, 0xA0:
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// lineCounter maps body offsets to 1-based file lines. Offsets must be
// asked for in non-decreasing order for linear cost; earlier ones work but
// rescan.
type lineCounter struct {
	src  []byte
	pos  int // offset counted up to
	line int // line number at pos
	base int // line number at offset 0
	init bool
	// skip holds the offsets, increasing, of newlines that end no line of
	// the file (limitParse inserted them); si counts those before pos.
	skip []int
	si   int
}

func (c *lineCounter) lineOf(off int) int {
	if !c.init {
		c.base, c.init = c.line, true
	}
	off = min(off, len(c.src))
	if off < c.pos {
		c.pos, c.line, c.si = 0, c.base, 0
	}
	c.line += bytes.Count(c.src[c.pos:off], []byte("\n"))
	for c.si < len(c.skip) && c.skip[c.si] < off {
		c.line--
		c.si++
	}
	c.pos = off
	return c.line
}
