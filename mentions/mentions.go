// Package mentions finds the libraries a prompt is about, for
// `indexer context`: direct mentions of a known library's names and
// aliases, package-manager commands (npm, yarn, pnpm, bun, pip, uv, poetry,
// go get, cargo), import and require statements (Python, JavaScript and
// TypeScript, Go, Rust), dependency lists (package.json, go.mod,
// requirements.txt, Cargo.toml and pyproject tables) and stack traces'
// paths into installed packages, with standard libraries and English words
// filtered out.
//
// It is pure: a prompt and an Index of known names in, ranked candidates
// with where each was found out. No I/O, no clock, no randomness.
//
// The rules, in short:
//   - A package-manager command, an import, a dependency line or a path
//     into installed packages names a package whatever the Index holds:
//     the package is matched against the Index (by package name, scope,
//     Python import name, Go module path or GitHub id), and kept under its
//     own name when nothing matches. Standard-library modules (os, sys,
//     json, fmt, fs, path, node:…) and relative imports are dropped. In a
//     sentence, a command's arguments end at punctuation and at the first
//     word of prose ("npm install fails with EACCES" names nothing).
//   - A direct mention only finds a library of the Index. A name that is
//     an English or generic word ("react", "express", "next", "widgets",
//     "cobra", "tailwind"), or of two letters or fewer, needs corroboration
//     in prose: written as code or quoted, capitalized in mid-sentence,
//     followed by a word of software ("hooks", "middleware", "config",
//     "18"; after a possessive too: "React's hooks"), or preceded by one
//     ("using", "in", "vs"); and it never counts as a verb or common noun
//     ("to express", "react quickly", "a click handler", "next steps"),
//     nor capitalized at the start of a sentence or in a title-case line
//     ("How To Express My Concern"). Other names
//     ("fastapi", "Next.js", "@tanstack/react-query") count as written, in
//     any case, and names of several words ("React Query", "Next JS")
//     match however they are spaced or punctuated.
//   - All spellings of one library count once; candidates are ranked by
//     the weight of their evidence, then by first appearance, and at most
//     MaxCandidates are returned.
package mentions

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxCandidates bounds what Detect returns.
const MaxCandidates = 5

// MaxPromptBytes bounds what Detect reads of a prompt; the rest is ignored.
// Prompts pasted with whole files stay cheap to scan.
const MaxPromptBytes = 64 << 10

// maxFound bounds the evidence kept per candidate (all of it is scored).
const maxFound = 8

// maxFoundText bounds Found.Text, in bytes.
const maxFoundText = 120

// Kinds of evidence.
const (
	// KindInstall is a package-manager command: "npm i react-query".
	KindInstall = "install"
	// KindImport is an import or require statement: "from fastapi import FastAPI".
	KindImport = "import"
	// KindManifest is a dependency in a manifest: package.json, go.mod,
	// requirements.txt, Cargo.toml or pyproject.toml.
	KindManifest = "manifest"
	// KindTrace is a path into installed packages, as stack traces show
	// them: "node_modules/express/lib/router.js", "site-packages/fastapi/",
	// "pkg/mod/github.com/gin-gonic/gin@v1.9.1/".
	KindTrace = "trace"
	// KindMention is the library's name in the text: "How do I use FastAPI?".
	KindMention = "mention"
)

// Evidence weights: what one piece of evidence adds to a candidate's score.
const (
	weightStatement = 3 // install, import, manifest, trace
	weightName      = 2 // a specific name, or an ambiguous one written as code
	weightWord      = 1 // an ambiguous name with corroboration
)

// Library is a library the detector can recognize.
type Library struct {
	// ID identifies the library; it is returned in Candidate.ID. An id of
	// the form "/org/project" is also matched as written and against
	// forge paths ("github.com/org/project").
	ID string
	// Names are the names it goes by: title, project name, aliases,
	// package names ("@tanstack/react-query"), module paths
	// ("github.com/gin-gonic/gin"). The first is its display name.
	Names []string
}

// Found is one place a candidate was found.
type Found struct {
	// Kind is KindInstall, KindImport, KindManifest, KindTrace or KindMention.
	Kind string `json:"kind"`
	// Via says in what: "npm", "pip", "go", "cargo"… for commands;
	// "python", "js", "go", "rust" for imports; "package.json", "go.mod",
	// "requirements.txt", "Cargo.toml", "pyproject.toml" for manifests;
	// "node_modules", "site-packages", "pkg/mod" for traces; "text" or
	// "code" (an inline code span or a quoted name) for mentions.
	Via string `json:"via"`
	// Text is the command, statement or name as written (cut to 120 bytes).
	Text string `json:"text"`
	// Offset is the byte offset in the prompt of the name found.
	Offset int `json:"offset"`
}

// Candidate is a library a prompt is about.
type Candidate struct {
	// ID is the Library.ID of the Index entry found, or "" when the
	// package matched none.
	ID string `json:"id,omitempty"`
	// Name is the library's display name when known, else the package
	// name as its ecosystem spells it ("react-query", "scikit-learn",
	// "github.com/spf13/cobra").
	Name string `json:"name"`
	// Relevance is the candidate's score over the best one's: 1 for the
	// first, in (0, 1] for all.
	Relevance float64 `json:"relevance"`
	// Found lists where it was found, in order of appearance (at most 8).
	Found []Found `json:"found"`
}

// Index holds the names of known libraries, prepared for Detect. It is
// never modified after NewIndex, so any number of goroutines may use it.
type Index struct {
	libs []Library
	keys map[string]int // name key → position in libs; the first library to claim a key keeps it
}

// NewIndex prepares libs for Detect. Libraries listed twice under one id
// (compared ignoring case) are one, with the names of both, the first
// listing's display name first. When two libraries share a name, the first
// one listed gets it. NewIndex keeps its own copy of libs.
func NewIndex(libs []Library) *Index {
	x := &Index{keys: map[string]int{}}
	byID := map[string]int{}
	for _, l := range libs {
		id := strings.ToLower(strings.TrimSpace(l.ID))
		i, dup := byID[id]
		if !dup || id == "" {
			i = len(x.libs)
			x.libs = append(x.libs, Library{ID: l.ID})
			byID[id] = i
		}
		x.libs[i].Names = append(x.libs[i].Names, l.Names...)
		if strings.HasPrefix(id, "/") && strings.Count(id, "/") == 2 {
			x.claim(id, i)
			x.claim(id[1:], i)
		}
		for _, n := range l.Names {
			x.addName(n, i)
		}
	}
	return x
}

func (x *Index) claim(key string, lib int) {
	if key == "" {
		return
	}
	if _, taken := x.keys[key]; !taken {
		x.keys[key] = lib
	}
}

func (x *Index) addName(name string, lib int) {
	l := strings.Join(strings.Fields(strings.ToLower(name)), " ")
	x.claim(l, lib)
	c := compact(l)
	x.claim(c, lib)
	if c != "" && !strings.HasSuffix(c, "js") {
		x.claim(c+"js", lib) // "express" is also "Express.js", "expressjs"
	}
}

// lookup returns the library of the first key known, or -1.
func (x *Index) lookup(keys ...string) int {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if i, ok := x.keys[k]; ok {
			return i
		}
	}
	return -1
}

// compact lower-cases s and keeps only its letters and digits:
// "Next.js" → "nextjs", "@tanstack/react-query" → "tanstackreactquery".
func compact(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Detect returns the libraries prompt is about, best first, at most
// MaxCandidates, each once. It reads at most MaxPromptBytes of prompt.
// The returned slice is the caller's.
func (x *Index) Detect(prompt string) []Candidate {
	if x == nil {
		x = NewIndex(nil)
	}
	s := newScan(x, clip(prompt, MaxPromptBytes))
	s.installs()
	s.imports()
	s.manifests()
	s.traces()
	s.mentions()
	return s.rank()
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cand is a candidate being gathered.
type cand struct {
	lib   int    // position in the index, or -1
	name  string // the package name, for unknown libraries
	score int
	first int // offset of the first evidence
	found []Found
	// at holds the offsets of all evidence counted, found's and what
	// maxFound left out of it, so that evidence two rules find at one
	// offset counts once however much there is.
	at map[int]bool
}

// add records evidence for library lib (or, when lib < 0, for the unknown
// package name). Evidence already recorded at the same offset counts once.
func (s *scan) add(lib int, name string, weight int, f Found) {
	var key string
	if lib >= 0 {
		key = "#" + strconv.Itoa(lib)
	} else {
		key = compact(unscoped(name))
		if key == "" {
			return
		}
		key = "?" + key
	}
	c := s.cands[key]
	if c == nil {
		c = &cand{lib: lib, name: name, first: f.Offset, at: map[int]bool{}}
		s.cands[key] = c
		s.order = append(s.order, c)
	}
	if c.at[f.Offset] {
		return
	}
	c.at[f.Offset] = true
	f.Text = clip(f.Text, maxFoundText)
	c.score += weight
	if f.Offset < c.first {
		c.first = f.Offset
	}
	if len(c.found) < maxFound {
		c.found = append(c.found, f)
	}
}

// rank orders the candidates by score, then first appearance, and keeps
// MaxCandidates.
func (s *scan) rank() []Candidate {
	list := s.order
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].first < list[j].first
	})
	if len(list) > MaxCandidates {
		list = list[:MaxCandidates]
	}
	out := make([]Candidate, 0, len(list))
	for _, c := range list {
		sort.SliceStable(c.found, func(i, j int) bool { return c.found[i].Offset < c.found[j].Offset })
		cd := Candidate{Name: c.name, Found: c.found, Relevance: math.Round(float64(c.score)/float64(list[0].score)*100) / 100}
		if c.lib >= 0 {
			l := s.x.libs[c.lib]
			cd.ID = l.ID
			cd.Name = l.ID
			if len(l.Names) > 0 && strings.TrimSpace(l.Names[0]) != "" {
				cd.Name = l.Names[0]
			}
		}
		if cd.Relevance <= 0 {
			cd.Relevance = 0.01
		}
		out = append(out, cd)
	}
	return out
}
