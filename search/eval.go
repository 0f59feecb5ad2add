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
)

// Question is one line of an evaluation file (../shared/eval format).
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
	// Errors counts questions whose search failed (unknown library…).
	Errors int `json:"errors"`
}

// Report is an evaluation's outcome, per library and overall.
type Report struct {
	Libraries map[string]Scores `json:"libraries"`
	Overall   Scores            `json:"overall"`
}

// Evaluate asks every question of the engine and scores the top 10: a hit
// is a returned section (or chunk of one) whose path and heading (as
// written, or without its MDX anchor comment) match an expected one.
func Evaluate(ctx context.Context, e *Engine, qs []Question) (*Report, error) {
	type acc struct {
		n, r1, r5, errs int
		rr              float64
	}
	per := map[string]*acc{}
	all := &acc{}
	for _, q := range qs {
		rank, err := rankOf(ctx, e, q)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		a := per[q.Library]
		if a == nil {
			a = &acc{}
			per[q.Library] = a
		}
		for _, x := range []*acc{a, all} {
			x.n++
			switch {
			case err != nil:
				x.errs++
			case rank > 0:
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
		return Scores{Questions: a.n, RecallAt1: float64(a.r1) / n, RecallAt5: float64(a.r5) / n, MRRAt10: a.rr / n, Errors: a.errs}
	}
	rep := &Report{Libraries: map[string]Scores{}, Overall: score(all)}
	for lib, a := range per {
		rep.Libraries[lib] = score(a)
	}
	return rep, nil
}

// rankOf returns the 1-based rank of the first answering section in the
// top 10, or 0.
func rankOf(ctx context.Context, e *Engine, q Question) (int, error) {
	res, err := e.Search(ctx, Request{Library: q.Library, Query: q.Query, Limit: 10})
	if err != nil {
		return 0, err
	}
	for i, h := range res.Hits {
		for _, x := range q.Expected {
			if h.Path == x.Path && (h.Heading == x.Heading || h.Heading == x.HeadingNorm || h.Title == x.HeadingNorm) {
				return i + 1, nil
			}
		}
	}
	return 0, nil
}

// Format writes the report as a table, libraries sorted.
func (r *Report) Format(w io.Writer) {
	libs := make([]string, 0, len(r.Libraries))
	for l := range r.Libraries {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	fmt.Fprintf(w, "%-32s %9s %9s %9s %8s\n", "library", "recall@1", "recall@5", "MRR@10", "questions")
	row := func(name string, s Scores) {
		fmt.Fprintf(w, "%-32s %9.3f %9.3f %9.3f %8d", name, s.RecallAt1, s.RecallAt5, s.MRRAt10, s.Questions)
		if s.Errors > 0 {
			fmt.Fprintf(w, "  (%d failed)", s.Errors)
		}
		fmt.Fprintln(w)
	}
	for _, l := range libs {
		row(l, r.Libraries[l])
	}
	row("overall", r.Overall)
}
