package main

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/syncbuf"
)

// serverProc is a running `indexer serve --http` of a test binary on a
// free loopback port, killed when the test or benchmark ends.
type serverProc struct {
	cmd     *exec.Cmd
	dir     string // what --artifacts names first: a dist or an oci:// reference
	base    string // http://127.0.0.1:port
	started time.Time
	stderr  *syncbuf.Buffer // the server's log, readable while it runs
}

// startServer starts bin serve --http on a free loopback port over
// artifacts, with extra flags appended, and returns without waiting for it
// to be ready (waitReady does, where a test needs it).
func startServer(tb testing.TB, bin, artifacts string, extra ...string) *serverProc {
	tb.Helper()
	addr := freeAddr(tb)
	s := &serverProc{dir: artifacts, base: "http://" + addr, stderr: &syncbuf.Buffer{}}
	s.cmd = exec.Command(bin, append([]string{"serve", "--http", addr, "--artifacts", artifacts}, extra...)...)
	s.cmd.Stderr = s.stderr
	s.started = time.Now()
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.cmd.Process.Kill() })
	return s
}

// stop ends the server with SIGTERM and fails if it does not exit cleanly
// within 15 seconds.
func (s *serverProc) stop(tb testing.TB) {
	tb.Helper()
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("server exited with %v after SIGTERM:\n%s", err, s.stderr)
		}
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-done
		tb.Fatalf("server did not stop within 15 s of SIGTERM")
	}
}
