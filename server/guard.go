package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/audit"
	"github.com/codex7/codex7/request"
)

// guard is the HTTP server's access control and audit log, between the
// request counting and the routes.
//
// Every request but the probes and /metrics gets a request id (sent back
// in X-Request-Id) and one audit line when it ends, whatever it ended in,
// refusals included.
//
// With a policy, /mcp and /api need a bearer token the policy knows (401
// otherwise) with requests left in its rate (429 with Retry-After
// otherwise), and see only the libraries the token's patterns allow;
// /metrics needs a known token; /readyz answers everyone but names refused
// versions only to a token that may see them. Tokens never reach a log.
// A client address that has presented too many unknown tokens
// (access.Guesses) gets 429 with Retry-After on every route but the
// probes, whatever token it sends, until its budget refills.
//
// Browsers send Origin; a page whose origin is not listed may not call
// /mcp (403), which stops DNS rebinding even where the server listens on
// every interface.
//
// With a site mounted, every other path is the site's: it authenticates
// by the header or by the site's cookie, is rate limited and scoped like
// /mcp, and without a known token still reaches the site, scoped to no
// library, which shows its login form.
type guard struct {
	policy  func() *access.Policy // nil, or returning nil: no access control
	guesses *access.Guesses       // nil: unknown tokens are not limited
	clients clientAddrs           // finds the client behind a trusted proxy
	log     *slog.Logger          // the server's, for the hint about proxies
	tokens  *tokenCounts          // nil: not counted
	hinted  atomic.Bool           // the hint was logged
	origins map[string]bool       // allowed Origin values, normalized
	audit   *slog.Logger
	ids     requestIDs
	now     func() time.Time
	next    http.Handler
	// site says a web site is mounted at "/": paths outside the known
	// routes are its pages, which take siteCookie's value as a bearer
	// token and reach the site without one (see admit).
	site       bool
	siteCookie string
}

type grantKey struct{}

// grantOf is the grant the request was authenticated with, nil without one.
func grantOf(ctx context.Context) *access.Grant {
	g, _ := ctx.Value(grantKey{}).(*access.Grant)
	return g
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route := routeOf(r.URL.Path)
	if route == "/healthz" { // it says "ok" to anyone: no token is read
		g.next.ServeHTTP(w, r)
		return
	}
	var pol *access.Policy
	if g.policy != nil {
		pol = g.policy()
	}
	client, proxied := g.clients.of(r)
	var grant *access.Grant
	var guessing *access.GuessError // the address may not present a token now
	if pol != nil {
		g.hintProxy(r, client)
		tok, ok := bearer(r)
		if !ok && g.site && route == otherLabel {
			tok, ok = cookieToken(r, g.siteCookie)
		}
		if ok {
			var err error
			grant, err = g.guesses.Authenticate(pol, client, tok, g.now())
			g.tokens.count(grant, err)
			errors.As(err, &guessing)
		}
	}
	switch route {
	case "/readyz", "/metrics":
		if pol != nil && grant == nil && route == "/metrics" {
			if guessing != nil {
				tooManyGuesses(w, route, guessing)
				return
			}
			unauthorized(w, r, route)
			return
		}
		if grant != nil {
			r = r.WithContext(context.WithValue(r.Context(), grantKey{}, grant))
		}
		g.next.ServeHTTP(w, r)
		return
	}

	rec := audit.New(g.ids.next(), g.now())
	rec.SetRoute(route)
	if client != "" {
		rec.SetRemote(client)
	}
	if proxied {
		rec.SetPeer(peerHost(r))
	}
	cw := &countingWriter{ResponseWriter: w}
	w.Header().Set("X-Request-Id", rec.ID())
	returned := false
	defer func() {
		status := cw.status()
		if !returned {
			status = http.StatusInternalServerError // panicked: recoverPanics answers or cuts it off
		}
		rec.SetResponse(status, cw.n)
		rec.Log(r.Context(), g.audit, g.now())
	}()
	ctx := audit.With(r.Context(), rec)
	if pol != nil { // for the site's login form (Authenticate)
		ctx = withClient(ctx, requestClient{addr: client, guesses: g.guesses, tokens: g.tokens, now: g.now})
	}
	g.admit(cw, r.WithContext(ctx), route, pol, grant, guessing)
	returned = true
}

// admit refuses a request its origin, token or rate does not allow, or
// whose address may not present a token now (guessing), and serves the
// others with the token's scope. rec is the request's audit record, in r's
// context.
func (g *guard) admit(w http.ResponseWriter, r *http.Request, route string, pol *access.Policy, grant *access.Grant, guessing *access.GuessError) {
	rec := audit.From(r.Context())
	ctx := r.Context()

	if route == "/mcp" {
		if o := r.Header.Get("Origin"); o != "" && !g.origins[normalizeOrigin(o)] {
			http.Error(w, fmt.Sprintf("origin %q may not call this server: start indexer serve with --allow-origin %s if that page should", truncateRunes(o, 100), truncateRunes(o, 100)), http.StatusForbidden)
			return
		}
	}
	if pol != nil {
		if guessing != nil {
			tooManyGuesses(w, route, guessing)
			return
		}
		if grant == nil && g.site && route == otherLabel {
			// The site answers with its login form (and serves the
			// stylesheet it needs); whatever it asks the engine sees no
			// library.
			g.next.ServeHTTP(w, r.WithContext(request.WithScope(ctx, noLibraries{})))
			return
		}
		if grant == nil {
			unauthorized(w, r, route)
			return
		}
		rec.SetToken(grant.Name)
		if ok, wait := grant.Take(g.now()); !ok {
			secs := retryAfter(w, wait)
			refuse(w, route, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("too many requests for token %q: retry in %d s", grant.Name, secs))
			return
		}
		ctx = request.WithScope(context.WithValue(ctx, grantKey{}, grant), grant)
	}
	g.next.ServeHTTP(w, r.WithContext(ctx))
}

// bearer is the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// cookieToken is the token kept in the cookie name, if any: unpadded
// base64url, so that a token of any bytes survives as a cookie value.
func cookieToken(r *http.Request, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	c, err := r.Cookie(name)
	if err != nil || c.Value == "" {
		return "", false
	}
	tok, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(tok) == 0 {
		return "", false
	}
	return string(tok), true
}

// noLibraries is the scope of a site request without a known token.
type noLibraries struct{}

func (noLibraries) Allows(string) bool { return false }

func unauthorized(w http.ResponseWriter, r *http.Request, route string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="codex7"`)
	msg := "a bearer token is required: send Authorization: Bearer <token> (ask the server's operator for one)"
	if _, ok := bearer(r); ok {
		msg = "the bearer token is not known to this server: check it, or ask the server's operator for one"
	}
	refuse(w, route, http.StatusUnauthorized, "unauthorized", msg)
}

// hintProxy logs, once, that a request names a client in a proxy header
// while no proxy is trusted: every client behind that proxy then counts
// as the proxy, and one client sending unknown tokens spends their budget
// for all.
func (g *guard) hintProxy(r *http.Request, peer string) {
	if g.clients.header != nil || g.guesses == nil || g.log == nil || g.hinted.Load() {
		return
	}
	if r.Header.Get(HeaderXForwardedFor) == "" && r.Header.Get(HeaderForwarded) == "" {
		return
	}
	if g.hinted.CompareAndSwap(false, true) {
		g.log.Warn("a request came through a proxy (it names a client in X-Forwarded-For or Forwarded), and no --trusted-proxy is given: every client behind it counts as the proxy, and one client sending unknown tokens spends their budget for all; give --trusted-proxy with the proxy's address if it is yours",
			"peer", peer)
	}
}

// tooManyGuesses refuses a request from an address out of guesses
// (access.Guesses): 429, with Retry-After.
func tooManyGuesses(w http.ResponseWriter, route string, e *access.GuessError) {
	retryAfter(w, e.Wait)
	refuse(w, route, http.StatusTooManyRequests, "too_many_guesses", e.Error()+" (until then every token from this address is refused, a right one too)")
}

// retryAfter sets Retry-After to wait in whole seconds (access.RetrySeconds)
// and returns them.
func retryAfter(w http.ResponseWriter, wait time.Duration) int {
	secs := access.RetrySeconds(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return secs
}

// refuse answers an error in the shape of the route: the JSON error body
// Context7's clients read under /api, a text line elsewhere.
func refuse(w http.ResponseWriter, route string, status int, code, msg string) {
	if route == "/api" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(status)
		// %q is not JSON for every string (a control byte in a token's
		// name would become \x01): marshal.
		body, _ := json.Marshal(struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}{code, msg})
		w.Write(append(body, '\n'))
		return
	}
	http.Error(w, msg, status)
}

// normalizeOrigin lower-cases an origin's scheme and host and drops a
// default port, so that allowed origins match however a browser spells
// them.
func normalizeOrigin(o string) string {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return strings.ToLower(strings.TrimSpace(o))
	}
	host := strings.ToLower(u.Host)
	switch {
	case u.Scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	case u.Scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

func truncateRunes(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// requestIDs makes request ids unique in a process and unlikely to repeat
// across restarts: a random prefix drawn at start and a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() requestIDs {
	b := make([]byte, 4)
	rand.Read(b)
	return requestIDs{prefix: hex.EncodeToString(b)}
}

func (ids *requestIDs) next() string {
	return ids.prefix + "-" + strconv.FormatUint(ids.n.Add(1), 10)
}

// countingWriter counts the body bytes a handler writes and remembers its
// status. Unwrap lets http.ResponseController reach the connection.
type countingWriter struct {
	http.ResponseWriter
	code int
	n    int64
}

func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *countingWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// auditToolCalls is MCP receiving middleware that records each request's
// method or tool and outcome in its audit record. Over HTTP the record is
// the HTTP request's, logged by guard; over stdio, where no HTTP layer
// made one, it makes a record per tool call and logs it, so that every
// tool call has its line on either transport.
func auditToolCalls(log *slog.Logger, ids *requestIDs) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			rec := audit.From(ctx)
			own := rec == nil && method == "tools/call"
			if own {
				rec = audit.New(ids.next(), time.Now())
				rec.SetRoute("stdio")
				ctx = audit.With(ctx, rec)
			}
			tool := method
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				tool = r.Params.Name
			}
			rec.SetTool(tool)
			res, err := next(ctx, method, req)
			switch r, _ := res.(*mcp.CallToolResult); {
			case err != nil:
				rec.SetOutcome("protocol_error")
			case r != nil && r.IsError:
				rec.SetOutcome("tool_error")
			case method == "tools/call":
				rec.SetOutcome("ok")
			}
			if own {
				rec.Log(ctx, log, time.Now())
			}
			return res, err
		}
	}
}
