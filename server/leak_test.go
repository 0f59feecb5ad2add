package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/internal/loadgen"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/search"
)

// TestNoGoroutineLeak serves the fixture as `indexer serve --http` does
// (ListenAndServe with its timeouts, the engine watching for new builds
// and verifying in the background) and sends it a burst of every kind of
// call: complete ones from 16 clients; ones their client cancels at
// random moments; ones whose client deadline expires mid-call; ones the
// server's own tool timeout cuts (a second handler with a 1 ns timeout);
// requests whose client hangs up halfway through the body; MCP sessions
// initialized over raw HTTP and never closed; GETs of the stream the
// server does not offer; idle keep-alive connections left open. Then it
// shuts the server down and closes the engine and the clients, and
// asserts that every goroutine started since the baseline has ended
// (within 10 s) and runtime.NumGoroutine is back to the baseline, printing
// the stacks of those left otherwise. Client and server are both in this
// process, so a leak on either side fails it.
func TestNoGoroutineLeak(t *testing.T) {
	t.Run("the check sees a leak", func(t *testing.T) {
		base := goroutineStacks()
		release := make(chan struct{})
		go func() { <-release }()
		left, _ := leakedSince(base, runtime.NumGoroutine(), 100*time.Millisecond)
		close(release)
		if len(left) != 1 || !strings.Contains(left[0], "TestNoGoroutineLeak") {
			t.Errorf("a goroutine blocked on a channel: found %q, want it", left)
		}
		if left, _ := leakedSince(base, runtime.NumGoroutine(), 5*time.Second); len(left) > 0 {
			t.Errorf("after it ended: found %q", left)
		}
	})

	engine := fixtureEngine(t) // builds the artifacts; its engine is not the one served
	dir := engine.Dirs()[0]
	engine.Close()
	http.DefaultClient.CloseIdleConnections()
	base, baseN := settledGoroutines()

	served, err := search.OpenWith(dir, search.Options{VerifyInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	watchDone := make(chan struct{})
	go func() { served.Watch(ctx, 10*time.Millisecond); close(watchDone) }()
	log := slog.New(slog.DiscardHandler)
	mux := http.NewServeMux()
	mux.Handle("/", Handler(served, "test", log, HTTPOptions{}))
	mux.Handle("/cut/", http.StripPrefix("/cut", Handler(served, "test", log, HTTPOptions{ToolTimeout: time.Nanosecond})))
	addrc := make(chan net.Addr, 1)
	served1 := make(chan error, 1)
	go func() {
		served1 <- ListenAndServe(ctx, "127.0.0.1:0", mux, log, func(a net.Addr) { addrc <- a })
	}()
	base1 := "http://" + (<-addrc).String()

	clients := &clientSet{}
	burst(t, clients, base1)

	// Shutdown closes idle connections at once, but waits up to 5 s for
	// those a client opened without sending a request yet (net/http's
	// rule), which cancelled calls leave behind.
	stopped := time.Now()
	stop()
	if err := <-served1; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	t.Logf("shutdown took %v", time.Since(stopped).Round(time.Millisecond))

	<-watchDone
	served.Close()
	clients.closeIdle()

	if left, n := leakedSince(base, baseN, 10*time.Second); len(left) > 0 || n > baseN {
		t.Errorf("%d goroutines 10 s after shutdown, %d before the server started; those started since:\n\n%s",
			n, baseN, strings.Join(left, "\n\n"))
	}
}

// burst sends the calls TestNoGoroutineLeak describes to the server at
// base and checks the complete ones succeed.
func burst(t *testing.T, clients *clientSet, base string) {
	t.Helper()
	ctx := context.Background()
	endpoint := base + "/mcp"
	dial := clients.dialer(endpoint)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, dial(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := loadgen.Discover(ctx, cs, []string{"/acme/widgets"})
	cs.Close()
	if err != nil {
		t.Fatal(err)
	}
	plan := loadgen.Plan(libs, []string{"create a widget", "refresh interval", "configuration"})

	// Complete calls, and each kind of call cut short, all at once.
	var wg sync.WaitGroup
	wg.Go(func() {
		g, err := loadgen.Connect(ctx, dial, 16, plan)
		if err != nil {
			t.Error(err)
			return
		}
		defer g.Close()
		if r, err := g.Run(ctx, loadgen.RunOptions{Count: 300}); err != nil || r.Failed() > 0 || r.OK != 300 {
			t.Errorf("complete calls: %v %v %q", err, r, r.Errors)
		}
	})
	// Calls cut short: the client cancels or its deadline expires at a
	// random moment in the first 30 ms of the call, or the server's tool
	// timeout does (a new query each time, so that no answer is cached).
	var cutByClient, cutByServer atomic.Int64
	cutDial := clients.dialer(base + "/cut/mcp")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 48 {
		call := plan[i%len(plan)]
		delay := time.Duration(rng.IntN(30000)) * time.Microsecond
		switch i % 3 {
		case 0:
			wg.Go(func() {
				cancelLater := func(ctx context.Context) (context.Context, context.CancelFunc) {
					ctx, cancel := context.WithCancel(ctx)
					time.AfterFunc(delay, cancel)
					return ctx, cancel
				}
				if _, err := callOnce(ctx, dial, call, cancelLater); err != nil {
					cutByClient.Add(1)
				}
			})
		case 1:
			wg.Go(func() {
				deadline := func(ctx context.Context) (context.Context, context.CancelFunc) {
					return context.WithTimeout(ctx, delay)
				}
				if _, err := callOnce(ctx, dial, call, deadline); err != nil {
					cutByClient.Add(1)
				}
			})
		case 2:
			wg.Go(func() {
				call := loadgen.Call{Kind: loadgen.KindQuery, Library: "/acme/widgets", Query: uncachedQueries[i/3]}
				if res, err := callOnce(ctx, cutDial, call, nil); err == nil && res.IsError {
					cutByServer.Add(1)
				}
			})
		}
	}
	// Raw HTTP: bodies cut off, sessions never closed, GET /mcp, idle
	// keep-alive connections left open.
	hc := clients.client()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"careless","version":"1"}}}`
	for i := range 16 {
		wg.Go(func() {
			switch i % 4 {
			case 0:
				halfBody(t, base, initialize)
			case 1, 2:
				post(t, hc, endpoint, initialize)
			case 3:
				resp, err := hc.Get(endpoint)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	if cutByClient.Load() == 0 || cutByServer.Load() == 0 {
		t.Errorf("%d calls cut by their client, %d by the server's tool timeout: want some of each", cutByClient.Load(), cutByServer.Load())
	}
	t.Logf("%d of 32 calls cut by their client, %d of 16 by the server's tool timeout", cutByClient.Load(), cutByServer.Load())
}

// uncachedQueries are questions about the fixture asked once each in
// TestNoGoroutineLeak, so that no answer comes from the answer cache,
// which does not look at the deadline.
var uncachedQueries = []string{"polling", "layout grid", "streaming data", "install the package", "environment variables",
	"troubleshooting", "destroy a widget", "parameters", "return value", "quick start", "responsive layouts",
	"error handling", "data sources", "requirements", "theme colors", "readme"}

// callOnce connects a client through dial, makes one call under the
// context cut derives from ctx once connected (ctx itself if cut is nil),
// and closes the session.
func callOnce(ctx context.Context, dial loadgen.Dialer, call loadgen.Call, cut func(context.Context) (context.Context, context.CancelFunc)) (*mcp.CallToolResult, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, dial(0), nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	if cut != nil {
		var cancel context.CancelFunc
		ctx, cancel = cut(ctx)
		defer cancel()
	}
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: call.Tool(), Arguments: call.Args()})
}

// halfBody sends a POST announcing a body twice as long as what it sends,
// then hangs up.
func halfBody(t *testing.T, base, body string) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		strings.TrimPrefix(base, "http://"), 2*len(body), body[:len(body)/2])
	// The pause is the stall of the careless client this plays, so the
	// server is mid-body when it hangs up; among 16 clients at once no
	// condition seen from here says the server has started reading this
	// one, so it stays a sleep.
	time.Sleep(20 * time.Millisecond)
}

// post sends body to endpoint and reads the answer, leaving the
// connection idle in hc's pool.
func post(t *testing.T, hc *http.Client, endpoint, body string) {
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("initialize: %s", resp.Status)
	}
}

// clientSet keeps the HTTP clients a test made, to close their idle
// connections at the end as a process exiting would.
type clientSet struct {
	mu      sync.Mutex
	clients []*http.Client
}

// client returns a new HTTP client with a transport of its own.
func (s *clientSet) client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	c := &http.Client{Transport: tr}
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
	return c
}

// dialer is loadgen.HTTP with the clients kept.
func (s *clientSet) dialer(endpoint string) loadgen.Dialer {
	return func(i int) mcp.Transport {
		tr := loadgen.HTTP(endpoint)(i).(*mcp.StreamableClientTransport)
		tr.HTTPClient = s.client()
		return tr
	}
}

func (s *clientSet) closeIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		c.CloseIdleConnections()
	}
}

// goroutineStacks returns the stack of every goroutine but the caller's,
// by goroutine id.
func goroutineStacks() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for i, g := range bytes.Split(buf, []byte("\n\n")) {
		if i == 0 { // the caller's
			continue
		}
		if m := goroutineID.FindSubmatch(g); m != nil {
			out[string(m[1])] = string(g)
		}
	}
	return out
}

var goroutineID = regexp.MustCompile(`^goroutine (\d+) `)

// settledGoroutines waits until the goroutine count holds still for
// 100 ms (up to 5 s: what earlier tests left is winding down) and returns
// the goroutines and their count.
func settledGoroutines() (map[string]string, int) {
	n, since := runtime.NumGoroutine(), time.Now()
	waitfor.Poll(5*time.Second, func() bool {
		if m := runtime.NumGoroutine(); m != n {
			n, since = m, time.Now()
			return false
		}
		return time.Since(since) >= 100*time.Millisecond
	})
	return goroutineStacks(), runtime.NumGoroutine()
}

// leakedSince polls until no goroutine absent from base is alive and
// runtime.NumGoroutine is at most baseN, for up to wait, and returns the
// stacks of the goroutines started since base that are still alive then
// (none if it succeeded), sorted, and the goroutine count.
func leakedSince(base map[string]string, baseN int, wait time.Duration) ([]string, int) {
	var left []string
	var n int
	waitfor.Poll(wait, func() bool {
		left = left[:0]
		for id, stack := range goroutineStacks() {
			if _, ok := base[id]; !ok {
				left = append(left, stack)
			}
		}
		n = runtime.NumGoroutine()
		return len(left) == 0 && n <= baseN
	})
	slices.Sort(left)
	return left, n
}
