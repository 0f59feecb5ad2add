package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// idleTransport bounds how long a response body may go without a byte:
// a registry (or a proxy, a black-holed route) that stops sending in the
// middle of a layer would otherwise hold the read, and the pull or
// mirror poll waiting on it, forever. The bound is per read, not per
// body, so that a large layer still takes as long as it needs while its
// bytes keep coming. The wait for the answer itself is bounded by the
// base transport's ResponseHeaderTimeout.
type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
}

// RoundTrip sends req with a context of its own, which the response
// body's idle timer cancels to unblock a read that waits on a stalled
// connection.
func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
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
// of for idle. It is a timeout (net.Error), which classify reports as
// ErrUnreachable.
type stallError struct{ idle time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("the registry sent nothing for %v in the middle of an answer (a stalled connection)", e.idle)
}

// Timeout says the error is a timeout, as net.Error does.
func (e *stallError) Timeout() bool { return true }

// Temporary is net.Error's (deprecated) other method.
func (e *stallError) Temporary() bool { return true }

// Unwrap makes the error an os.ErrDeadlineExceeded, as a read past a
// connection's deadline is.
func (e *stallError) Unwrap() error { return os.ErrDeadlineExceeded }
