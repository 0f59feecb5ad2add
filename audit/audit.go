// Package audit records what each request to a Codex7 server did, for the
// audit log: one structured line per tool call or API request saying who
// (the token's name, never the token), what (tool or endpoint, library,
// version, query), how much (results, bytes) and how it ended (status,
// duration).
//
// The layer that first sees a request makes its Record and puts it in the
// request's context; the layers below fill in what they learn through
// From, whose methods do nothing on a nil Record, so code shared with
// unaudited paths (tests, the CLI) needs no checks.
package audit

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxQueryBytes bounds the query an audit line repeats.
const MaxQueryBytes = 256

// Record is what one request did. Its methods are safe for concurrent use
// and do nothing on a nil Record.
type Record struct {
	start time.Time
	id    string

	mu      sync.Mutex
	token   string
	remote  string
	peer    string
	route   string
	tool    string
	library string
	version string
	query   string
	outcome string
	results int
	bytes   int64
	status  int
}

// New starts the record of a request with the given id, arriving now.
func New(id string, now time.Time) *Record {
	return &Record{id: id, start: now, results: -1}
}

type key struct{}

// With returns ctx carrying r.
func With(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the record ctx carries, or nil.
func From(ctx context.Context) *Record {
	r, _ := ctx.Value(key{}).(*Record)
	return r
}

// ID is the request id, "" for a nil record.
func (r *Record) ID() string {
	if r == nil {
		return ""
	}
	return r.id
}

func (r *Record) set(f func()) {
	if r == nil {
		return
	}
	r.mu.Lock()
	f()
	r.mu.Unlock()
}

// SetToken records the name of the token the request came with.
func (r *Record) SetToken(name string) { r.set(func() { r.token = name }) }

// SetRemote records the client's address.
func (r *Record) SetRemote(addr string) { r.set(func() { r.remote = addr }) }

// SetPeer records the address the request came from when it is not the
// client's: the proxy that named the client (see SetRemote).
func (r *Record) SetPeer(addr string) { r.set(func() { r.peer = addr }) }

// SetRoute records the HTTP route or API endpoint ("/mcp", "v2 context").
func (r *Record) SetRoute(route string) { r.set(func() { r.route = route }) }

// SetTool records the MCP method or tool called.
func (r *Record) SetTool(tool string) { r.set(func() { r.tool = tool }) }

// SetLibrary records the library and version the request read, as
// resolved when it was ("" for the version when it was not).
func (r *Record) SetLibrary(library, version string) {
	r.set(func() { r.library, r.version = library, version })
}

// SetQuery records the request's question, cut to MaxQueryBytes.
func (r *Record) SetQuery(q string) {
	if len(q) > MaxQueryBytes {
		q = q[:MaxQueryBytes]
		for len(q) > 0 && !utf8.ValidString(q) {
			q = q[:len(q)-1]
		}
		q += "…"
	}
	q = strings.ToValidUTF8(q, "\uFFFD")
	r.set(func() { r.query = q })
}

// SetResults records how many results (sections, libraries, snippets) the
// answer held.
func (r *Record) SetResults(n int) { r.set(func() { r.results = n }) }

// SetOutcome records how a tool call ended: "ok", "tool_error" (the tool
// answered with an error for the agent) or "protocol_error".
func (r *Record) SetOutcome(o string) { r.set(func() { r.outcome = o }) }

// SetResponse records the status and body size of the HTTP answer.
func (r *Record) SetResponse(status int, bytes int64) {
	r.set(func() { r.status, r.bytes = status, bytes })
}

// Log writes r's line to log at info level, with the duration since r
// started measured at now. It does nothing on a nil record.
func (r *Record) Log(ctx context.Context, log *slog.Logger, now time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	attrs := []slog.Attr{
		slog.Time("start", r.start.UTC()),
		slog.String("request_id", r.id),
		slog.String("token", r.token),
	}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(k, v))
		}
	}
	add("remote", r.remote)
	add("peer", r.peer)
	add("route", r.route)
	add("tool", r.tool)
	add("library", r.library)
	add("version", r.version)
	add("query", r.query)
	add("outcome", r.outcome)
	if r.results >= 0 {
		attrs = append(attrs, slog.Int("results", r.results))
	}
	if r.status != 0 {
		attrs = append(attrs, slog.Int("status", r.status), slog.Int64("bytes", r.bytes))
	}
	attrs = append(attrs, slog.Float64("duration_ms", float64(now.Sub(r.start).Microseconds())/1000))
	r.mu.Unlock()
	log.LogAttrs(ctx, slog.LevelInfo, "audit", attrs...)
}
