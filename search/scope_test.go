package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
)

// allow is a Scope of exact ids.
type allow []string

func (a allow) Allows(id string) bool {
	for _, x := range a {
		if x == id {
			return true
		}
	}
	return false
}

// TestScopeHidesLibraries checks that a library outside a request's scope
// is answered for exactly as if it had never been built: every call gives
// the same answer on a catalog of /acme/widgets and /acme/cli seen through
// a scope of /acme/cli alone as on a catalog holding /acme/cli only.
func TestScopeHidesLibraries(t *testing.T) {
	widgets := "  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets, gadgets]\n    repo: " + fixtureRepo(t, "acme-widgets") + "\n"
	cli := "  - id: /acme/cli\n    aliases: [gadgets]\n    repo: " + fixtureRepo(t, "acme-cli") + "\n"
	both, alone := openCatalog(t, widgets+cli), openCatalog(t, cli)
	scoped := request.WithScope(context.Background(), allow{"/acme/cli"})
	plain := context.Background()

	calls := map[string]func(context.Context, *Engine) string{}
	for _, id := range []string{"/acme/widgets", "widgets", "/acme/widgets@main", "gadgets", "acme", "/acme/widget", "/acme/cli", "cli"} {
		calls["Resolve "+id] = func(ctx context.Context, e *Engine) string {
			r, err := e.Resolve(ctx, id)
			if err != nil {
				return "error: " + err.Error()
			}
			return r.Library.ID + "@" + r.Version.Version
		}
		calls["Docs "+id] = func(ctx context.Context, e *Engine) string {
			a, err := e.Docs(ctx, DocsRequest{Library: id, Query: "install"})
			if err != nil {
				return "error: " + err.Error()
			}
			return a.Markdown()
		}
		calls["Docs path "+id] = func(ctx context.Context, e *Engine) string {
			a, err := e.Docs(ctx, DocsRequest{Library: id, Path: "."})
			if err != nil {
				return "error: " + err.Error()
			}
			return a.Markdown()
		}
		calls["Search "+id] = func(ctx context.Context, e *Engine) string {
			r, err := e.Search(ctx, Request{Library: id, Query: "install"})
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprint(len(r.Hits))
		}
		calls["Topics "+id] = func(ctx context.Context, e *Engine) string {
			r, _, err := e.Topics(ctx, id)
			if err != nil {
				return "error: " + err.Error()
			}
			return r.Library.ID
		}
		calls["Documents "+id] = func(ctx context.Context, e *Engine) string {
			_, docs, err := e.Documents(ctx, id)
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprint(len(docs))
		}
	}
	for _, name := range []string{"widgets", "acme", "gadgets", "cli", "command line"} {
		calls["Libraries "+name] = func(ctx context.Context, e *Engine) string {
			var ids []string
			for _, m := range e.Libraries(ctx, name, "", 10) {
				ids = append(ids, m.Library.ID+" "+string(m.Match))
			}
			return strings.Join(ids, ", ")
		}
		calls["FindLibraries "+name] = func(ctx context.Context, e *Engine) string {
			res, err := e.FindLibraries(ctx, libraries.Request{Name: name, Detail: "full"})
			if err != nil {
				return "error: " + err.Error()
			}
			var ids []string
			for _, m := range res.Matches {
				ids = append(ids, fmt.Sprintf("%s topics=%d docs=%d", m.Library.ID, len(m.Topics), len(m.Docs)))
			}
			return strings.Join(ids, ", ")
		}
	}
	hidden := 0
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			got, want := call(scoped, both), call(plain, alone)
			if got != want {
				t.Errorf("through a scope of /acme/cli:\n%s\nwith /acme/widgets never built:\n%s", got, want)
			}
			if call(plain, both) != want {
				hidden++
			}
		})
	}
	// The comparison means something only if the unscoped catalog answers
	// differently: otherwise the scope hid nothing.
	if hidden < len(calls)/3 {
		t.Errorf("only %d of %d calls answer differently with /acme/widgets visible", hidden, len(calls))
	}
}

// TestScopeHidesFromRelevance checks that a library hidden by a scope does
// not shape the relevance of the others: resolve ranks by BM25F, whose
// idf and average field lengths would otherwise count the hidden library,
// telling a token which words other libraries use.
func TestScopeHidesFromRelevance(t *testing.T) {
	widgets, cli := fixtureRepo(t, "acme-widgets"), fixtureRepo(t, "acme-cli")
	visibleLibs := "  - id: /acme/widgets\n    title: Acme Widgets\n    description: Dashboard widgets for the command line\n    aliases: [widgets, gadgets]\n    repo: " + widgets + "\n" +
		"  - id: /acme/cli\n    description: The command line tool\n    aliases: [gadgets]\n    repo: " + cli + "\n"
	hiddenLib := "  - id: /beta/tools\n    title: Beta Tools\n    description: Command line gadgets and widgets, widgets, widgets\n    aliases: [gadgets, line]\n    repo: " + cli + "\n"
	all, alone := openCatalog(t, visibleLibs+hiddenLib), openCatalog(t, visibleLibs)
	scoped := request.WithScope(context.Background(), allow{"/acme/widgets", "/acme/cli"})
	ranking := func(ctx context.Context, e *Engine, name, query string) string {
		var out []string
		for _, m := range e.Libraries(ctx, name, query, 10) {
			out = append(out, fmt.Sprintf("%s %s %.9f", m.Library.ID, m.Match, m.Relevance))
		}
		return strings.Join(out, ", ")
	}
	differs := 0
	for _, c := range [][2]string{{"gadgets", ""}, {"widgets", "command line"}, {"command line", ""}, {"acme", "widgets"}, {"line gadgets", "dashboard"}} {
		got, want := ranking(scoped, all, c[0], c[1]), ranking(context.Background(), alone, c[0], c[1])
		if got != want {
			t.Errorf("%q %q through a scope without /beta/tools:\n%s\nwith /beta/tools never built:\n%s", c[0], c[1], got, want)
		}
		if ranking(context.Background(), all, c[0], c[1]) != want {
			differs++
		}
	}
	if differs == 0 {
		t.Error("no ranking changes with /beta/tools visible: the test shows nothing")
	}
}
