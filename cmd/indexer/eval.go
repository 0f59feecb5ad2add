package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("eval --questions FILE.jsonl [flags]", `Asks every question of an evaluation file and prints recall@1, recall@5
and MRR@10 per library, per kind of question and overall.

`+questionsFormat+`

A hit is a returned section whose path (or the file an include brought
it from) and heading match an expected one. "in docs" is the share of
questions whose get-library-docs answer (the question as its query, at
--tokens) holds an answering section: what an agent reading that answer
gets, whatever the section's rank. --misses lists every question not
answered first: its answers, and what ranked above them.`, stdout, stderr,
		"indexer eval --questions questions.jsonl --misses",
		"indexer eval --questions questions.jsonl --artifacts dist --json > report.json")
	dir := fs.String("artifacts", "dist", "artifact directory")
	file := fs.String("questions", "", "evaluation file, JSON Lines: one question a line (see above), required")
	asJSON := fs.Bool("json", false, "print the report as JSON (misses included)")
	budget := fs.Int("tokens", request.DefaultTokens, "token budget of the get-library-docs answers \"in docs\" looks in")
	misses := fs.Bool("misses", false, "list the questions not answered first, with what ranked above their answers")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	if *file == "" {
		fmt.Fprintf(stderr, "indexer eval: --questions FILE.jsonl is required.\n\n%s\n", questionsFormat)
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
	if len(qs) == 0 {
		// Scores over no questions are all zero, which reads as a result.
		fmt.Fprintf(stderr, "indexer eval: %s holds no questions.\n\n%s\n", *file, questionsFormat)
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
		fmt.Fprintf(stderr, "indexer eval: %d questions could not be searched:\n", rep.Overall.Errors)
		for _, line := range unsearched(rep) {
			fmt.Fprintf(stderr, "  %s\n", line)
		}
		return exitFailed
	}
	return exitOK
}

// questionsFormat says what an evaluation file holds, for eval's help and
// errors.
const questionsFormat = `The file is JSON Lines, one question a line: a JSON object with the
library it is about, the query, and the expected sections that answer it
(each the file's path in the repository and the heading as written), and
optionally its kind (howto, api, concept, troubleshoot, code), e.g., for
the bundled fixtures (an MDX heading keeps its {/*id*/} as written):

  {"library": "/acme/cli", "query": "log in from a browser", "expected": [{"path": "fixtures/docs/acme-cli/index.mdx", "heading": "Log in {/*log-in*/}"}]}`

// unsearchedShown is how many libraries unsearched names before "and N
// more".
const unsearchedShown = 3

// unsearched names the libraries (as the questions write them, version
// included) of rep whose questions could not be searched, one a line with
// its count of questions and the first error: a few of them, then a line
// saying how many more.
func unsearched(rep *search.Report) []string {
	var libs []string
	for lib, s := range rep.Libraries {
		if s.Errors > 0 {
			libs = append(libs, lib)
		}
	}
	sort.Strings(libs)
	why := map[string]string{}
	for _, m := range rep.Misses {
		if m.Err != "" && why[m.Library] == "" {
			why[m.Library] = m.Err
		}
	}
	var lines []string
	for i, lib := range libs {
		if i == unsearchedShown {
			lines = append(lines, fmt.Sprintf("and %d more libraries", len(libs)-i))
			break
		}
		line := fmt.Sprintf("%s (%s)", lib, plural(rep.Libraries[lib].Errors, "question"))
		if w := why[lib]; w != "" {
			line += ": " + w
		}
		lines = append(lines, line)
	}
	return lines
}

// plural returns "1 question", "2 questions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
