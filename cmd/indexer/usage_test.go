package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
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
		{name: "serve allow-host with a scheme", args: []string{"serve", "--allow-host", "https://docs.example.com", "--artifacts", empty},
			code: exitUsage, want: []string{`--allow-host "https://docs.example.com"`, "without a scheme, port or path"}, avoid: []string{"listen tcp"}},
		{name: "serve trusted-proxy not an address", args: []string{"serve", "--trusted-proxy", "ingress.local", "--artifacts", empty},
			code: exitUsage, want: []string{`--trusted-proxy "ingress.local"`, "10.0.8.0/24"}, avoid: []string{"listen tcp"}},
		{name: "serve trusted-proxy of every address", args: []string{"serve", "--trusted-proxy", "0.0.0.0/0", "--artifacts", empty},
			code: exitUsage, want: []string{`--trusted-proxy "0.0.0.0/0" trusts every address`}, avoid: []string{"listen tcp"}},
		{name: "serve trusted-proxy-header unknown", args: []string{"serve", "--trusted-proxy", "10.0.0.7", "--trusted-proxy-header", "X-Real-IP", "--artifacts", empty},
			code: exitUsage, want: []string{`--trusted-proxy-header "X-Real-IP"`, "X-Forwarded-For or Forwarded"}, avoid: []string{"listen tcp"}},
		{name: "serve negative auth-guesses", args: []string{"serve", "--auth-guesses", "-1", "--artifacts", empty},
			code: exitUsage, want: []string{"--auth-guesses must be >= 0"}, avoid: []string{"listen tcp"}},
		{name: "serve allow-host with a port", args: []string{"serve", "--allow-host", "docs.example.com:8080", "--artifacts", empty},
			code: exitUsage, want: []string{`--allow-host "docs.example.com:8080"`}, avoid: []string{"listen tcp"}},
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
	// The help's example question, asked of the fixtures it names.
	example := questionsFormat[strings.LastIndex(questionsFormat, "\n  {")+3:]
	helpExample := write("example.jsonl", example+"\n")
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
		{name: "the help's example answered first", args: []string{"eval", "--artifacts", out, "--questions", helpExample},
			code: exitOK, want: []string{"/acme/cli                            1.000     1.000     1.000"}},
		{name: "help", args: []string{"eval", "--help"},
			code: exitOK, want: []string{"JSON Lines", `"query"`, `"expected"`}, avoid: []string{"shared/eval", "dev.jsonl"}},
	})
}

// TestCommandHelp: every command's help, by --help or by 'indexer help
// CMD', ends with examples whose flags are the command's own, and has a
// Flags: heading only when there are flags.
func TestCommandHelp(t *testing.T) {
	commands := []string{"build", "verify", "push", "pull", "search", "eval", "serve", "token", "route", "context", "healthcheck", "version"}
	flagLine := regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9_.-]*)`)
	for _, cmd := range commands {
		t.Run(cmd, func(t *testing.T) {
			code, help, stderr := runCLI(t, cmd, "--help")
			if code != exitOK || stderr != "" {
				t.Fatalf("indexer %s --help: exit %d, stderr %q", cmd, code, stderr)
			}
			if code, viaHelp, stderr := runCLI(t, "help", cmd); code != exitOK || stderr != "" || viaHelp != help {
				t.Errorf("indexer help %s: exit %d, stderr %q, output differs from --help's:\n%s", cmd, code, stderr, viaHelp)
			}
			body, examples, ok := strings.Cut(help, "\nExamples:\n")
			if !ok {
				t.Fatalf("indexer %s --help has no examples:\n%s", cmd, help)
			}
			flags := map[string]bool{}
			if _, list, ok := strings.Cut(body, "\nFlags:\n"); ok {
				for _, m := range flagLine.FindAllStringSubmatch(list, -1) {
					flags[m[1]] = true
				}
				if len(flags) == 0 {
					t.Errorf("indexer %s --help has an empty Flags: heading:\n%s", cmd, help)
				}
			}
			n := 0
			for _, line := range strings.Split(strings.TrimRight(examples, "\n"), "\n") {
				ex, ok := strings.CutPrefix(line, "  indexer "+cmd)
				if !ok {
					t.Errorf("indexer %s --help: example %q is not an indexer %s command line", cmd, line, cmd)
					continue
				}
				n++
				// The flags of this command, up to a shell operator.
				for _, w := range strings.Fields(ex) {
					if w == "&&" || w == "|" || w == ">" || w == "<" {
						break
					}
					if name, ok := strings.CutPrefix(w, "-"); ok && name != "" {
						name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
						if !flags[name] {
							t.Errorf("indexer %s --help: example %q gives --%s, which is no flag of the command", cmd, line, name)
						}
					}
				}
			}
			if n == 0 || n > 3 {
				t.Errorf("indexer %s --help has %d examples, want one to three", cmd, n)
			}
		})
	}
}

// TestFlagErrors: a bad flag prints its error and where the help is, not
// the whole help; values out of range are refused with the range.
func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"build", "--nope"},
		{"push", "oci://127.0.0.1:1/docs", "--nope"},
		{"verify", "--nope"},
		{"version", "--nope"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		want := "flag provided but not defined: -nope\nRun 'indexer " + args[0] + " --help' for usage.\n"
		if code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("indexer %s: exit %d, stdout %q, stderr %q; want exit 2 and stderr %q", strings.Join(args, " "), code, stdout, stderr, want)
		}
	}
	checkUsage(t, []usageCase{
		{name: "help of an unknown command", args: []string{"help", "frobnicate"}, code: exitUsage, want: []string{`unknown command "frobnicate"`}},
		{name: "help of two commands", args: []string{"help", "build", "push"}, code: exitUsage, want: []string{"give one command"}},
		{name: "help of help", args: []string{"help", "help"}, code: exitOK, want: []string{"indexer help COMMAND"}},
		{name: "duration without a unit", args: []string{"build", "--fetch-timeout", "5"},
			code: exitUsage, want: []string{"-fetch-timeout", "needs a unit", "5s", "5m"}, avoid: []string{"parse error", "Usage:"}},
		{name: "not a duration", args: []string{"healthcheck", "--timeout", "soon"},
			code: exitUsage, want: []string{"not a duration", "30s"}, avoid: []string{"parse error"}},
		{name: "duration of serve", args: []string{"serve", "--reload-interval", "2"},
			code: exitUsage, want: []string{"needs a unit"}},
		{name: "jobs negative", args: []string{"build", "--jobs", "-1"}, code: exitUsage, want: []string{"--jobs -1", "at least 1, or 0 for one per CPU"}},
		{name: "list-jobs negative", args: []string{"build", "--list-jobs", "-3"}, code: exitUsage, want: []string{"--list-jobs -3", "at least 1"}},
		{name: "list-jobs zero", args: []string{"build", "--list-jobs", "0"}, code: exitUsage, want: []string{"--list-jobs 0", "at least 1"}},
		{name: "per-host zero", args: []string{"build", "--per-host", "0"}, code: exitUsage, want: []string{"--per-host 0", "at least 1"}},
		{name: "fetch-timeout zero", args: []string{"build", "--fetch-timeout", "0s"}, code: exitUsage, want: []string{"--fetch-timeout 0s", "positive"}},
		{name: "search says what is required", args: []string{"search", "--help"}, code: exitOK,
			want: []string{"what to look for (required, unless --topics is given)"}},
		{name: "durations keep their type in help", args: []string{"serve", "--help"}, code: exitOK,
			want: []string{"  -reload-interval duration\n", "a duration with a unit (30s, 5m)"}},
	})
}

// TestTokenFlags: token's errors speak of its flags, say what a pattern
// looks like, and refuse a pattern no library id can match (the access
// policy's own check, access.CheckPattern).
func TestTokenFlags(t *testing.T) {
	internal := []string{"invalid access policy", "the new entry", "token \"ci\":"}
	checkUsage(t, []usageCase{
		{name: "no leading slash", args: []string{"token", "--name", "ci", "--library", "acme"},
			code: exitUsage, want: []string{`--library "acme"`, "/org/project", "/acme/*"}, avoid: internal},
		{name: "space in org", args: []string{"token", "--name", "ci", "--library", "/a b/c"},
			code: exitUsage, want: []string{`--library "/a b/c"`, `no library id can match "a b"`, "/acme/*"}, avoid: internal},
		{name: "dot first", args: []string{"token", "--name", "ci", "--library", "/acme/.*"},
			code: exitUsage, want: []string{`no library id can match ".*"`}, avoid: internal},
		{name: "three segments", args: []string{"token", "--name", "ci", "--library", "/acme/docs/v1"},
			code: exitUsage, want: []string{"/org/project"}, avoid: internal},
		{name: "rate zero", args: []string{"token", "--name", "ci", "--library", "/acme/*", "--rate", "0"},
			code: exitUsage, want: []string{"--rate 0", "above 0"}, avoid: internal},
		{name: "rate negative", args: []string{"token", "--name", "ci", "--library", "/acme/*", "--rate", "-1"},
			code: exitUsage, want: []string{"--rate -1"}, avoid: internal},
		{name: "patterns", args: []string{"token", "--name", "ci", "--library", "/acme/*", "--library", "/*/*", "--library", "/Vercel/next*.js", "--library", " /acme/x "},
			code: exitOK, want: []string{`libraries: ["/acme/*", "/*/*", "/Vercel/next*.js", "/acme/x"]`}},
	})
}

// TestRouteReportsEveryFile: route names every file it writes, the
// groups' configs beside the user's included, and says which ones it
// overwrote, and that the replicas should trust the proxy.
func TestRouteReportsEveryFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "codex7.yaml")
	if err := os.WriteFile(cfg, []byte("libraries:\n  - id: /acme/one\n    repo: https://example.com/acme/one.git\n  - id: /acme/two\n    repo: https://example.com/acme/two.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r1")
	files := []string{filepath.Join(out, "haproxy.cfg"), filepath.Join(out, "libraries.map"), filepath.Join(dir, "codex7.a.yaml"), filepath.Join(dir, "codex7.b.yaml")}
	var fresh, again []string
	for _, f := range files {
		fresh = append(fresh, "wrote "+f+"\n")
		again = append(again, "wrote "+f+" (overwriting the one there)\n")
	}
	args := []string{"route", "--groups", "a,b", "--config", cfg, "--out", out}
	checkUsage(t, []usageCase{
		{name: "first", args: args, code: exitOK, want: append(fresh, "--trusted-proxy"), avoid: []string{"overwriting"}},
		{name: "again", args: args, code: exitOK, want: again},
	})
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("route reported %s: %v", f, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 { // codex7.yaml, the two groups' and r1
		t.Errorf("route wrote files it did not report: %v", entries)
	}
}

// TestRegistryReferences: a reference the registry would refuse says
// what a valid one looks like, and pull's --artifacts must be a directory
// or absent; both are found before any network access.
func TestRegistryReferences(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dist")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	checkUsage(t, []usageCase{
		{name: "uppercase repository", args: []string{"push", "--artifacts", dist, "oci://127.0.0.1:1/X"},
			code: exitUsage, want: []string{`repository "X" is not allowed`, "lowercase", "did you mean oci://127.0.0.1:1/x?"}},
		{name: "empty tag", args: []string{"push", "--artifacts", dist, "oci://127.0.0.1:1/x:"},
			code: exitUsage, want: []string{"the tag after ':' is empty"}},
		{name: "empty tag on pull", args: []string{"pull", "--artifacts", dist, "oci://127.0.0.1:1/x:"},
			code: exitUsage, want: []string{"the tag after ':' is empty"}},
		{name: "pull into a file", args: []string{"pull", "--artifacts", file, "oci://127.0.0.1:1/docs"},
			code: exitUsage, want: []string{"--artifacts " + file + ": not a directory"}, avoid: []string{"unreachable"}},
		{name: "pull into a file, missing ok", args: []string{"pull", "--missing-ok", "--artifacts", file, "oci://127.0.0.1:1/docs"},
			code: exitUsage, want: []string{"not a directory"}},
		{name: "pull into a new directory still asks the registry", args: []string{"pull", "--artifacts", filepath.Join(dist, "new"), "oci://127.0.0.1:1/docs"},
			code: exitFailed, want: []string{"unreachable"}},
	})
}

// TestRouteWarnsOfAnEmptyGroup: one library split across two groups
// leaves a group with none, whose config indexer build refuses; route says
// so, and which group, when it writes it.
func TestRouteWarnsOfAnEmptyGroup(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "codex7.yaml")
	if err := os.WriteFile(cfg, []byte("libraries:\n  - id: /acme/one\n    repo: https://example.com/acme/one.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "route", "--groups", "a,b", "--config", cfg, "--out", filepath.Join(dir, "r"))
	if code != exitOK {
		t.Fatalf("route: exit %d\n%s%s", code, stdout, stderr)
	}
	empty := "a"
	if strings.Contains(stdout, "group a: 1 libraries") {
		empty = "b"
	}
	if !strings.Contains(stderr, "group "+empty+" gets no library") || strings.Count(stderr, "gets no library") != 1 {
		t.Errorf("route did not warn of group %s alone:\n%s", empty, stderr)
	}
}
