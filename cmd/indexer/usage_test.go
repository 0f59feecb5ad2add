package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
			t.Logf("indexer %s: exit %d\n%s", strings.Join(c.args, " "), code, out)
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

// TestUsageErrorsExit2 checks that a flag or argument naming something
// that cannot work (a missing directory, a file for a directory, an
// address or URL that names no server, a bad tag) is bad usage, exit 2,
// with a message saying what to give instead, and found before anything
// runs: no warning logged first, no registry contacted.
func TestUsageErrorsExit2(t *testing.T) {
	file := filepath.Join(t.TempDir(), "codex7.yaml")
	if err := os.WriteFile(file, []byte("libraries: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	checkUsage(t, []usageCase{
		{name: "push missing artifacts", args: []string{"push", "--artifacts", "/nonexist", "oci://127.0.0.1:1/docs"},
			code: exitUsage, want: []string{"--artifacts /nonexist: no such directory", "indexer build --out /nonexist", "give the right --artifacts"}},
		{name: "push artifacts a file", args: []string{"push", "--artifacts", file, "oci://127.0.0.1:1/docs"},
			code: exitUsage, want: []string{"not a directory", "artifact directory"}},
		{name: "push artifacts without a build", args: []string{"push", "--artifacts", empty, "oci://127.0.0.1:1/docs"},
			code: exitUsage, want: []string{"holds no build", "indexer build --out " + empty}},
		{name: "push bad tag", args: []string{"push", "--artifacts", empty, "--tag", "bad tag", "oci://127.0.0.1:1/docs"},
			code: exitUsage, want: []string{`--tag`, `"bad tag"`, "letters, digits"}, avoid: []string{"unreachable"}},
		{name: "verify a file", args: []string{"verify", file},
			code: exitUsage, want: []string{"not a directory", "must be an artifact directory"}, avoid: []string{"BAD"}},
		{name: "verify missing", args: []string{"verify", "/nonexist"},
			code: exitUsage, want: []string{"no such directory", "indexer build --out /nonexist"}},
		{name: "verify empty", args: []string{"verify", empty},
			code: exitFailed, want: []string{"BAD catalog.json", "holds no build", "indexer build --out " + empty}},
		{name: "serve http not host port", args: []string{"serve", "--http", "nonsense", "--artifacts", empty},
			code: exitUsage, want: []string{`--http "nonsense"`, "HOST:PORT"}, avoid: []string{"serving every library", "listen tcp"}},
		{name: "serve http port out of range", args: []string{"serve", "--http", ":99999", "--artifacts", empty},
			code: exitUsage, want: []string{`port "99999"`, "0 to 65535"}, avoid: []string{"serving every library", "listen tcp"}},
		{name: "serve http port not a number", args: []string{"serve", "--http", "127.0.0.1:http", "--artifacts", empty},
			code: exitUsage, want: []string{"0 to 65535"}},
		{name: "healthcheck not a URL", args: []string{"healthcheck", "notaurl"},
			code: exitUsage, want: []string{`"notaurl" is not an http:// or https:// URL`, "http://127.0.0.1:8080/readyz"}, avoid: []string{"unsupported protocol"}},
		{name: "healthcheck other scheme", args: []string{"healthcheck", "ftp://127.0.0.1/readyz"},
			code: exitUsage, want: []string{"http:// or https://"}},
		{name: "healthcheck no host", args: []string{"healthcheck", "http:///readyz"},
			code: exitUsage, want: []string{"with a host"}},
	})
}

// TestServePortInUse: a port another server holds is a failure to serve
// (exit 1), said as such with what to do, not as the socket's error alone.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	checkUsage(t, []usageCase{
		{name: "in use", args: []string{"serve", "--http", addr, "--artifacts", t.TempDir(), "--memory-limit-mib", "0", "--reload-interval", "0"},
			code: exitFailed, want: []string{"--http " + addr, "the port is in use", "choose another --http address", "stop the other server"}},
	})
	if _, stdout, _ := runCLI(t, "help"); !strings.Contains(strings.Join(strings.Fields(stdout), " "), "serve could not start serving (its --http port in use") {
		t.Errorf("indexer help does not say serve exits 1 when it cannot start serving:\n%s", stdout)
	}
}

// TestUsageErrorsWithArtifacts checks the usage errors found against a
// built dist: a query longer than a request may be, and a push whose tag
// is bad, refused before the registry sees a request.
func TestUsageErrorsWithArtifacts(t *testing.T) {
	out, _ := contextFixtures(t)
	var requests atomic.Int64
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer reg.Close()
	host := strings.TrimPrefix(reg.URL, "http://")
	checkUsage(t, []usageCase{
		{name: "search query too long", args: []string{"search", "--artifacts", out, "--library", "/acme/cli", "--query", strings.Repeat("x", 6000)},
			code: exitUsage, want: []string{"the query is 6000 bytes, at most"}},
		{name: "push bad tag", args: []string{"push", "--artifacts", out, "--tag", "v1", "--tag", "bad tag", "oci://" + host + "/codex7/docs"},
			code: exitUsage, want: []string{`"bad tag"`}},
		{name: "push bad tag after the reference", args: []string{"push", "--artifacts", out, "oci://" + host + "/codex7/docs", "--tag", "-v1"},
			code: exitUsage, want: []string{`"-v1"`}},
	})
	if n := requests.Load(); n != 0 {
		t.Errorf("the registry got %d requests from pushes with a bad tag, want none", n)
	}
}

// TestEvalQuestions: an evaluation file without questions is bad usage,
// not a table of zeros; questions that cannot be searched name their
// libraries (a few, then how many more); help and errors describe the
// file's format instead of a path on the maintainers' machines.
func TestEvalQuestions(t *testing.T) {
	out, _ := contextFixtures(t)
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	question := func(lib string) string {
		return `{"library":"` + lib + `","query":"log in","expected":[{"path":"fixtures/docs/acme-cli/index.mdx","heading":"Log in"}]}` + "\n"
	}
	empty := write("empty.jsonl", "")
	blank := write("blank.jsonl", "\n  \n")
	unknown := write("unknown.jsonl", question("/acme/cli")+question("/acme/nope")+question("/acme/nope")+question("/acme/cli@v9"))
	many := write("many.jsonl", question("/a/one")+question("/a/two")+question("/a/three")+question("/a/four")+question("/a/five"))
	checkUsage(t, []usageCase{
		{name: "empty file", args: []string{"eval", "--artifacts", out, "--questions", empty},
			code: exitUsage, want: []string{empty + " holds no questions", "JSON Lines", `"expected"`}, avoid: []string{"overall"}},
		{name: "blank lines only", args: []string{"eval", "--artifacts", out, "--questions", blank},
			code: exitUsage, want: []string{"holds no questions"}},
		{name: "unknown libraries named", args: []string{"eval", "--artifacts", out, "--questions", unknown},
			code: exitFailed, want: []string{"3 questions could not be searched", "/acme/nope (2 questions): library not found", "/acme/cli@v9 (1 question): version not found"}},
		{name: "a few named, then how many more", args: []string{"eval", "--artifacts", out, "--questions", many},
			code: exitFailed, want: []string{"5 questions could not be searched", "/a/five (1 question)", "/a/four (1 question)", "/a/one (1 question)", "and 2 more libraries"}, avoid: []string{"/a/two (", "/a/three ("}},
		{name: "questions missing", args: []string{"eval", "--artifacts", out},
			code: exitUsage, want: []string{"--questions FILE.jsonl is required", "JSON Lines", `"library"`}, avoid: []string{"shared/eval", "dev.jsonl"}},
		{name: "help", args: []string{"eval", "--help"},
			code: exitOK, want: []string{"JSON Lines", `"query"`, `"expected"`}, avoid: []string{"shared/eval", "dev.jsonl"}},
	})
}
