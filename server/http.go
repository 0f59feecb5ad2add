package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7api"
	"github.com/codex7/codex7/metrics"
)

// DefaultAddr is where the HTTP server listens unless told otherwise:
// loopback, so nothing is exposed by accident.
const DefaultAddr = "127.0.0.1:8080"

// DefaultMaxInFlight is how many requests the HTTP server serves at once
// unless told otherwise. A tool call takes under a millisecond of CPU, so
// on two cores a full server answers the last of them within a few hundred
// milliseconds; more would only queue. It is twice what 64 busy clients
// need at most, because a request the SDK answers (a client of protocol
// version 2026-07-28 or later) holds its slot after the client has its
// answer, until the SDK's per-request session has closed: under load, one
// scheduling round later, when the client may have sent its next request.
// With a cap of 128, 64 such clients got 17 of 1,080 calls refused.
const DefaultMaxInFlight = 256

// DefaultToolTimeout bounds one MCP tool call unless told otherwise.
const DefaultToolTimeout = 30 * time.Second

// Limits of the HTTP server. Every phase of a request has a deadline:
// reading the headers, reading the whole request, running a tool
// (HTTPOptions.ToolTimeout), writing the response, waiting idle for the
// next request on a kept-alive connection, and shutting down.
const (
	maxBodyBytes      = 1 << 20  // an MCP request body
	maxHeaderBytes    = 64 << 10 // all request headers together; more gets 431
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 10 * time.Second
	retryAfterSeconds = 1 // what a 503 asks the client to wait
)

// HTTPOptions configures Handler. The zero value gives the defaults.
type HTTPOptions struct {
	// Metrics receives the server's series, served at /metrics. nil means
	// a registry of the handler's own. A registry can back one Handler
	// only: the second would register the same names and panic.
	Metrics *metrics.Registry
	// Catalog reports the size of the catalog being served. /metrics calls
	// it once per catalog gauge at each scrape, from the scraping
	// goroutine, so it must be safe for concurrent use. nil means counting
	// the engine's catalog.
	Catalog func() CatalogStats
	// MaxInFlight caps the requests served at once, probes and /metrics
	// aside; more are refused with 503 and Retry-After. 0 means
	// DefaultMaxInFlight, a negative value no cap.
	MaxInFlight int
	// ToolTimeout bounds one MCP tool call; 0 means DefaultToolTimeout.
	ToolTimeout time.Duration
	// Start is reported as codex7_process_start_time_seconds; the zero
	// value means when Handler is called.
	Start time.Time
	// Context7, when set, serves get-context7-docs and remote matches (see
	// WithContext7).
	Context7 *context7.Client
	// Auth returns the access policy in force, called once per request so
	// that a policy can be replaced while serving. nil, or a nil policy,
	// means no access control: every request sees every library.
	Auth func() *access.Policy
	// Guesses limits the unknown tokens a client address may present
	// under Auth (access.Guesses), in headers and the site's cookie, and
	// to the site's login form through Authenticate; nil limits nothing.
	Guesses *access.Guesses
	// TrustedProxies are the addresses of the proxies in front of the
	// server (an ingress, a load balancer, `indexer route`'s HAProxy). A
	// request from one of them is counted, audited and limited as its
	// client's, the rightmost address in ProxyHeader that is not a trusted
	// proxy; a request from anywhere else, as its peer's, whatever its
	// headers say. Any host in these ranges may name any client: give the
	// proxies' addresses, not the network's. Empty: every request is its
	// peer's, and behind a proxy all clients share the proxy's address
	// and Guesses' budget.
	TrustedProxies []netip.Prefix
	// ProxyHeader is the header the trusted proxies name clients in:
	// HeaderXForwardedFor (when "") or HeaderForwarded. One only: a client
	// could write the other itself.
	ProxyHeader string
	// AllowedOrigins lists the browser origins ("https://app.example")
	// whose pages may call /mcp; a request with any other Origin header
	// gets 403. Clients that are not browsers send no Origin.
	AllowedOrigins []string
	// AllowedHosts lists the host names the server answers to on every
	// route but /healthz, besides IP addresses and loopback names; an
	// entry "*.example.com" allows its subdomains. A request whose Host
	// header names another host gets 403 (a DNS-rebinding page sends its
	// own name), on any address. Empty: that check is made on loopback
	// only, where every name but a loopback one is foreign.
	AllowedHosts []string
	// Audit receives one line per tool call and API request; nil means
	// the handler's log.
	Audit *slog.Logger
	// Feeds report on what brings artifacts to the engine's directories
	// (registry mirrors): /readyz lists each, and is not ready while one
	// has never delivered. Called per request, from any goroutine.
	Feeds func() []FeedStatus
	// Site, when set, is the web page for people (package web), mounted at
	// "/": every path the routes above do not claim. It sits behind the
	// same guard, so under Auth it sees only what the request's token
	// allows; a request without a known token still reaches it (with a
	// scope that allows nothing) so that it can show its login form and
	// serve its assets. nil serves no site (indexer serve --no-ui).
	Site http.Handler
	// SiteCookie names the cookie in which the site keeps the token a
	// person entered, unpadded base64url; on the site's paths the guard
	// takes it as a bearer token. Other routes ignore it: /mcp and /api
	// need the header.
	SiteCookie string
	// sdkOnly answers every MCP request through the SDK, without the fast
	// path for tool calls (fastCalls): for tests that compare the two.
	sdkOnly bool
}

// Handler serves MCP over streamable HTTP at /mcp, the Context7-compatible
// REST API under /api (package context7api), plus /healthz (the
// process is up), /readyz (200 once a catalog is loaded, with its size and
// the versions refused; 503 before) and
// /metrics (Prometheus text format), and opts.Site, when set, at every
// other path. Requests from a browser on another
// origin and DNS-rebinding Host headers (on loopback, or on any address
// with opts.AllowedHosts; on every route but /healthz: see hostCheck) are
// refused with 403;
// bodies over 1 MiB with 413; requests beyond opts.MaxInFlight with 503.
// Errors are answered with a short text/plain line (under /api, the JSON
// body Context7's clients read), never a stack trace.
func Handler(engine Engine, version string, log *slog.Logger, opts HTTPOptions) http.Handler {
	reg := opts.Metrics
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	stats := opts.Catalog
	if stats == nil {
		stats = func() CatalogStats { return catalogStats(engine) }
	}
	start := opts.Start
	if start.IsZero() {
		start = time.Now()
	}
	toolTimeout := opts.ToolTimeout
	if toolTimeout == 0 {
		toolTimeout = DefaultToolTimeout
	}
	lim := &limiter{max: int64(opts.MaxInFlight)}
	if opts.MaxInFlight == 0 {
		lim.max = DefaultMaxInFlight
	}
	m := newServerMetrics(reg, stats, lim.n.Load, start)
	lim.busy = m.observe(http.HandlerFunc(busy))

	auditLog := opts.Audit
	if auditLog == nil {
		auditLog = log
	}
	gd := &guard{policy: opts.Auth, guesses: opts.Guesses, clients: newClientAddrs(opts.TrustedProxies, opts.ProxyHeader), log: log, tokens: newTokenCounts(reg), origins: map[string]bool{}, audit: auditLog, ids: newRequestIDs(), now: time.Now,
		site: opts.Site != nil, siteCookie: opts.SiteCookie}
	cop := http.NewCrossOriginProtection()
	for _, o := range opts.AllowedOrigins {
		gd.origins[normalizeOrigin(o)] = true
		cop.AddTrustedOrigin(o)
	}
	srv := newServer(engine, version, WithContext7(opts.Context7), WithAudit(auditLog))
	srv.use(m.toolCalls, timeoutToolCalls(toolTimeout))
	mux := http.NewServeMux()
	// The SDK refuses a loopback connection with a foreign Host header (DNS
	// rebinding) by itself; guard refuses pages of origins not allowed, and
	// cross-origin browser requests are refused here.
	mcpHandler := srv.httpHandler(log, opts.sdkOnly, len(opts.AllowedHosts) > 0)
	hosts := newHostCheck(opts.AllowedHosts)
	mux.Handle("/mcp", hosts.refuse("/mcp", false, cop.Handler(mcpHandler)))
	// GET opens the optional stream for messages the server sends
	// unprompted. This server sends none, and an open stream would hold an
	// in-flight slot and outlive the write timeout, so it answers 405 as the
	// MCP spec allows; clients then carry on over POST alone.
	mux.HandleFunc("GET /mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "this server sends no unprompted messages: use POST", http.StatusMethodNotAllowed)
	})
	// The Context7-compatible REST API: clients take http://host:port/api
	// as their base URL. It answers every library name and document text,
	// so it refuses a DNS-rebinding Host as /mcp does.
	api := http.StripPrefix("/api", context7api.New(engine, context7api.Options{Logger: log, Timeout: toolTimeout}))
	mux.Handle("/api/", apiHeaders(hosts.refuse("/api", false, api)))
	// /healthz stays open whatever the Host: it says "ok" and nothing
	// else, and liveness probes must never be refused.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	// /readyz (refused versions, artifact directories) and /metrics tell a
	// rebinding page about the catalog too. Probes and scrapers pass: the
	// kubelet and Prometheus reach a pod on its IP, not loopback; a
	// container's HEALTHCHECK asks http://127.0.0.1:8080, a loopback Host;
	// HAProxy's health check sends no Host at all (see hostCheck.refuse).
	mux.Handle("GET /readyz", hosts.refuse("/readyz", true, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := engine.Status()
		// Under access control, a refused version is named only to a
		// token that may see its library.
		grant := grantOf(r.Context())
		named := func(library string) bool {
			if opts.Auth == nil || opts.Auth() == nil {
				return true
			}
			return grant != nil && grant.Allows(library)
		}
		var feeds []FeedStatus
		if opts.Feeds != nil {
			feeds = opts.Feeds()
		}
		ready := st.Ready
		for _, f := range feeds {
			ready = ready && f.Delivered
		}
		if !ready {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready")
		} else {
			fmt.Fprintf(w, "ready: %d libraries, %d versions, %d refused\n", st.Libraries, st.Versions, len(st.Refused))
		}
		for _, r := range st.Refused {
			if named(r.Library) {
				fmt.Fprintf(w, "refused %s@%s: %s\n", r.Library, r.Version, r.Reason)
			}
		}
		for _, src := range st.Sources {
			switch {
			case !src.Loaded:
				fmt.Fprintf(w, "no catalog loaded from %s (%s)\n", src.Dir, src.Error)
			case src.Error != "":
				fmt.Fprintf(w, "newest catalog of %s not loaded: %s\n", src.Dir, src.Error)
			}
		}
		for _, f := range feeds {
			// A registry's error may name any library (a pull refused for
			// a version's layer); under access control only a token that
			// may read every library reads it.
			if f.Error != "" && opts.Auth != nil && opts.Auth() != nil && (grant == nil || !grant.AllowsEvery()) {
				f.Error = "details for a token that may read every library, and in the server log"
			}
			fmt.Fprintf(w, "%s\n", f)
		}
	})))
	mux.Handle("GET /metrics", hosts.refuse("/metrics", true, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", metrics.ContentType)
		if err := reg.WriteText(w); err != nil {
			log.Debug("metrics scrape not delivered", "err", err)
		}
	})))
	if opts.Site != nil {
		// The most general pattern: /mcp, /api/ and the probes above are
		// more specific and win. A page served on loopback refuses a
		// foreign Host header, as the SDK does for /mcp: a DNS-rebinding
		// page must not read the catalog through a person's browser.
		mux.Handle("/", hosts.refuse(otherLabel, false, opts.Site))
	}
	gd.next = mux
	lim.next = m.observe(recoverPanics(log, gd))
	return lim
}

// hostCheck refuses the Host headers a DNS-rebinding page sends: on
// loopback, any name but a loopback one; with allowed names, on any
// address, any name not listed (IP addresses and loopback names pass).
type hostCheck struct {
	allowed []string // lower case, without a final '.'
}

// newHostCheck makes the check of the names given (HTTPOptions.AllowedHosts).
func newHostCheck(allowed []string) hostCheck {
	h := hostCheck{}
	for _, a := range allowed {
		h.allowed = append(h.allowed, strings.ToLower(strings.TrimSuffix(a, ".")))
	}
	return h
}

// refused reports whether r's Host header is one to refuse.
func (h hostCheck) refused(r *http.Request) bool {
	if len(h.allowed) == 0 {
		return rebinding(r)
	}
	host := strings.ToLower(strings.TrimSuffix(hostname(r.Host), "."))
	if host == "" {
		return true
	}
	if _, err := netip.ParseAddr(host); err == nil || host == "localhost" {
		return false
	}
	for _, a := range h.allowed {
		if host == a || strings.HasPrefix(a, "*.") && strings.HasSuffix(host, a[1:]) {
			return false
		}
	}
	return true
}

// hostname is the host of a Host header, without its port or the
// brackets of an IPv6 address.
func hostname(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return strings.Trim(hostport, "[]")
}

// refuse serves next unless the request's Host is refused (refused):
// then 403, in the route's error shape. hostless lets a request without
// any Host through (/readyz and /metrics: HAProxy's health check sends
// none, and no browser does). /healthz never checks: it says "ok" and
// nothing else, and liveness probes must never be refused.
func (h hostCheck) refuse(route string, hostless bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.refused(r) && !(hostless && r.Host == "") {
			why := "this server listens on loopback, where a Host header naming another host is what a DNS-rebinding page sends; call it as localhost or 127.0.0.1, or serve on another address (indexer serve --http ADDR)"
			if len(h.allowed) > 0 {
				why = "it is none of the names given with --allow-host (a Host header naming another host is what a DNS-rebinding page sends); call the server by one of them or by its address, or add the name with --allow-host"
			}
			refuse(w, route, http.StatusForbidden, "forbidden", fmt.Sprintf("host %q refused: %s", truncateRunes(r.Host, 100), why))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// apiHeaders sets on every /api answer what the web page's answers carry:
// nosniff, so that a browser never reads documentation text as another
// type, and no-store, so that no cache between client and server keeps
// an answer one token was allowed to read and replays it to another.
func apiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// limiter serves at most max requests at once and gives the rest to busy.
// /healthz, /readyz and /metrics bypass it: a busy server is alive, and
// its metrics matter most then. It is the outermost layer, so that n drops
// only once next has recorded a request's metrics: when the in-flight
// gauge reads 0, every answered request has been counted.
type limiter struct {
	max        int64 // negative: no cap
	n          atomic.Int64
	next, busy http.Handler
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		l.next.ServeHTTP(w, r)
		return
	}
	n := l.n.Add(1)
	defer l.n.Add(-1)
	if l.max >= 0 && n > l.max {
		l.busy.ServeHTTP(w, r)
		return
	}
	l.next.ServeHTTP(w, r)
}

// busy answers 503 with Retry-After.
func busy(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	http.Error(w, "server busy: too many requests in flight; retry in "+strconv.Itoa(retryAfterSeconds)+" s", http.StatusServiceUnavailable)
}

// recoverPanics answers a request whose handler panicked with a short 500
// and logs the panic with its stack; the client never sees the stack. If
// the response had begun, the connection is cut instead, so the client
// cannot mistake a truncated body for a whole one. http.ErrAbortHandler
// passes through. It knows whether the response had begun from the
// statusWriter that serverMetrics.observe passes down.
func recoverPanics(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.Error("panic serving HTTP", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if sw, ok := w.(*statusWriter); ok && sw.code != 0 {
				panic(http.ErrAbortHandler)
			}
			http.Error(w, "internal server error", http.StatusInternalServerError)
		}()
		next.ServeHTTP(w, r)
	})
}

// timeoutToolCalls is MCP receiving middleware that gives each tools/call
// a deadline of d.
func timeoutToolCalls(d time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next(ctx, method, req)
		}
	}
}

// newHTTPServer returns the http.Server ListenAndServe runs: h behind a
// deadline for every phase and a cap on header size.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// ListenAndServe serves h on addr until ctx ends, then shuts down
// gracefully, giving requests in flight up to 10 seconds. ready, if not
// nil, receives the bound address once listening (useful with port 0).
func ListenAndServe(ctx context.Context, addr string, h http.Handler, log *slog.Logger, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := newHTTPServer(h, log)
	if ready != nil {
		ready(ln.Addr())
	}
	log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "endpoint", "/mcp")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown within %v: %w", shutdownTimeout, err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
