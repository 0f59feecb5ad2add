package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/codex7/codex7/access"
)

func runToken(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("token --name NAME --library PATTERN... [--rate N]", `Makes a bearer token for 'indexer serve --auth FILE'. It prints the token
once, on the first line (give it to the client: Authorization: Bearer
TOKEN, or CONTEXT7_API_KEY for Context7's clients), then the entry to add
to FILE under "tokens:", which keeps only the token's SHA-256: the token
itself is stored nowhere. SIGHUP makes a running server reread FILE.

A pattern is a library id with * for any org or project: /acme/* or
/vercel/next.js; /*/* is every library.`, stdout, stderr,
		"indexer token --name ci-bot --library '/acme/*' --library /vercel/next.js",
		"indexer token --name dashboards --library '/*/*' --rate 5")
	name := fs.String("name", "", "the token's name in logs and audit lines (required)")
	var libs listFlag
	fs.Var(&libs, "library", "a library id pattern the token may read; repeat for more (required)")
	rate := fs.Float64("rate", access.DefaultRate, "requests per second")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	if strings.TrimSpace(*name) == "" || len(libs) == 0 {
		fmt.Fprintln(stderr, "indexer token: give --name and at least one --library, e.g. --name ci --library '/acme/*'")
		return exitUsage
	}
	// Said in the flags' terms here; the policy's own check below would
	// name a line of an entry the user never wrote.
	for i, l := range libs {
		libs[i] = strings.TrimSpace(l)
		if _, err := access.CheckPattern(libs[i]); err != nil {
			fmt.Fprintf(stderr, "indexer token: --library %q: %v\n", l, err)
			return exitUsage
		}
	}
	if !(*rate > 0) || math.IsInf(*rate, 0) {
		fmt.Fprintf(stderr, "indexer token: --rate %v: give the requests per second the token may make, above 0 (default %d)\n", *rate, access.DefaultRate)
		return exitUsage
	}
	tok, err := access.NewToken()
	if err != nil {
		fmt.Fprintf(stderr, "indexer token: %v\n", err)
		return exitFailed
	}
	quoted := make([]string, len(libs))
	for i, l := range libs {
		quoted[i] = strconv.Quote(l)
	}
	entry := fmt.Sprintf("  - name: %s\n    sha256: %s\n    libraries: [%s]\n", strconv.Quote(*name), access.HashToken(tok), strings.Join(quoted, ", "))
	if *rate != access.DefaultRate {
		entry += fmt.Sprintf("    rate: %v\n", *rate)
	}
	// The entry must load: check it before anyone pastes it.
	if _, err := access.Parse(strings.NewReader("tokens:\n"+entry), "the new entry"); err != nil {
		fmt.Fprintf(stderr, "indexer token: the entry for these flags would not load in an --auth file: %v\n", err)
		return exitUsage
	}
	fmt.Fprintln(stdout, tok)
	fmt.Fprint(stdout, entry)
	return exitOK
}
