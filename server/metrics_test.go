package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statusEngine is an Engine whose Status is given; it answers nothing.
type statusEngine struct{ st search.Status }

func (e statusEngine) Docs(context.Context, search.DocsRequest) (*search.Answer, error) {
	return nil, errors.New("no docs")
}
func (e statusEngine) FindLibraries(context.Context, libraries.Request) (*libraries.Result, error) {
	return nil, errors.New("no libraries")
}
func (e statusEngine) Resolve(context.Context, string) (*catalog.Resolved, error) {
	return nil, errors.New("no ids")
}
func (e statusEngine) Status() search.Status { return e.st }

// TestUnrankableCounted checks that versions refused because the ranker
// cannot read their index are counted apart, for an alert.
func TestUnrankableCounted(t *testing.T) {
	st := search.Status{Status: catalog.Status{Ready: true, Refused: []catalog.Refused{
		{Library: "/a/b", Version: "main", Cause: fmt.Errorf("open index: %w: 2 segments", index.ErrUnrankable)},
		{Library: "/a/c", Version: "main", Cause: fmt.Errorf("open index: %w", index.ErrCorruptStore)},
	}}}
	if got := catalogStats(statusEngine{st}); got.Refused != 2 || got.Unrankable != 1 {
		t.Errorf("stats %+v: want 2 refused, 1 of them unrankable", got)
	}
}

// TestMetricsCountContext7Tool: with Context7 configured the server has a
// third tool, get-context7-docs; /metrics must count its calls under its
// name, not under tool="other" with unknown tool names.
func TestMetricsCountContext7Tool(t *testing.T) {
	fake := remoteFixture(t)
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.NewTextHandler(io.Discard, nil)), HTTPOptions{Context7: c7client(fake, context7.Options{})}))
	defer ts.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	before := settle(t, ts.URL)
	if text, isErr := call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/facebook/react", "topic": "hooks", "mode": "code"}, nil); isErr {
		t.Fatalf("get-context7-docs: %s", text)
	}
	after := settle(t, ts.URL)
	got := moved(before, after, "codex7_mcp_tool_calls_total")
	want := map[string]float64{`codex7_mcp_tool_calls_total{outcome="ok",tool="get-context7-docs"}`: 1}
	if d := diffMaps(want, got); d != "" {
		t.Errorf("one get-context7-docs call:\n%s", d)
	}
}
