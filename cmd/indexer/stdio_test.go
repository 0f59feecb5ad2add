package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioDrainStopsAtShutdown: after stdin ends, serve --stdio holds
// the end until every request read is answered, but not past the
// server's end (SIGTERM): with a request read and never answered, a
// Read at EOF returns once the context ends, although the drain timeout
// is an hour away.
func TestStdioDrainStopsAtShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pending{zero: make(chan struct{}), done: ctx.Done(), drain: time.Hour}
	in := io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"))
	r := &countingReader{r: bufio.NewReader(in), c: in, p: p}
	if _, err := io.ReadAll(io.LimitReader(r, int64(len(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)+1))); err != nil {
		t.Fatal(err)
	}
	if p.n != 1 {
		t.Fatalf("%d requests pending, want 1", p.n)
	}
	eof := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 16))
		eof <- err
	}()
	select {
	case err := <-eof:
		t.Fatalf("Read returned %v with a request unanswered and the server running", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-eof:
		if err != io.EOF {
			t.Errorf("Read after the server's end: %v, want io.EOF", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Read still waiting 30 s after the server's end")
	}
}
