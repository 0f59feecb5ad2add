package context7

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors callers branch on (errors.Is). The errors returned wrap one of
// them and say what went wrong and what to do.
var (
	// ErrNoAPIKey means no API key is configured. Its message is exactly
	// "[Context7 API key not configured]".
	ErrNoAPIKey = errors.New("[Context7 API key not configured]")
	// ErrInvalidRequest means an argument was refused before anything was
	// sent (a mode other than info or code, a malformed library id), or
	// Context7 answered 400, or a page past the last was asked for.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrUnauthorized means Context7 refused the key (401) or access to
	// the library (403).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNotFound means Context7 has no such library or version (404, or
	// no search result for a bare name). It is never cached.
	ErrNotFound = errors.New("not found")
	// ErrMoved means the library has a new id (301); the *StatusError's
	// Redirect holds it.
	ErrMoved = errors.New("library moved")
	// ErrRateLimited means Context7 answered 429; the error is a
	// *RateLimitError with Retry-After and the quota headers.
	ErrRateLimited = errors.New("rate limited")
	// ErrTimeout means no answer came within the client's timeout or the
	// caller's deadline.
	ErrTimeout = errors.New("timed out")
	// ErrUnavailable means the service could not answer: a network error,
	// a 5xx, a library not finalized yet (202), or too large to serve
	// (422). Trying again later may work.
	ErrUnavailable = errors.New("unavailable")
	// ErrMalformed means an answer that does not parse: bad JSON, or a
	// text answer that is not documentation (binary, an HTML page).
	ErrMalformed = errors.New("malformed answer")
)

// StatusError is an HTTP error status from Context7 other than 429. It
// unwraps to the sentinel of its status.
type StatusError struct {
	// Status is the HTTP status code.
	Status int
	// Code is Context7's error code ("library_not_found"), if it sent one.
	Code string
	// Message is Context7's message, or a description of the status.
	Message string
	// Redirect is the library's new id, for a 301.
	Redirect string
	// Hint says what to do, for agents.
	Hint string

	kind error
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Hint != "" {
		msg = strings.TrimRight(msg, ". ") + ". " + e.Hint
	}
	return msg
}

func (e *StatusError) Unwrap() error { return e.kind }

// RateLimitError is a 429 from Context7: too many requests, or the
// monthly quota spent. It unwraps to ErrRateLimited.
type RateLimitError struct {
	// RetryAfter is how long Context7 asked to wait (Retry-After), or 0
	// when it did not say.
	RetryAfter time.Duration
	// Limit, Remaining, Reset and Tier are the quota headers as sent
	// (RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset in Unix
	// seconds, Context7-Quota-Tier), empty when absent.
	Limit, Remaining, Reset, Tier string
	// Message is Context7's message.
	Message string
}

func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString("HTTP 429: rate limited")
	if e.Message != "" {
		b.WriteString(" (" + e.Message + ")")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfter)
	} else {
		b.WriteString("; retry later")
	}
	var quota []string
	if e.Remaining != "" {
		q := "remaining " + e.Remaining
		if e.Limit != "" {
			q += " of " + e.Limit
		}
		quota = append(quota, q)
	} else if e.Limit != "" {
		quota = append(quota, "limit "+e.Limit)
	}
	if e.Reset != "" {
		quota = append(quota, "resets at "+e.Reset)
	}
	if e.Tier != "" {
		quota = append(quota, "tier "+e.Tier)
	}
	if len(quota) > 0 {
		b.WriteString("; quota: " + strings.Join(quota, ", "))
	}
	return b.String()
}

func (e *RateLimitError) Unwrap() error { return ErrRateLimited }
