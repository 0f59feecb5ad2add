package search

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/request"
)

// Question is one line of an evaluation file (JSON Lines): a question
// asked of a library, the sections that answer it and, optionally, the
// kind of question (howto, api, concept, troubleshoot, code), by which
// Evaluate also reports.
type Question struct {
	Library  string     `json:"library"`
	Query    string     `json:"query"`
	Expected []Expected `json:"expected"`
	Kind     string     `json:"kind,omitempty"`
}

// Expected is a section that answers a question.
type Expected struct {
	Path        string `json:"path"`
	Heading     string `json:"heading"`
	HeadingNorm string `json:"heading_norm"`
	Level       int    `json:"level"`
	Line        int    `json:"line"`
}

// ReadQuestions parses an evaluation file, one JSON object a line.
func ReadQuestions(r io.Reader) ([]Question, error) {
	var qs []Question
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q Question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if q.Library == "" || q.Query == "" || len(q.Expected) == 0 {
			return nil, fmt.Errorf("line %d: a question needs library, query and expected", n)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

// Scores are retrieval figures over a set of questions.
type Scores struct {
	Questions int     `json:"questions"`
	RecallAt1 float64 `json:"recall_at_1"`
	RecallAt5 float64 `json:"recall_at_5"`
	MRRAt10   float64 `json:"mrr_at_10"`
	// InDocs is the share of questions whose get-library-docs answer (the
	// question as its query, at the report's budget) holds an answering
	// section, whole or trimmed: what an agent that reads the answer
	// through gets, whatever the section's rank.
	InDocs float64 `json:"in_docs"`
	// Errors counts questions whose search failed (unknown library…).
	Errors int `json:"errors"`
}

// Report is an evaluation's outcome, per library, per kind of question
// and overall, with every question not answered first.
type Report struct {
	// Budget is the token budget of the get-library-docs answers InDocs
	// looks in.
	Budget    int               `json:"budget"`
	Libraries map[string]Scores `json:"libraries"`
	// Kinds holds the figures per question kind (howto, api, concept,
	// troubleshoot, code; "" for questions without one).
	Kinds   map[string]Scores `json:"kinds"`
	Overall Scores            `json:"overall"`
	// Misses are the questions whose first hit does not answer them, in
	// the file's order: what ranked first, and where an answer did.
	Misses []Miss `json:"misses,omitempty"`
}

// Miss is a question whose first hit was not an answer.
type Miss struct {
	Library string `json:"library"`
	Kind    string `json:"kind,omitempty"`
	Query   string `json:"query"`
	// Rank is the 1-based rank of the first answer in the top 10, 0 when
	// none is there.
	Rank int `json:"rank"`
	// InDocs says the get-library-docs answer holds an answer all the
	// same (see Scores.InDocs).
	InDocs bool `json:"in_docs"`
	// Expected are the answers, as "path#heading".
	Expected []string `json:"expected"`
	// Top are the hits ranked above the answer (the top 5 when none is in
	// the top 10), as "path#heading".
	Top []string `json:"top"`
	// Err is why the question could not be searched.
	Err string `json:"error,omitempty"`
}

// Evaluate asks every question of the engine and scores the top 10: a hit
// is a returned section (or chunk of one, or an entry of one: see
// answers) whose path, or the file an include brought it from
// (Meta.Source), and heading (as written, or without its MDX anchor
// comment) match an expected one. It
// also asks get-library-docs for each question at budget tokens
// (request.DefaultTokens when 0) and counts the answers that hold an
// answering section (Scores.InDocs).
func Evaluate(ctx context.Context, e *Engine, qs []Question, budget int) (*Report, error) {
	if budget <= 0 {
		budget = request.DefaultTokens
	}
	type acc struct {
		n, r1, r5, docs, errs int
		rr                    float64
	}
	per, kinds := map[string]*acc{}, map[string]*acc{}
	group := func(m map[string]*acc, key string) *acc {
		a := m[key]
		if a == nil {
			a = &acc{}
			m[key] = a
		}
		return a
	}
	all := &acc{}
	var misses []Miss
	for _, q := range qs {
		rank, top, err := rankOf(ctx, e, q)
		inDocs := false
		if err == nil {
			inDocs, err = answeredInDocs(ctx, e, q, budget)
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		if rank != 1 {
			m := Miss{Library: q.Library, Kind: q.Kind, Query: q.Query, Rank: rank, InDocs: inDocs, Top: top}
			for _, x := range q.Expected {
				m.Expected = append(m.Expected, x.Path+"#"+x.Heading)
			}
			if err != nil {
				m.Err = err.Error()
			}
			misses = append(misses, m)
		}
		for _, x := range []*acc{group(per, q.Library), group(kinds, q.Kind), all} {
			x.n++
			if err != nil {
				x.errs++
				continue
			}
			if inDocs {
				x.docs++
			}
			if rank > 0 {
				if rank == 1 {
					x.r1++
				}
				if rank <= 5 {
					x.r5++
				}
				x.rr += 1 / float64(rank)
			}
		}
	}
	score := func(a *acc) Scores {
		if a.n == 0 {
			return Scores{}
		}
		n := float64(a.n)
		return Scores{Questions: a.n, RecallAt1: float64(a.r1) / n, RecallAt5: float64(a.r5) / n, MRRAt10: a.rr / n,
			InDocs: float64(a.docs) / n, Errors: a.errs}
	}
	rep := &Report{Budget: budget, Libraries: map[string]Scores{}, Kinds: map[string]Scores{}, Overall: score(all), Misses: misses}
	for lib, a := range per {
		rep.Libraries[lib] = score(a)
	}
	for kind, a := range kinds {
		rep.Kinds[kind] = score(a)
	}
	return rep, nil
}

// rankOf returns the 1-based rank of the first answering section in the
// top 10, or 0, and the hits ranked above it (the top 5 when it is not in
// the top 10), as "path#heading".
func rankOf(ctx context.Context, e *Engine, q Question) (int, []string, error) {
	res, err := e.Search(ctx, Request{Library: q.Library, Query: q.Query, Limit: 10})
	if err != nil {
		return 0, nil, err
	}
	var above []string
	for i, h := range res.Hits {
		if answers(&h.Meta, q) {
			return i + 1, above, nil
		}
		above = append(above, h.Path+"#"+h.Heading)
	}
	return 0, above[:min(5, len(above))], nil
}

// answeredInDocs reports whether get-library-docs, asked q's question at
// budget tokens, holds an answering section. The answer's sections carry
// no heading as written, so the answering sections are named by path and
// anchor from the search's hits: get-library-docs packs from the same
// ranking, cut at the same number of candidates, so an answering section
// it packs is among them.
func answeredInDocs(ctx context.Context, e *Engine, q Question, budget int) (bool, error) {
	res, err := e.Search(ctx, Request{Library: q.Library, Query: q.Query, Limit: maxCandidates})
	if err != nil {
		return false, err
	}
	want := map[[2]string]bool{}
	for _, h := range res.Hits {
		if answers(&h.Meta, q) {
			want[[2]string{h.Path, h.Anchor}] = true
		}
	}
	if len(want) == 0 {
		return false, nil
	}
	ans, err := e.Docs(ctx, DocsRequest{Library: q.Library, Query: q.Query, Tokens: budget})
	if err != nil {
		return false, err
	}
	for _, s := range ans.Sections {
		if want[[2]string{s.Path, s.Anchor}] {
			return true, nil
		}
	}
	return false, nil
}

// answers reports whether the section m answers q: its path and heading
// are those of an expected section, or it is a part of one. The path may
// be the file the section is written in (Meta.Source): questions name an
// AsciiDoc partial, which is not a page, where its text is. A section
// that is an entry of another (Meta.Within: a Sphinx object description,
// which the published page shows inside the section that holds it)
// counts as a chunk of that one, as a question names sections of the
// source, "or a chunk of that section" (../shared/eval/README.md).
func answers(m *index.Meta, q Question) bool {
	for _, x := range q.Expected {
		if m.Path != x.Path && m.Source != x.Path {
			continue
		}
		if sameHeading(m.Heading, m.Title, x) || (m.Within != "" && sameHeading(m.Within, "", x)) {
			return true
		}
	}
	return false
}

// sameHeading reports whether a section's heading as written in its
// markdown, or its title when not "", is the expected section's.
func sameHeading(heading, title string, x Expected) bool {
	return heading == x.Heading || heading == x.HeadingNorm || (title != "" && title == x.HeadingNorm) ||
		withoutAnchor(heading) == markdownLiterals(x.HeadingNorm)
}

// markdownLiterals writes a reStructuredText heading's inline literals
// (a word between doubled backticks) as the markdown code spans (single
// backticks) the rst reader renders them as in a section's title: the
// eval files quote headings as written in the source.
func markdownLiterals(heading string) string {
	return strings.ReplaceAll(heading, "``", "`")
}

// withoutAnchor drops the explicit anchor ("{#id}") a reader appends to a
// section's markdown heading.
func withoutAnchor(heading string) string {
	if i := strings.LastIndex(heading, " {#"); i >= 0 && strings.HasSuffix(heading, "}") {
		return heading[:i]
	}
	return heading
}

// Format writes the report as two tables, per library then per kind,
// each sorted, and with misses set every question not answered first.
func (r *Report) Format(w io.Writer, misses bool) {
	r.table(w, "library", r.Libraries)
	fmt.Fprintln(w)
	r.table(w, "kind", r.Kinds)
	fmt.Fprintf(w, "\nin docs: an answer is in get-library-docs' answer to the question at %d tokens\n", r.Budget)
	if !misses {
		return
	}
	for _, m := range r.Misses {
		docs := ""
		if m.InDocs {
			docs = ", in docs"
		}
		fmt.Fprintf(w, "\n%s [%s] rank %d%s: %s\n", m.Library, m.Kind, m.Rank, docs, m.Query)
		if m.Err != "" {
			fmt.Fprintf(w, "  error: %s\n", m.Err)
		}
		for _, x := range m.Expected {
			fmt.Fprintf(w, "  want %s\n", x)
		}
		for i, x := range m.Top {
			fmt.Fprintf(w, "  %2d   %s\n", i+1, x)
		}
	}
}

// table writes one table of figures by name, names sorted, then the
// overall row.
func (r *Report) table(w io.Writer, title string, by map[string]Scores) {
	names := make([]string, 0, len(by))
	for l := range by {
		names = append(names, l)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-32s %9s %9s %9s %8s %9s\n", title, "recall@1", "recall@5", "MRR@10", "in docs", "questions")
	row := func(name string, s Scores) {
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(w, "%-32s %9.3f %9.3f %9.3f %8.3f %9d", name, s.RecallAt1, s.RecallAt5, s.MRRAt10, s.InDocs, s.Questions)
		if s.Errors > 0 {
			fmt.Fprintf(w, "  (%d failed)", s.Errors)
		}
		fmt.Fprintln(w)
	}
	for _, l := range names {
		row(l, by[l])
	}
	row("overall", r.Overall)
}
