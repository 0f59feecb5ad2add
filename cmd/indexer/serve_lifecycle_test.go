package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/registrytest"
	"github.com/codex7/codex7/internal/waitfor"
)

// TestServeStdioAnswersBeforeEOF pipes three requests into serve --stdio
// and closes stdin, as `printf ... | indexer serve --stdio` does: every
// request read must be answered before the server exits.
func TestServeStdioAnswersBeforeEOF(t *testing.T) {
	bin, out := serveFixtures(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"libraryId":"/acme/cli","customQuery":"deploy to production","tokens":1000}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"widgets"}}}`,
	}, "\n") + "\n"
	for run := range 3 {
		cmd := exec.Command(bin, "serve", "--stdio", "--artifacts", out)
		cmd.Stdin = strings.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stderr.String())
		}
		ids := map[float64]bool{}
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var msg struct {
				ID float64 `json:"id"`
			}
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
				t.Fatalf("run %d: stdout line is not JSON-RPC: %q", run, sc.Text())
			}
			ids[msg.ID] = true
		}
		if !ids[1] || !ids[2] || !ids[3] {
			t.Errorf("run %d: stdin closed after 3 requests: answered ids %v, want 1, 2 and 3 (the server exited with requests unanswered)", run, ids)
		}
	}
}

// TestServeSIGHUPAsksRegistry: with --reload-interval 0 the flag's help
// promises registries are asked whether a tag moved "only on SIGHUP", so
// SIGHUP after a push must bring the new edition.
func TestServeSIGHUPAsksRegistry(t *testing.T) {
	requireSignals(t)
	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{})
	site := newEditions(t, bin, "/acme/site")
	ref := "oci://" + reg.Host + "/codex7/docs:live"
	if code, o, e := cli(t, bin, nil, "push", "--artifacts", site.out, ref); code != 0 {
		t.Fatalf("push: %d %s%s", code, o, e)
	}
	srv := startServer(t, bin, ref, "--cache-dir", t.TempDir(), "--reload-interval", "0")
	cmd, base, logs := srv.cmd, srv.base, srv.stderr
	waitReady(t, base)
	if m, err := marker(t, base, "/acme/site"); m != "marker1" {
		t.Fatalf("first answer %q %v, want marker1", m, err)
	}
	site.edition(2)
	if code, o, e := cli(t, bin, nil, "push", "--artifacts", site.out, ref); code != 0 {
		t.Fatalf("push: %d %s%s", code, o, e)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	if !waitfor.Poll(15*time.Second, func() bool {
		m, _ := marker(t, base, "/acme/site")
		return m == "marker2"
	}) {
		m, err := marker(t, base, "/acme/site")
		t.Errorf("--reload-interval 0, tag moved, SIGHUP sent: still answering %q (%v) after 15s; want marker2\n%s", m, err, logs)
	}
}

// TestServeSIGHUPDuringStart: a SIGHUP (a tokens file rotated by a
// sidecar, a config manager) while serve is starting must not kill it.
// Here the registry takes its time to answer the first HEAD.
func TestServeSIGHUPDuringStart(t *testing.T) {
	requireSignals(t)
	bin := testBinary(t)
	release := make(chan struct{})
	asked := make(chan struct{}, 1) // the server is in its start, past flag parsing
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "gone", http.StatusServiceUnavailable)
	}))
	defer stall.Close()
	defer close(release)
	ref := "oci://" + strings.TrimPrefix(stall.URL, "http://") + "/codex7/docs:live"
	srv := startServer(t, bin, ref, "--cache-dir", t.TempDir())
	cmd, logs := srv.cmd, srv.stderr
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("serve exited before asking the registry: %v\n%s", err, logs)
	case <-time.After(time.Minute):
		t.Fatalf("serve never asked the registry\n%s", logs)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	// Killed by the signal, it would exit at once; a server that caught it
	// goes on waiting for the registry.
	select {
	case err := <-done:
		t.Fatalf("serve exited on a SIGHUP during start: %v\n%s", err, logs)
	case <-time.After(2 * time.Second):
	}
}
