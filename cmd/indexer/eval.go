package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("eval --questions FILE.jsonl [flags]", `Asks every question of an evaluation file (one JSON object a line, as in
../shared/eval: library, query, expected sections) and prints recall@1,
recall@5 and MRR@10 per library, per kind of question and overall. A hit
is a returned section whose path (or the file an include brought it
from) and heading match an expected one.
"in docs" is the share of questions whose get-library-docs answer (the
question as its query, at --tokens) holds an answering section: what an
agent reading that answer gets, whatever the section's rank.
--misses lists every question not answered first: its answers, and what
ranked above them.`, stdout, stderr)
	dir := fs.String("artifacts", "dist", "artifact directory")
	file := fs.String("questions", "", "evaluation file (.jsonl), required")
	asJSON := fs.Bool("json", false, "print the report as JSON (misses included)")
	budget := fs.Int("tokens", request.DefaultTokens, "token budget of the get-library-docs answers \"in docs\" looks in")
	misses := fs.Bool("misses", false, "list the questions not answered first, with what ranked above their answers")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	if *file == "" {
		fmt.Fprintln(stderr, "indexer eval: --questions FILE.jsonl is required (e.g. ../shared/eval/dev.jsonl)")
		return exitUsage
	}
	f, err := os.Open(*file)
	if err != nil {
		fmt.Fprintf(stderr, "indexer eval: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	qs, err := search.ReadQuestions(f)
	if err != nil {
		fmt.Fprintf(stderr, "indexer eval: %s: %v\n", *file, err)
		return exitUsage
	}
	engine, err := search.Open(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "indexer eval: %v (run 'indexer build' first?)\n", err)
		return exitUsage
	}
	defer engine.Close()
	rep, err := search.Evaluate(ctx, engine, qs, *budget)
	if err != nil {
		fmt.Fprintf(stderr, "indexer eval: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		rep.Format(stdout, *misses)
	}
	if rep.Overall.Errors > 0 {
		fmt.Fprintf(stderr, "%d questions could not be searched (unknown library or version?)\n", rep.Overall.Errors)
		return exitFailed
	}
	return exitOK
}
