package mentions

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is a word of a prose line: letters, digits and the punctuation
// library names are written with ("next.js", "@tanstack/react-query",
// "socket.io", "scikit-learn"), without trailing punctuation.
type token struct {
	start, end int
	text       string
	// code is true in an inline code span; whole when the token is all
	// of the span ("`express`").
	code, whole bool
	// join is true when only spaces (after a possessive, see poss)
	// separate the token from the next one, both in prose or both in the
	// same code span.
	join bool
	// poss is the length of the possessive or contraction that follows the
	// token ("'s" in "React's hooks", "’s" in "it’s"), 0 when none. The
	// token's text, start and end leave it out, so that a name is looked
	// up, reported, checked for quotes and read as a neighbour's cue
	// without it ("it's react 18" reads "it", not the determiner "its").
	poss int
}

// possessive reports whether gap, the text between a token and the next
// one, is an apostrophe (ASCII or typographic) and the next token is "s":
// "React's", "React’s", "it's".
func possessive(gap, next string) bool {
	return (gap == "'" || gap == "\u2019") && (next == "s" || next == "S")
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_@./+-", r)
}

// maxTokens bounds the tokens read per line.
const maxTokens = 4096

// tokens returns the words of a prose line.
func (s *scan) tokens(seg segment) []token {
	line := s.text[seg.start:seg.end]
	first := sort.Search(len(s.inline), func(i int) bool { return s.inline[i].end > seg.start })
	var toks []token
	for i := 0; i < len(line) && len(toks) < maxTokens; {
		r, n := utf8.DecodeRuneInString(line[i:])
		if !wordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(line) {
			r, n := utf8.DecodeRuneInString(line[j:])
			if !wordRune(r) {
				break
			}
			j += n
		}
		a, b := i, j
		for a < b && strings.IndexByte(".-+", line[a]) >= 0 {
			a++
		}
		for b > a && strings.IndexByte("./-+", line[b-1]) >= 0 {
			b--
		}
		if a < b {
			t := token{start: seg.start + a, end: seg.start + b, text: line[a:b]}
			for k := first; k < len(s.inline) && s.inline[k].start < t.end; k++ {
				if sp := s.inline[k]; t.start >= sp.start && t.end <= sp.end {
					t.code, t.whole = true, sp.start == t.start && sp.end == t.end
				}
			}
			toks = append(toks, t)
		}
		i = j
	}
	// A possessive 's is part of the word before it: "React's hooks"
	// joins React to hooks as "React hooks" does.
	out := toks[:0]
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if k+1 < len(toks) && t.code == toks[k+1].code && possessive(s.text[t.end:toks[k+1].start], toks[k+1].text) {
			t.poss = toks[k+1].end - t.end
			k++
		}
		out = append(out, t)
	}
	toks = out
	for k := 0; k+1 < len(toks); k++ {
		gap := s.text[toks[k].end+toks[k].poss : toks[k+1].start]
		toks[k].join = gap != "" && strings.Trim(gap, " \t") == "" && toks[k].code == toks[k+1].code
	}
	return toks
}

// mentions finds library names in the prose: every line outside fenced
// code blocks, inline code spans included.
func (s *scan) mentions() {
	for _, seg := range s.segs {
		if seg.fence != 0 || seg.inline {
			continue
		}
		s.mentionLine(s.tokens(seg))
	}
}

func (s *scan) mentionLine(toks []token) {
	for i := 0; i < len(toks); {
		t := toks[i]
		if s.mentionPath(t) {
			i++
			continue
		}
		if n := s.mentionWords(toks, i); n > 0 {
			i += n
			continue
		}
		var prev, next string
		if i > 0 && toks[i-1].join {
			prev = toks[i-1].text
		}
		if t.join && i+1 < len(toks) {
			next = toks[i+1].text
		}
		if !s.mention(t.text, t.start, t.code, t.whole, prev, next) && strings.ContainsAny(t.text, "-./") {
			parts := splitParts(t.text)
			for k, p := range parts {
				pp, pn := prev, next
				if k > 0 {
					pp = parts[k-1].text
				}
				if k+1 < len(parts) {
					pn = parts[k+1].text
				}
				if len(compact(p.text)) >= 2 {
					s.mention(p.text, t.start+p.off, t.code, false, pp, pn)
				}
			}
		}
		i++
	}
}

// part is a piece of a token split at '-', '.' and '/'.
type part struct {
	text string
	off  int
}

// splitParts splits "next.config.js" or "React-based" into parts; tokens
// of more than six parts are not split.
func splitParts(s string) []part {
	var out []part
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || strings.IndexByte("-./", s[i]) >= 0 {
			if start >= 0 {
				out = append(out, part{s[start:i], start})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if len(out) > 6 {
		return nil
	}
	return out
}

// idRe matches a library id written in a prompt: "/vercel/next.js",
// "/vercel/next.js@v15.1.0".
var idRe = regexp.MustCompile(`^/[\w.-]+/[\w.-]+(?:@[\w.-]+)?$`)

// mentionPath handles a token that is a path, URL, id or scoped package
// ("/vercel/next.js", "https://github.com/gin-gonic/gin",
// "@tanstack/react-query"): it counts when it names a known library, and
// is never split into words. It reports whether the token was one.
func (s *scan) mentionPath(t token) bool {
	lw := strings.ToLower(t.text)
	via := "text"
	if t.code {
		via = "code"
	}
	found := func(lib int) {
		if lib >= 0 {
			s.add(lib, "", weightName, Found{Kind: KindMention, Via: via, Text: t.text, Offset: t.start})
		}
	}
	switch {
	case strings.HasPrefix(lw, "@") && strings.Contains(lw, "/"):
		if name := jsPackage(lw); strings.HasPrefix(name, "@types/") {
			found(s.x.lookup(s.keysOf(ecoNPM, typesTarget(name))...))
		} else if name != "" {
			found(s.x.lookup(s.keysOf(ecoNPM, name)...))
		}
		return true
	case idRe.MatchString(lw):
		id, _, _ := strings.Cut(lw, "@")
		found(s.x.lookup(id))
		return true
	case strings.Contains(lw, "//") || strings.Count(lw, "/") >= 2 || strings.HasPrefix(lw, "/") || strings.HasPrefix(lw, "~"):
		p := strings.TrimLeft(lw, "/")
		for host := range forges {
			if i := strings.Index(p, host+"/"); i >= 0 {
				p = p[i:]
				break
			}
		}
		if or := ownerRepo(p); or != "" {
			found(s.x.lookup(moduleRoot(p), "/"+or, or))
		} else if goModRe.MatchString(p) {
			found(s.x.lookup(moduleRoot(p)))
		}
		return true
	}
	return false
}

// mentionWords matches the names of several words starting at toks[i]
// ("React Query", "Next JS", "Acme Widgets") and returns how many tokens
// the match took, or 0.
func (s *scan) mentionWords(toks []token, i int) int {
	for n := 3; n >= 2; n-- {
		if i+n > len(toks) {
			continue
		}
		words := make([]string, 0, n)
		ok := true
		for k := i; k < i+n; k++ {
			if k < i+n-1 && (!toks[k].join || toks[k].poss > 0) { // "Acme's widgets" is not "Acme Widgets"
				ok = false
				break
			}
			words = append(words, toks[k].text)
		}
		if !ok {
			continue
		}
		spaced := strings.ToLower(strings.Join(words, " "))
		c := compact(spaced)
		if isAmbiguous(c) {
			continue
		}
		if lib := s.x.lookup(spaced, c); lib >= 0 {
			via := "text"
			if toks[i].code {
				via = "code"
			}
			s.add(lib, "", weightName, Found{Kind: KindMention, Via: via, Text: s.text[toks[i].start:toks[i+n-1].end], Offset: toks[i].start})
			return n
		}
	}
	return 0
}

// mention looks a word up and records it when it names a library and, if
// the name is ambiguous, the words around it corroborate it. It reports
// whether the index knows the word at all.
func (s *scan) mention(w string, off int, code, whole bool, prev, next string) bool {
	lw := strings.ToLower(w)
	c := compact(lw)
	lib := s.x.lookup(lw, c)
	if lib < 0 {
		return false
	}
	via := "text"
	if code {
		via = "code"
	}
	switch {
	case !isAmbiguous(c):
		s.add(lib, "", weightName, Found{Kind: KindMention, Via: via, Text: w, Offset: off})
	case whole || s.quoted(off, off+len(w)):
		s.add(lib, "", weightName, Found{Kind: KindMention, Via: "code", Text: w, Offset: off})
	case s.corroborated(w, off, code, prev, next):
		s.add(lib, "", weightWord, Found{Kind: KindMention, Via: via, Text: w, Offset: off})
	}
	return true
}

// corroborated reports whether the words around an ambiguous name show it
// is meant as a library.
func (s *scan) corroborated(w string, off int, code bool, prev, next string) bool {
	p, n := bare(prev), bare(next)
	if strongAfter[n] {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	capital := unicode.IsUpper(r) && (code || !s.sentenceStart(off) && !s.titleLine(off))
	if versionRe.MatchString(n) && !determiners[p] {
		return true // "react 18", "Will express 5 drop it?"; not "the next 5 minutes"
	}
	if !capital && (verbBefore[p] || weakAfter[n] || adverb(n) || determiners[p] && !techNouns[n]) {
		return false
	}
	return capital || techNouns[n] || cueBefore[p]
}

// Ambiguous reports whether a library name needs corroboration to count
// as a mention in prose: an English or generic word ("react", "docs",
// "widgets"), a standard-library module, a number, or two letters or fewer.
func Ambiguous(name string) bool { return isAmbiguous(compact(name)) }

// isAmbiguous reports whether a name, in compact form, needs
// corroboration: an English or generic word, a standard-library module,
// a number, or two letters or fewer.
func isAmbiguous(c string) bool {
	return ambiguous[c] || pythonStdlib[c] || nodeBuiltins[c] || utf8.RuneCountInString(c) <= 2 || strings.Trim(c, "0123456789") == ""
}

var versionRe = regexp.MustCompile(`^v?\d+(?:\.(?:\d+|x))*$`)

// bare lower-cases a word and drops apostrophes ("don't" → "dont").
func bare(w string) string {
	return strings.NewReplacer("'", "", "\u2019", "").Replace(strings.ToLower(w))
}

// adverb reports whether w looks like an adverb ("quickly").
func adverb(w string) bool { return len(w) > 4 && strings.HasSuffix(w, "ly") && !techNouns[w] }

// sentenceStart reports whether off begins a sentence or a line (list
// markers, quotes and emphasis aside), where capitals say nothing.
func (s *scan) sentenceStart(off int) bool {
	j := off - 1
	for j >= 0 && strings.IndexByte(" \t\"'(*_>#-`", s.text[j]) >= 0 {
		j--
	}
	return j < 0 || strings.IndexByte("\n.!?:", s.text[j]) >= 0
}

// titleLine reports whether the line holding off is in title case ("How
// To Express My Concern"), where capitals say nothing either.
func (s *scan) titleLine(off int) bool {
	ls, le := s.lineAt(off)
	if v, ok := s.titles[ls]; ok {
		return v
	}
	total, upper := 0, 0
	line := s.text[ls:le]
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(line) {
			r2, n2 := utf8.DecodeRuneInString(line[j:])
			if !unicode.IsLetter(r2) {
				break
			}
			j += n2
		}
		if utf8.RuneCountInString(line[i:j]) >= 2 {
			total++
			if unicode.IsUpper(r) {
				upper++
			}
		}
		i = j
	}
	v := total >= 4 && upper*3 >= total*2
	s.titles[ls] = v
	return v
}

// quoted reports whether [start, end) is enclosed in quotes. The
// apostrophe of a possessive is no closing quote: "'react's hooks'" does
// not quote react.
func (s *scan) quoted(start, end int) bool {
	if start == 0 || end >= len(s.text) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s.text[:start])
	after, n := utf8.DecodeRuneInString(s.text[end:])
	if rest := s.text[end+n:]; (after == '\'' || after == '\u2019') && (strings.HasPrefix(rest, "s") || strings.HasPrefix(rest, "S")) {
		if r, _ := utf8.DecodeRuneInString(rest[1:]); len(rest) == 1 || !wordRune(r) {
			return false
		}
	}
	switch before {
	case '"', '\'':
		return after == before
	case '\u201c':
		return after == '\u201d'
	case '\u2018':
		return after == '\u2019'
	}
	return false
}
