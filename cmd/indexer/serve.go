package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/pipeline"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
	"github.com/codex7/codex7/web"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve (--stdio | --http ADDR) [--artifacts DIR|oci://REF]...", `Serves the artifacts to agents over MCP, read-only: the tools
resolve-library-id and get-library-docs. With --stdio it speaks MCP on
stdin/stdout (logs go to stderr), for Claude Code, Cursor and other local
clients. Otherwise it serves streamable HTTP at /mcp, Context7's REST API
under /api (base URL http://host:port/api for Context7's clients), with
/healthz, /readyz and /metrics (Prometheus), on --http (default `+server.DefaultAddr+`: loopback; give
0.0.0.0:8080 in a container). Every other path is a read-only web page for
people: the catalog, each library's topics and documents, and the answer
the tools give for a question (--no-ui turns it off).

It never writes under the artifact directory. Manifests are checked at
start; each version's files are checksummed in the background and before
first use, and a version that fails is refused (logged, listed by /readyz)
while the rest is served. A rebuilt catalog.json is picked up without a
restart (checked every --reload-interval) and SIGHUP reloads at once;
requests in flight finish on the catalog they started with. SIGTERM or
SIGINT shuts down gracefully.

Access control (HTTP only; stdio trusts the local user): with --auth FILE,
every request to /mcp, /api and /metrics needs "Authorization: Bearer
TOKEN" with a token the file lists (by its SHA-256; make one with
'indexer token'), 401 otherwise, and sees only the libraries the token's
patterns allow (the web page asks for the token once, keeps it in a
cookie, and shows the same libraries); each token has a request rate,
429 beyond it. A client address that sends more than --auth-guesses
different unknown tokens a minute gets 429 for a while, whatever token
it sends (behind a proxy all clients share its address, unless
--trusted-proxy names the proxy: then each client counts as the address
the proxy gives in X-Forwarded-For, or --trusted-proxy-header). SIGHUP
rereads the file (a bad file keeps the old one, and says why). Every tool
call and API request gets an audit line (request id, token name, tool,
library, version, query, results, bytes, status, duration) on stderr or
in --audit-log. Browser pages may call /mcp only from an --allow-origin.
With --allow-host, a request naming any other host is refused on every
route but /healthz (DNS rebinding); without it, only on loopback.

Registries: --artifacts oci://HOST/REPO[:TAG|@DIGEST] serves what 'indexer
push' published. It is pulled into --cache-dir (verified as 'indexer pull'
does), served once pulled, and the tag is asked for (one HEAD request)
every --reload-interval: a new digest is pulled and switched to without a
restart. A registry that is down, refuses the credentials or has no such
tag at start is an error, unless the cache holds an earlier pull; while
serving, a failing registry leaves what was pulled served, is named in
/readyz and the log, and is retried with backoff. --artifacts may be
repeated, local directories and registries together; a library found in
two of them is an error, never a silent pick.

`+credentialsHelp, stdout, stderr,
		"indexer serve --stdio --artifacts /srv/codex7/dist",
		"indexer serve --http 0.0.0.0:8080 --auth tokens.yaml --artifacts oci://ghcr.io/acme/docs:latest")
	var sources listFlag
	fs.Var(&sources, "artifacts", "artifact directory (as written by indexer build) or registry reference oci://HOST/REPO[:TAG|@DIGEST] (as pushed by indexer push); repeat to serve several as one catalog (default dist)")
	cacheDir := fs.String("cache-dir", "", "where registry references are pulled to (default: the user cache dir's codex7 folder); must be writable")
	rf := addRegistryFlags(fs)
	stdio := fs.Bool("stdio", false, "speak MCP over stdin and stdout")
	addr := fs.String("http", server.DefaultAddr, "address for streamable HTTP")
	interval := durationFlag(fs, "reload-interval", 2*time.Second, "how often to look for a rebuilt catalog.json, and to ask registries whether a tag moved (0: only on SIGHUP)")
	cacheMiB := fs.Int("cache-mib", defaultCacheMiB, "memory for section text read from disk, shared by all libraries, in MiB")
	maxOpen := fs.Int("max-open", catalog.DefaultMaxOpen, "library versions kept open at once; beyond it the least recently used one no request holds closes, and re-opens when asked (each costs about 200 KB for a library of 20 pages, a few MB for a large one; -1: no bound)")
	maxInFlight := fs.Int("max-in-flight", server.DefaultMaxInFlight, "HTTP requests served at once; more get 503 with Retry-After (negative: no cap)")
	memLimit := fs.Int64("memory-limit-mib", 100, "soft memory limit in MiB: the GC works harder near it, nothing fails (0: none; GOMEMLIMIT wins)")
	authFile := fs.String("auth", "", "YAML file of bearer tokens (hashes) and the libraries each may read; HTTP only")
	guesses := fs.Int("auth-guesses", access.DefaultGuessesPerMinute, "with --auth, different unknown tokens one client address may send a minute (IPv6: per /64, and per /56 and /48 at 4 and 16 times as many) before every token it sends is refused for a while (0: no limit)")
	auditFile := fs.String("audit-log", "", "append audit lines (JSON) to this file instead of stderr")
	var origins listFlag
	fs.Var(&origins, "allow-origin", "a browser origin (https://app.example) whose pages may call /mcp; repeat for more")
	var hosts listFlag
	fs.Var(&hosts, "allow-host", "a host name (docs.example.com, *.example.com) the server answers to; once given, a request naming another host is refused on any address (DNS rebinding), IP addresses and localhost aside; repeat for more")
	var proxies listFlag
	fs.Var(&proxies, "trusted-proxy", "the address or range (10.0.0.7, 10.0.8.0/24) of a proxy in front of the server (an ingress controller, a load balancer, indexer route's HAProxy): a request from it counts as the client's it names in --trusted-proxy-header, for --auth-guesses and the audit log. Any host in these ranges may name any client: give the proxies' addresses, not the network's; repeat for more")
	proxyHeader := fs.String("trusted-proxy-header", server.HeaderXForwardedFor, "the header the trusted proxies name the client in: X-Forwarded-For or Forwarded (only that one is read: a client could write the other itself)")
	noUI := fs.Bool("no-ui", false, "serve no web page at / (HTTP only): only /mcp, /api and the probes")
	verbose := fs.Bool("v", false, "debug logs")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file at shutdown")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at shutdown")
	c7flags := addContext7Flags(fs, os.Getenv)
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	// The transport is one or the other: a server asked for both would
	// silently speak only one of them.
	if *stdio && flagGiven(fs, "http") {
		fmt.Fprintln(stderr, "indexer serve: give --stdio or --http ADDR, not both: --stdio speaks MCP on stdin and stdout for one local client, --http serves it over the network")
		return exitUsage
	}
	// Before anything is logged or opened: a bad address found by
	// net.Listen would come after a warning about who can reach it.
	if !*stdio {
		if err := checkListenAddr(*addr); err != nil {
			fmt.Fprintf(stderr, "indexer serve: %v\n", err)
			return exitUsage
		}
	}
	trusted, err := parseProxies(proxies)
	if err == nil {
		if herr := server.CheckProxyHeader(*proxyHeader); herr != nil {
			err = fmt.Errorf("--trusted-proxy-header %w", herr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "indexer serve: %v\n", err)
		return exitUsage
	}
	for _, h := range hosts {
		if !hostNameRE.MatchString(h) {
			fmt.Fprintf(stderr, "indexer serve: --allow-host %q: give a host name such as docs.example.com, or *.example.com for its subdomains, without a scheme, port or path\n", h)
			return exitUsage
		}
	}
	if *interval < 0 || *cacheMiB < 1 || *memLimit < 0 || *maxOpen == 0 || *maxOpen < -1 || *guesses < 0 {
		fmt.Fprintln(stderr, "indexer serve: --reload-interval, --memory-limit-mib and --auth-guesses must be >= 0, --cache-mib >= 1 and --max-open >= 1 (or -1: no bound)")
		return exitUsage
	}
	// The live heap of a server with every library open is a few tens of
	// MiB; without a limit the GC lets the heap grow to twice that.
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(*memLimit << 20)
	}
	if *authFile != "" && *stdio {
		fmt.Fprintln(stderr, "indexer serve: --auth applies to --http only: over stdio the local user is trusted")
		return exitUsage
	}
	// SIGHUP reloads; caught from here on, so that one sent while the
	// server starts (a registry's first answer may take a minute) is
	// handled once it serves instead of killing it.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	log := newLogger(stderr, *verbose, isTerminal(stderr))
	var policy atomic.Pointer[access.Policy]
	if *authFile != "" {
		p, err := access.LoadFile(*authFile)
		if err != nil {
			fmt.Fprintf(stderr, "indexer serve: --auth: %v\n", err)
			return exitUsage
		}
		policy.Store(p)
		log.Info("access control on", "file", *authFile, "tokens", p.Len())
	} else if !*stdio && !server.IsLoopback(*addr) {
		log.Warn("serving every library to anyone who can reach this address: give --auth FILE to require tokens", "addr", *addr)
		if len(hosts) == 0 {
			log.Warn("a web page a person opens can read this server through DNS rebinding: give --allow-host NAME for the names it is called by, or --auth FILE", "addr", *addr)
		}
	}
	auditLog := log
	if *auditFile != "" {
		f, err := os.OpenFile(*auditFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "indexer serve: audit log: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		auditLog = slog.New(slog.NewJSONHandler(f, nil))
	}
	c7, err := c7flags.client(log)
	if err != nil {
		fmt.Fprintf(stderr, "indexer serve: %v\n", err)
		return exitUsage
	}
	if len(sources) == 0 {
		sources = listFlag{"dist"}
	}
	feeds, code := openFeeds(ctx, sources, *cacheDir, *interval, rf.options(os.Getenv), log, stderr)
	if code != 0 {
		return code
	}
	// Over HTTP an empty directory is served as not ready until a build
	// publishes into it (a container may start before its artifacts); so
	// is a registry reference until its first pull.
	engine, err := search.OpenSources(feeds.dirs, search.Options{Logger: log, CacheBytes: *cacheMiB << 20, VerifyInBackground: true, AllowEmpty: !*stdio || len(feeds.mirrors) > 0, MaxOpen: *maxOpen})
	if err != nil {
		fmt.Fprintf(stderr, "indexer serve: %v (run 'indexer build' first?)\n", err)
		return exitUsage
	}
	defer engine.Close()
	// A library in two sources at start is a configuration error: stop
	// with it once every source has delivered. Later ones (a registry
	// that adds a library) are refused, logged and listed by /readyz.
	ctx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	feedsDone, firstPulls := feeds.run(ctx, engine, *stdio)
	defer feedsDone()
	var conflicted atomic.Bool
	checkConflicts := func() {
		if conflicts := conflictsOf(engine.Status()); len(conflicts) > 0 {
			conflicted.Store(true)
			fmt.Fprintf(stderr, "indexer serve: %s: serve each library from one source only\n", strings.Join(conflicts, "; "))
			stopServing()
		}
	}
	if *stdio {
		<-firstPulls
		if checkConflicts(); conflicted.Load() {
			return exitUsage
		}
	} else {
		go func() {
			select {
			case <-firstPulls:
				checkConflicts()
			case <-ctx.Done():
			}
		}()
	}
	if *interval > 0 {
		go engine.Watch(ctx, *interval)
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				log.Info("SIGHUP: reloading the catalog")
				engine.Reload(ctx)
				for _, m := range feeds.mirrors {
					m.Poll()
				}
				if *authFile != "" {
					if p, err := access.LoadFile(*authFile); err != nil {
						log.Error("access policy not reloaded: the previous one stays in force", "err", err)
					} else {
						// Tokens keep what they spent: a reload is no
						// way around a rate.
						p.CarryOver(policy.Load())
						policy.Store(p)
						log.Info("access policy reloaded", "file", *authFile, "tokens", p.Len())
					}
				}
			}
		}
	}()
	stopProfiles, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(stderr, "indexer serve: %v\n", err)
		return exitUsage
	}
	defer func() {
		if err := stopProfiles(); err != nil {
			fmt.Fprintf(stderr, "indexer serve: %v\n", err)
		}
	}()
	if *stdio {
		err = server.New(engine, pipeline.IndexerVersion, server.WithContext7(c7), server.WithAudit(auditLog)).Run(ctx, drainingStdio(ctx, os.Stdin, os.Stdout))
	} else {
		opts := server.HTTPOptions{MaxInFlight: *maxInFlight, Context7: c7, Audit: auditLog, AllowedOrigins: origins, AllowedHosts: hosts, TrustedProxies: trusted, ProxyHeader: *proxyHeader, Feeds: feeds.status}
		if *authFile != "" {
			opts.Auth = policy.Load
			opts.Guesses = access.NewGuesses(*guesses)
		}
		if !*noUI {
			opts.Site = web.New(engine, web.Options{Auth: opts.Auth, Logger: log, Repo: web.ManifestRepos(engine.Dirs(), engine.Catalog)})
			opts.SiteCookie = web.CookieName
		}
		err = server.ListenAndServe(ctx, *addr, server.Handler(engine, pipeline.IndexerVersion, log, opts), log, nil)
	}
	if conflicted.Load() {
		return exitUsage
	}
	if addrInUse(err) {
		fmt.Fprintf(stderr, "indexer serve: --http %s: the port is in use (another server, or an earlier indexer serve): choose another --http address, or stop the other server\n", *addr)
		return exitFailed
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// defaultCacheMiB is the default size of the section text cache.
const defaultCacheMiB = index.DefaultCacheBytes >> 20

// checkListenAddr returns why addr cannot be serve's --http address: it
// must be HOST:PORT with a port from 0 to 65535 (0: any free port), HOST
// empty for every interface. Whether the host resolves, or the port is
// free, only listening tells.
func checkListenAddr(addr string) error {
	const want = "give HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:8080, or 0.0.0.0:8080 in a container"
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q is not HOST:PORT: %s", addr, want)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--http %q: port %q is not a number from 0 to 65535: %s", addr, port, want)
	}
	return nil
}

// hostNameRE is what --allow-host takes: a DNS name (internal names may
// hold '_', and a fully qualified one end in '.'), optionally "*." and a
// name for its subdomains.
var hostNameRE = regexp.MustCompile(`^(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$`)

// parseProxies reads --trusted-proxy values: an address (a proxy alone)
// or a CIDR range, IPv4-mapped IPv6 ones as IPv4 (as peers are compared).
// A range of every address is refused: every client could then name any
// address.
func parseProxies(values []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range values {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, fmt.Errorf("--trusted-proxy %q: give an address (10.0.0.7) or a range (10.0.8.0/24, fd00:1::/64) of the proxies in front of the server", v)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() {
			if p.Bits() < 96 {
				return nil, fmt.Errorf("--trusted-proxy %q: an IPv4-mapped range must be at least /96; give the IPv4 range instead", v)
			}
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		if p.Bits() == 0 {
			return nil, fmt.Errorf("--trusted-proxy %q trusts every address, so that any client could name any address: give the proxies' addresses", v)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
