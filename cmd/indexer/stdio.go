package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioDrainTimeout bounds how long serve --stdio keeps answering after
// stdin ends: the tool timeout and some.
const stdioDrainTimeout = 35 * time.Second

// drainingStdio is MCP's stdio transport on in and out that answers every
// request it read before it reports the end of in: the SDK cancels the
// requests in flight when its reader sees EOF, so a client that writes its
// requests and closes stdin (a pipe) would get no answer.
//
// It stops waiting when ctx ends (SIGTERM): the server is shutting down
// and answers nothing more.
func drainingStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) mcp.Transport {
	p := &pending{zero: make(chan struct{}), done: ctx.Done(), drain: stdioDrainTimeout}
	return &mcp.IOTransport{Reader: &countingReader{r: bufio.NewReader(in), c: in, p: p}, Writer: &countingWriter{w: out, p: p}}
}

type pending struct {
	mu    sync.Mutex
	n     int
	zero  chan struct{}   // closed and replaced as n reaches 0 after EOF
	done  <-chan struct{} // the server's end: no more waiting
	drain time.Duration   // the most to wait after EOF
}

// requests counts the JSON-RPC requests (id and method) in one message.
func requests(line []byte, responses bool) int {
	line = bytes.TrimSpace(line)
	var msgs []json.RawMessage
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &msgs) != nil {
			return 0
		}
	} else {
		msgs = []json.RawMessage{line}
	}
	n := 0
	for _, m := range msgs {
		var v struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m, &v) != nil || len(v.ID) == 0 || string(v.ID) == "null" {
			continue
		}
		if (v.Method == "") == responses {
			n++
		}
	}
	return n
}

type countingReader struct {
	r   *bufio.Reader
	c   io.Closer
	p   *pending
	buf []byte
}

func (r *countingReader) Read(b []byte) (int, error) {
	if len(r.buf) == 0 {
		line, err := r.r.ReadBytes('\n')
		if len(line) > 0 {
			r.p.mu.Lock()
			r.p.n += requests(line, false)
			r.p.mu.Unlock()
			r.buf = line
		} else if err != nil {
			if err == io.EOF {
				r.wait()
			}
			return 0, err
		}
	}
	n := copy(b, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// wait holds EOF until every request read has its answer written.
func (r *countingReader) wait() {
	deadline := time.After(r.p.drain)
	for {
		r.p.mu.Lock()
		n, zero := r.p.n, r.p.zero
		r.p.mu.Unlock()
		if n <= 0 {
			return
		}
		select {
		case <-zero:
		case <-deadline:
			return
		case <-r.p.done:
			return
		}
	}
}

func (r *countingReader) Close() error { return r.c.Close() }

type countingWriter struct {
	w io.WriteCloser
	p *pending
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	if k := requests(b, true); k > 0 {
		w.p.mu.Lock()
		w.p.n -= k
		if w.p.n <= 0 {
			close(w.p.zero)
			w.p.zero = make(chan struct{})
		}
		w.p.mu.Unlock()
	}
	return n, err
}

func (w *countingWriter) Close() error { return w.w.Close() }
