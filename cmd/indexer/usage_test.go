package main

import (
	"strings"
	"testing"
)

// usageCase is a command line that must exit with code and say want (on
// stdout or stderr) and none of avoid.
type usageCase struct {
	name  string
	args  []string
	code  int
	want  []string
	avoid []string
}

// checkUsage runs each case in-process.
func checkUsage(t *testing.T, cases []usageCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			out := stdout + stderr
			if code != c.code {
				t.Errorf("indexer %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("indexer %s: output lacks %q:\n%s", strings.Join(c.args, " "), w, out)
				}
			}
			for _, a := range c.avoid {
				if strings.Contains(out, a) {
					t.Errorf("indexer %s: output has %q:\n%s", strings.Join(c.args, " "), a, out)
				}
			}
		})
	}
}

// TestServeStdioAndHTTP: the usage says (--stdio | --http ADDR); both is a
// usage error naming the two flags, not a stdio server that ignores
// --http.
func TestServeStdioAndHTTP(t *testing.T) {
	checkUsage(t, []usageCase{
		{name: "both", args: []string{"serve", "--stdio", "--http", "127.0.0.1:18092", "--artifacts", t.TempDir()},
			code: exitUsage, want: []string{"--stdio", "--http", "not both"}},
		{name: "http first", args: []string{"serve", "--http", "127.0.0.1:18092", "--stdio"},
			code: exitUsage, want: []string{"not both"}},
	})
}
