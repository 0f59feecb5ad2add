package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// idleTransport bounds how long a transfer may go without a byte, each
// way. A registry (or a proxy, a black-holed route) that stops sending in
// the middle of a layer would otherwise hold the read, and the pull or
// mirror poll waiting on it, forever; one that stops reading an upload
// would hold the push: the base transport only starts waiting for an
// answer (ResponseHeaderTimeout) once the request is sent whole. The
// bound is per byte, not per body, so that a large layer still takes as
// long as it needs while its bytes keep moving.
type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
	// response is the base transport's ResponseHeaderTimeout: see
	// upload.
	response time.Duration
}

// RoundTrip sends req with a context of its own, which an idle timer
// cancels to unblock a write or a read that waits on a stalled
// connection: first the upload's, when req has a body (see upload), then
// the response body's. An upload the timer gave up fails with a
// stallError, even if its answer came as the timer fired.
func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	out := req.WithContext(ctx)
	var up *upload
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength > 0 {
		up = &upload{idle: t.idle, tail: t.idle + t.response, cancel: cancel}
		out.Body = up.watch(req.Body)
		if req.GetBody != nil {
			// The base transport sends the body again from GetBody when
			// a kept-alive connection turned out closed: watch that too.
			out.GetBody = func() (io.ReadCloser, error) {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				return up.watch(body), nil
			}
		}
	}
	resp, err := t.base.RoundTrip(out)
	if up != nil && up.end() && req.Context().Err() == nil {
		if err == nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, &stallError{idle: t.idle, upload: true}
	}
	if err != nil {
		cancel(nil)
		if req.Context().Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = &noAnswerError{err: err}
		}
		return nil, err
	}
	resp.Body = &idleBody{body: resp.Body, idle: t.idle, cancel: cancel}
	return resp, nil
}

// upload watches a request body as the base transport sends it. The
// transport reads the body a buffer at a time and writes each to the
// connection before it reads the next (HTTP/1 and HTTP/2 alike, the
// latter waiting for the registry's flow-control window too), so the time
// from a read's return to the next read is time the connection took in
// a buffer of the body (32 KiB at most): past idle, the registry took none
// of it, or too little to matter, and the upload is given up (the request's context
// cancelled with a stallError, which closes the connection or resets the
// stream, ending the write that waits). The time inside a read, the
// body's producer's (a layer being packed), is not counted. After the
// body's end, what the transport still holds (over TLS, its last
// buffer) is flushed and then the answer waited for, which the transport
// bounds by ResponseHeaderTimeout once the flush is done: the two
// together get tail, idle plus that, so that a flush that stalls fails
// too and an answer keeps its own timeout. Read and Close of its bodies
// may come from the transport's goroutines, concurrently with the timer.
type upload struct {
	idle, tail time.Duration
	cancel     context.CancelCauseFunc
	mu         sync.Mutex
	timer      *time.Timer
	ended      bool // RoundTrip returned, or the timer fired
	stalled    bool // the timer fired
}

// watch returns body reporting to u.
func (u *upload) watch(body io.ReadCloser) io.ReadCloser {
	return &uploadBody{body: body, u: u}
}

// arm starts the timer for d, unless the upload ended.
func (u *upload) arm(d time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ended {
		return
	}
	if u.timer == nil {
		u.timer = time.AfterFunc(d, u.stall)
	} else {
		u.timer.Reset(d)
	}
}

// disarm stops the timer.
func (u *upload) disarm() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.timer != nil {
		u.timer.Stop()
	}
}

func (u *upload) stall() {
	u.mu.Lock()
	if u.ended {
		u.mu.Unlock()
		return
	}
	u.ended, u.stalled = true, true
	u.mu.Unlock()
	u.cancel(&stallError{idle: u.idle, upload: true})
}

// end stops watching, as RoundTrip returns (a body the transport goes on
// reading, after an early answer, is no longer timed), and reports
// whether the timer gave the upload up.
func (u *upload) end() (stalled bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.ended = true
	if u.timer != nil {
		u.timer.Stop()
	}
	return u.stalled
}

// uploadBody is a request body that upload watches.
type uploadBody struct {
	body io.ReadCloser
	u    *upload
	eof  atomic.Bool
}

func (b *uploadBody) Read(p []byte) (int, error) {
	b.u.disarm() // the transport asks for more: it sent what it had
	n, err := b.body.Read(p)
	switch {
	case err == io.EOF:
		b.eof.Store(true)
		b.u.arm(b.u.tail)
	case err == nil && n > 0:
		b.u.arm(b.u.idle)
	}
	return n, err
}

// Close closes the body. A body closed before its end is one the
// transport gave up (to send it again on another connection, or after an
// error): its last bytes are not waited for.
func (b *uploadBody) Close() error {
	if !b.eof.Load() {
		b.u.disarm()
	}
	return b.body.Close()
}

// idleBody is a response body whose reads fail with a stallError when
// no byte comes for idle. Reads are not concurrent (one reader per body);
// Close may come after a read failed.
type idleBody struct {
	body    io.ReadCloser
	idle    time.Duration
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	stalled atomic.Bool
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.timer == nil {
		b.timer = time.AfterFunc(b.idle, b.stall)
	} else {
		b.timer.Reset(b.idle)
	}
	n, err := b.body.Read(p)
	b.timer.Stop()
	if err != nil && b.stalled.Load() {
		return n, &stallError{idle: b.idle}
	}
	return n, err
}

// stall gives up on the body: cancelling the request's context closes
// its connection (HTTP/1) or resets its stream (HTTP/2), which ends the
// read that waits.
func (b *idleBody) stall() {
	b.stalled.Store(true)
	b.cancel(&stallError{idle: b.idle})
}

func (b *idleBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.body.Close()
	b.cancel(nil)
	return err
}

// noAnswerError is a timeout of the transport's own (no answer within
// ResponseHeaderTimeout, a dial or TLS handshake that took too long), not
// of the caller's context: net/http's errors for them match
// context.DeadlineExceeded, which classify takes for the caller's
// deadline; this one does not, so classify reports ErrUnreachable. It
// stays a timeout (net.Error), which oras' retry transport retries.
type noAnswerError struct{ err error }

func (e *noAnswerError) Error() string {
	return fmt.Sprintf("the registry did not answer in time (%v)", e.err)
}

// Timeout says the error is a timeout, as net.Error does.
func (e *noAnswerError) Timeout() bool { return true }

// Temporary is net.Error's (deprecated) other method.
func (e *noAnswerError) Temporary() bool { return true }

// stallError is the error of a response body the registry sent no byte
// of for idle, or of a request body (an upload) the transport could not
// hand it the next buffer of for idle (the registry took none of it, or
// too little to empty the buffer). It is a timeout (net.Error), which classify reports as
// ErrUnreachable. oras' retry transport retries an upload that failed
// with it when the body can be sent again (catalog.json, the manifest),
// not a layer, which is packed as it is sent.
type stallError struct {
	idle   time.Duration
	upload bool
}

func (e *stallError) Error() string {
	if e.upload {
		return fmt.Sprintf("the upload made no progress for %v: the registry took too little of it to go on (a stalled connection, or a proxy that stopped reading)", e.idle)
	}
	return fmt.Sprintf("the registry sent nothing for %v in the middle of an answer (a stalled connection)", e.idle)
}

// Timeout says the error is a timeout, as net.Error does.
func (e *stallError) Timeout() bool { return true }

// Temporary is net.Error's (deprecated) other method.
func (e *stallError) Temporary() bool { return true }

// Unwrap makes the error an os.ErrDeadlineExceeded, as a read past a
// connection's deadline is.
func (e *stallError) Unwrap() error { return os.ErrDeadlineExceeded }
