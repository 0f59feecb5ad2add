package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/internal/loadgen"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/search"
)

// reloadPublishes is how many new generations TestHotReloadUnderLoad
// publishes while the load runs.
const reloadPublishes = 25

// TestHotReloadUnderLoad republishes two libraries 25 times while eight
// clients call every kind of tool over streamable HTTP, the server picking
// builds up as `indexer serve` does (Watch polling catalog.json, versions
// checksummed in the background, a request that finds its version
// republished under it retried on a fresh catalog). It asserts that no call
// fails, that every get-library-docs answer comes wholly from one build
// (its commit, every section's commit and every marker in its text agree;
// see loadgen.Checker.Check), and that no answer comes from an older build
// than an answer that had ended before its request was sent (calls that
// overlap may finish in either order; see loadgen.Checker.Verify). It also
// checks that the load saw many builds, not just the first and last, and
// that the server ends on the last one. search's TestReloadUnderLoad is
// the same at the engine, without MCP or HTTP, over full builds.
func TestHotReloadUnderLoad(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := t.TempDir()
	gens := loadgen.NewGenerations(out, "/soak/alpha", "/soak/beta")
	if err := gens.Publish(ctx, 1); err != nil {
		t.Fatal(err)
	}
	engine, err := search.OpenWith(out, search.Options{VerifyInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	go engine.Watch(ctx, 5*time.Millisecond)
	ts := httptest.NewServer(Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{}))
	defer ts.Close()
	endpoint := ts.URL + "/mcp"

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, loadgen.HTTP(endpoint)(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := loadgen.Discover(ctx, cs, gens.Libraries())
	cs.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Lean clients speak the protocol version agents do, whose tool calls
	// take the fast path.
	g, err := loadgen.ConnectLean(ctx, endpoint, 8, loadgen.Plan(libs, loadgen.GenerationQueries()))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()

	check := gens.Checker()
	loadCtx, stopLoad := context.WithCancel(ctx)
	results := make(chan *loadgen.Result, 1)
	go func() {
		// The load runs until the publishes are done; the time bound is a
		// backstop.
		r, _ := g.Run(loadCtx, loadgen.RunOptions{Duration: time.Minute, Check: check.Check})
		results <- r
	}()
	start := time.Now()
	for n := 2; n <= 1+reloadPublishes; n++ {
		// Publish at uneven intervals, some faster than the watcher polls,
		// so that requests meet directories republished under the catalog
		// they loaded as well as new catalogs. This sleep is no wait for
		// an event but the spacing under test: it stays.
		time.Sleep(time.Duration(n%4) * 10 * time.Millisecond)
		if err := gens.Publish(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	published := time.Since(start)
	// The load goes on until it has met the last build.
	lastGen := 1 + reloadPublishes
	sawLast := waitfor.Poll(10*time.Second, func() bool {
		_, seen := check.Observed()
		return slices.Contains(seen, lastGen)
	})
	stopLoad()
	r := <-results

	if r.Failed() > 0 {
		t.Errorf("%v: %q", r, r.Errors)
	}
	if err := check.Verify(); err != nil {
		t.Error(err)
	}
	answers, seen := check.Observed()
	t.Logf("%d publishes in %v; %v; %d answers checked, from %d generations %v; %d catalogs loaded",
		reloadPublishes, published.Round(time.Millisecond), r, answers, len(seen), seen, engine.Status().Reloads)
	if len(seen) < reloadPublishes/3 {
		t.Errorf("answers came from %d generations %v of %d: the load did not run across the publishes", len(seen), seen, 1+reloadPublishes)
	}

	// The server ends on the last build.
	if !sawLast {
		t.Errorf("no answer of the load came from the last build (generation %d) within 10 s", lastGen)
	}
	last := loadgen.GenerationCommit(lastGen)
	waitfor.Nil(t, 10*time.Second, "the server to answer from the last build", func() error {
		a, err := engine.Docs(ctx, search.DocsRequest{Library: "/soak/alpha", Query: "create a widget"})
		if err == nil && a.Commit != last {
			err = fmt.Errorf("answer %+v, want commit %s", a, last)
		}
		return err
	})
}
