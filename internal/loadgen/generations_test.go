package loadgen

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// genServer publishes generation 1 of two libraries, serves them over
// streamable HTTP and returns the publisher, the engine, the MCP endpoint
// and the plan of calls over both.
func genServer(t *testing.T) (*Generations, *search.Engine, string, []Call) {
	t.Helper()
	ctx := context.Background()
	out := t.TempDir()
	g := NewGenerations(out, "/soak/alpha", "/soak/beta")
	if err := g.Publish(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if problems, err := artifacts.Verify(out); err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	engine, err := search.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	ts := httptest.NewServer(server.Handler(engine, "test", slog.New(slog.DiscardHandler), server.HTTPOptions{}))
	t.Cleanup(ts.Close)
	endpoint := ts.URL + "/mcp"
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, HTTP(endpoint)(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	libs, err := Discover(ctx, cs, g.Libraries())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		if len(l.Topics) == 0 || len(l.Paths) != len(genDocs) {
			t.Fatalf("discovered %+v, want topics and %d paths", l, len(genDocs))
		}
	}
	return g, engine, endpoint, Plan(libs, GenerationQueries())
}

// TestGenerationsAnswerWhole runs every call of the plan against each of
// two generations: every get-library-docs answer passes the check (one
// build, sections and markers alike), topics and paths stay valid from one
// generation to the next, and the checker sees both generations in order.
func TestGenerationsAnswerWhole(t *testing.T) {
	g, engine, endpoint, plan := genServer(t)
	ctx := context.Background()
	gen, err := Connect(ctx, HTTP(endpoint), 2, plan)
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	c := g.Checker()
	docsCalls := 0
	for _, call := range plan {
		if call.Tool() == ToolDocs {
			docsCalls++
		}
	}
	for n := 1; n <= 2; n++ {
		if n > 1 {
			if err := g.Publish(ctx, n); err != nil {
				t.Fatal(err)
			}
			if err := engine.Reload(ctx); err != nil {
				t.Fatal(err)
			}
		}
		r, err := gen.Run(ctx, RunOptions{Count: len(plan), Check: c.Check})
		if err != nil {
			t.Fatal(err)
		}
		if r.Failed() > 0 || r.OK != len(plan) {
			t.Fatalf("generation %d: %v %q", n, r, r.Errors)
		}
	}
	answers, gens := c.Observed()
	if answers != 2*docsCalls || !reflect.DeepEqual(gens, []int{1, 2}) {
		t.Errorf("checked %d answers from generations %v, want %d from [1 2]", answers, gens, 2*docsCalls)
	}
	if err := c.Verify(); err != nil {
		t.Error(err)
	}
}

// TestRunCountsBadAnswers checks that an answer Check rejects counts as a
// failure, apart from errors, and does not stop the run.
func TestRunCountsBadAnswers(t *testing.T) {
	_, _, endpoint, plan := genServer(t)
	ctx := context.Background()
	gen, err := Connect(ctx, HTTP(endpoint), 2, plan)
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	rejectResolve := func(a Answer) error {
		if a.Call.Kind == KindResolve {
			return errors.New("no resolving today")
		}
		if a.Start.IsZero() || a.End.Before(a.Start) || a.Client < 0 || a.Client > 1 || a.Result == nil {
			t.Errorf("implausible answer %+v", a)
		}
		return nil
	}
	r, err := gen.Run(ctx, RunOptions{Count: len(plan), Check: rejectResolve})
	if err != nil {
		t.Fatal(err)
	}
	resolves := 0
	for _, c := range plan {
		if c.Kind == KindResolve {
			resolves++
		}
	}
	if resolves == 0 || r.BadAnswers != resolves || r.OK != len(plan)-resolves || r.Failed() != resolves || r.Answered() != len(plan) {
		t.Fatalf("%v: want %d bad answers (the resolves) and the rest ok", r, resolves)
	}
	if !strings.Contains(r.Errors[0], "bad answer: no resolving today") || !strings.Contains(r.String(), "bad_answers=") {
		t.Errorf("errors %q, summary %q: want the check's reason", r.Errors, r)
	}
}

// docsResult makes a get-library-docs result as the server answers it.
func docsResult(commit string, sectionCommits []string, text string) *mcp.CallToolResult {
	var secs []any
	for i, c := range sectionCommits {
		secs = append(secs, map[string]any{"commit": c, "path": "docs/polling.md", "anchor": strings.Repeat("a", i+1)})
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"library": "/soak/alpha", "commit": commit, "sections": secs},
	}
}

func TestCheck(t *testing.T) {
	c3, c4 := GenerationCommit(3), GenerationCommit(4)
	m3, m4 := Marker(3), Marker(4)
	tests := []struct {
		name   string
		call   Call
		result *mcp.CallToolResult
		ok     bool
	}{
		{"whole", Call{Kind: KindQuery, Library: "/soak/alpha"}, docsResult(c3, []string{c3, c3}, "a "+m3+" b "+m3), true},
		{"a section of another build", Call{Kind: KindQuery, Library: "/soak/alpha"}, docsResult(c3, []string{c3, c4}, m3+" "+m3), false},
		{"text of another build", Call{Kind: KindPath, Library: "/soak/alpha"}, docsResult(c3, []string{c3, c3}, m3+" "+m4), false},
		{"a section without its marker", Call{Kind: KindQuery, Library: "/soak/alpha"}, docsResult(c3, []string{c3, c3}, m3), false},
		{"no section", Call{Kind: KindTopics, Library: "/soak/alpha"}, docsResult(c3, nil, ""), false},
		{"not a generation's commit", Call{Kind: KindQuery, Library: "/soak/alpha"}, docsResult("0123456789abcdef0123456789abcdef01234567", []string{"0123456789abcdef0123456789abcdef01234567"}, m3), false},
		{"another library", Call{Kind: KindQuery, Library: "/soak/beta"}, docsResult(c3, []string{c3}, m3), false},
		{"a library not checked", Call{Kind: KindQuery, Library: "/acme/widgets"}, docsResult("x", nil, ""), true},
		{"resolve", Call{Kind: KindResolve, Name: "alpha"}, &mcp.CallToolResult{}, true},
	}
	g := NewGenerations(t.TempDir(), "/soak/alpha", "/soak/beta")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.Checker().Check(Answer{Call: tt.call, Start: time.Now(), End: time.Now(), Result: tt.result})
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, errMixedBuilds)) {
				t.Errorf("Check = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestGenerationOf(t *testing.T) {
	for _, n := range []int{0, 1, 42, 1 << 20} {
		if got, ok := GenerationOf(GenerationCommit(n)); !ok || got != n {
			t.Errorf("GenerationOf(GenerationCommit(%d)) = %d, %v", n, got, ok)
		}
	}
	if _, ok := GenerationOf("c0ffee"); ok {
		t.Error("GenerationOf a short commit: ok")
	}
}

// TestVerify checks the order rule: an answer that started after another
// had ended must not be older; overlapping calls are free.
func TestVerify(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type obs struct {
		client, start, end, gen int
	}
	tests := []struct {
		name      string
		obs       []obs
		violation bool
	}{
		{"one client, newer and newer", []obs{{0, 0, 10, 1}, {0, 11, 20, 1}, {0, 21, 30, 2}, {0, 31, 40, 3}}, false},
		{"one client goes back", []obs{{0, 0, 10, 1}, {0, 11, 20, 2}, {0, 21, 30, 1}}, true},
		// Client 1 started before client 0's newer answer arrived: it may
		// still be answered from the older build, even after it.
		{"overlapping calls out of order", []obs{{0, 0, 10, 2}, {1, 5, 15, 1}}, false},
		{"another client goes back after an answer ended", []obs{{0, 0, 10, 2}, {1, 11, 15, 1}}, true},
		{"a newer answer long ago", []obs{{0, 0, 10, 3}, {1, 5, 50, 2}, {2, 60, 70, 2}}, true},
		{"the same generation throughout", []obs{{0, 0, 10, 5}, {1, 0, 10, 5}, {0, 20, 30, 5}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewGenerations(t.TempDir(), "/soak/alpha").Checker()
			for _, o := range tt.obs {
				c.observed["/soak/alpha"] = append(c.observed["/soak/alpha"], observation{client: o.client, start: at(o.start), end: at(o.end), gen: o.gen})
			}
			err := c.Verify()
			if (err != nil) != tt.violation || (err != nil && !errors.Is(err, errWentBack)) {
				t.Errorf("Verify = %v, want a violation: %v", err, tt.violation)
			}
		})
	}
}

func TestMix(t *testing.T) {
	a, b, c, d, e := Call{Query: "a"}, Call{Query: "b"}, Call{Query: "c"}, Call{Query: "d"}, Call{Query: "e"}
	x, y := Call{Query: "x"}, Call{Query: "y"}
	tests := []struct {
		name        string
		base, extra []Call
		every       int
		want        []Call
	}{
		{"every 2", []Call{a, b, c, d, e}, []Call{x, y}, 2, []Call{a, b, x, c, d, y, e}},
		{"cycles extra", []Call{a, b, c}, []Call{x}, 1, []Call{a, x, b, x, c, x}},
		{"no extra", []Call{a, b}, nil, 1, []Call{a, b}},
		{"every 0", []Call{a, b}, []Call{x}, 0, []Call{a, b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mix(tt.base, tt.extra, tt.every); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTrendOf(t *testing.T) {
	const mib = 1 << 20
	series := func(rss ...int64) []MemorySample {
		var s []MemorySample
		for i, r := range rss {
			s = append(s, MemorySample{At: time.Duration(i) * time.Second, ProcStatus: ProcStatus{RSS: r * mib}})
		}
		return s
	}
	tests := []struct {
		name    string
		samples []MemorySample
		window  time.Duration
		want    MemoryTrend
		growth  float64
		wantErr bool
	}{
		{"flat after warm-up", series(10, 30, 40, 40, 41, 40, 40, 41, 40, 42), 3 * time.Second,
			MemoryTrend{Window: 3 * time.Second, First: 30 * mib, Second: 40 * mib, Last: 41 * mib, Max: 42 * mib, Samples: 10}, 0.025, false},
		{"growing", series(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 3 * time.Second,
			MemoryTrend{Window: 3 * time.Second, First: 20 * mib, Second: 50 * mib, Last: 90 * mib, Max: 100 * mib, Samples: 10}, 0.8, false},
		{"too short", series(10, 20, 30, 40, 50), 3 * time.Second, MemoryTrend{}, 0, true},
		{"no samples", nil, time.Second, MemoryTrend{}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TrendOf(tt.samples, tt.window)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if g := got.Growth(); g < tt.growth-0.001 || g > tt.growth+0.001 {
				t.Errorf("growth %.3f, want %.3f", g, tt.growth)
			}
		})
	}
}
