package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/waitfor"
)

// TestToken checks that indexer token prints a token and an entry that
// authenticates it, and refuses incomplete or bad requests.
func TestToken(t *testing.T) {
	code, out, errOut := runCLI(t, "token", "--name", "ci", "--library", "/acme/*", "--library", "/vercel/next.js", "--rate", "5")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	tok, entry, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(tok, "c7_") || strings.Contains(entry, tok) {
		t.Fatalf("output %q: want a token, then an entry without it", out)
	}
	for _, want := range []string{`name: "ci"`, `libraries: ["/acme/*", "/vercel/next.js"]`, "rate: 5"} {
		if !strings.Contains(entry, want) {
			t.Errorf("entry %q lacks %q", entry, want)
		}
	}
	for _, args := range [][]string{
		{"token", "--library", "/acme/*"},
		{"token", "--name", "ci"},
		{"token", "--name", "ci", "--library", "acme"},
		{"token", "--name", "ci", "--library", "/acme/*", "--rate", "0"},
	} {
		if code, out, errOut := runCLI(t, args...); code != exitUsage || out != "" || errOut == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing printed, a message", args, code, out, errOut)
		}
	}
}

// TestServeAuth runs the binary with --auth: requests need a token, see
// only its libraries, are audited to --audit-log, and SIGHUP revokes a
// token removed from the file (a broken file keeps the old policy); an
// address that sends too many unknown tokens is refused for a while, and
// behind a --trusted-proxy each client has its own budget.
func TestServeAuth(t *testing.T) {
	bin, out := serveFixtures(t)
	dir := t.TempDir()
	newToken := func(name, lib string) (tok, entry string) {
		t.Helper()
		msg, err := exec.Command(bin, "token", "--name", name, "--library", lib).Output()
		if err != nil {
			t.Fatal(err)
		}
		tok, entry, _ = strings.Cut(string(msg), "\n")
		return tok, entry
	}
	widgets, wEntry := newToken("widgets", "/acme/widgets")
	other, oEntry := newToken("other", "/*/*")
	authFile, auditFile := filepath.Join(dir, "tokens.yaml"), filepath.Join(dir, "audit.log")
	writeAuth := func(s string) {
		t.Helper()
		if err := os.WriteFile(authFile, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeAuth("tokens:\n" + wEntry + oEntry)

	for _, args := range [][]string{
		{"serve", "--stdio", "--auth", authFile, "--artifacts", out},
		{"serve", "--auth", filepath.Join(dir, "missing.yaml"), "--artifacts", out},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, "auth") {
			t.Errorf("%v: exit %d, %q; want 2 and a message about --auth", args, code, errOut)
		}
	}

	srv := startServer(t, bin, out, "--auth", authFile, "--audit-log", auditFile, "--auth-guesses", "3",
		"--trusted-proxy", "127.0.0.0/8", "--trusted-proxy", "::1")
	cmd, base, logs := srv.cmd, srv.base, srv.stderr
	waitReady(t, base)
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	search := "/api/v2/libs/search?libraryName=acme"
	if code, _ := get(search, ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, body := get(search, widgets); code != 200 || !strings.Contains(body, "/acme/widgets") || strings.Contains(body, "/acme/cli") {
		t.Errorf("widgets token: %d %s, want /acme/widgets only", code, body)
	}
	if code, body := get(search, other); code != 200 || !strings.Contains(body, "/acme/cli") {
		t.Errorf("token for every library: %d %s, want /acme/cli too", code, body)
	}

	// A broken file on SIGHUP keeps the policy in force.
	requireSignals(t)
	writeAuth("tokens: [")
	cmd.Process.Signal(syscall.SIGHUP)
	waitfor.True(t, 10*time.Second, "the server to log that the broken file was not loaded", func() bool {
		return strings.Contains(logs.String(), "access policy not reloaded")
	})
	if code, _ := get(search, widgets); code != 200 {
		t.Errorf("after SIGHUP with a broken file: %d, want the old policy kept", code)
	}
	// Removing a token and SIGHUP revokes it.
	writeAuth("tokens:\n" + oEntry)
	cmd.Process.Signal(syscall.SIGHUP)
	waitfor.True(t, 10*time.Second, "the removed token to be refused after SIGHUP", func() bool {
		code, _ := get(search, widgets)
		return code == http.StatusUnauthorized
	})
	if code, _ := get(search, other); code != 200 {
		t.Errorf("the kept token after SIGHUP: %d, want 200", code)
	}

	// The revoked token, sent again and again above, was one guess of the
	// three --auth-guesses allows; two other unknown tokens spend the
	// rest, and then even a known token is refused for a while.
	for _, guess := range []string{"c7_guess-1", "c7_guess-2"} {
		if code, body := get(search, guess); code != http.StatusUnauthorized {
			t.Fatalf("unknown token %s: %d %s, want 401", guess, code, body)
		}
	}
	if code, body := get(search, other); code != http.StatusTooManyRequests || !strings.Contains(body, "too many unknown tokens") {
		t.Errorf("a known token after three unknown ones: %d %s, want 429", code, body)
	}
	// The test is the trusted proxy (loopback): a client it names in
	// X-Forwarded-For has a budget of its own.
	req, _ := http.NewRequest("GET", base+search, nil)
	req.Header.Set("Authorization", "Bearer "+other)
	req.Header.Set("X-Forwarded-For", "203.0.113.5")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusOK {
		t.Errorf("a client behind the trusted proxy: %d, want 200", resp.StatusCode)
	}

	log, err := os.ReadFile(auditFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(log)
	if strings.Contains(text, widgets) || strings.Contains(text, other) {
		t.Error("the audit log holds a token")
	}
	for _, want := range []string{`"token":"widgets"`, `"token":"other"`, `"status":401`, `"route":"/api"`, `"tool":"v2 libs/search"`, `"query":"acme"`} {
		if !strings.Contains(text, want) {
			t.Errorf("audit log lacks %s:\n%s", want, text)
		}
	}
}
