package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/contextitems"
	"github.com/codex7/codex7/fixtures"
	"github.com/codex7/codex7/internal/buildtest"
)

// contextFixtures builds the fixture libraries (/acme/widgets, /acme/cli)
// in-process and returns the artifact directory and catalog.
func contextFixtures(t *testing.T) (string, *artifacts.Catalog) {
	t.Helper()
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "build", "--config", buildtest.Fixtures(t, "../..", nil), "--out", out); code != exitOK {
		t.Fatalf("build exit %d: %s", code, stderr)
	}
	cat, err := artifacts.ReadCatalog(out)
	if err != nil {
		t.Fatal(err)
	}
	return out, cat
}

const contextPrompt = "How do I deploy to production with the Acme CLI? I also set the theme of acme widgets with environment variables."

func TestContextJSON(t *testing.T) {
	out, cat := contextFixtures(t)
	version := fixtures.Branch
	code, stdout, stderr := runCLI(t, "context", "--artifacts", out, "--json", contextPrompt)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var res contextitems.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if len(res.Libraries) != 2 {
		t.Fatalf("libraries %+v, want the two fixture libraries", res.Libraries)
	}
	for i, want := range []struct{ name, id string }{{"Acme CLI", "/acme/cli"}, {"Acme Widgets", "/acme/widgets"}} {
		l := res.Libraries[i]
		if l.Name != want.name || l.ID != want.id || l.Version != version || l.Source != contextitems.SourceLocal ||
			l.Status != contextitems.StatusOK || l.Relevance != 1 || len(l.Found) != 1 || l.Found[0].Kind != "mention" {
			t.Errorf("library %d = %+v, want %s (%s@%s)", i, l, want.name, want.id, version)
		}
	}
	if len(res.Items) < 2 || len(res.Items) > 2*contextitems.DefaultPerLibrary {
		t.Fatalf("%d items", len(res.Items))
	}
	perLib := map[string]int{}
	for i, it := range res.Items {
		perLib[it.Library]++
		lib := cat.Library(it.Library)
		if lib == nil {
			t.Fatalf("item %d of an unknown library: %+v", i, it)
		}
		dir := "fixtures/docs/" + strings.ReplaceAll(strings.TrimPrefix(it.Library, "/"), "/", "-") + "/"
		if it.Source != contextitems.SourceLocal || it.Version != version || it.Commit != lib.Version(version).Commit ||
			!strings.HasPrefix(it.Path, dir) || it.Anchor == "" || it.ID != "codex7:"+it.Library+"@"+version+":"+it.Path+"#"+it.Anchor ||
			!strings.HasPrefix(it.Title, lib.Title+": ") || it.Excerpt == "" || it.Summary == "" || it.Tokens <= 0 ||
			it.Relevance <= 0 || it.Relevance > 1 || it.URL != "" {
			t.Errorf("item %d lacks its provenance: %+v", i, it)
		}
	}
	if perLib["/acme/cli"] == 0 || perLib["/acme/widgets"] == 0 || res.Items[0].Relevance != 1 {
		t.Errorf("items per library %v, first relevance %v", perLib, res.Items[0].Relevance)
	}
	found := false
	for _, it := range res.Items {
		found = found || it.Path == "fixtures/docs/acme-widgets/docs/getting-started/configuration.md" && it.Anchor == "environment-variables"
	}
	if !found {
		t.Errorf("the widgets' environment variables section is missing: %+v", res.Items)
	}
}

func TestContextMarkdown(t *testing.T) {
	out, cat := contextFixtures(t)
	version := fixtures.Branch
	commit := cat.Library("/acme/cli").Version(version).Commit
	for _, args := range [][]string{{"--markdown"}, nil} {
		code, stdout, stderr := runCLI(t, append(append([]string{"context", "--artifacts", out}, args...), contextPrompt)...)
		if code != exitOK || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		for _, want := range []string{
			"# Documentation for this prompt\n",
			"Codex7 found Acme CLI (/acme/cli@" + version + "), Acme Widgets (/acme/widgets@" + version + ") in the prompt.",
			"\n## Acme CLI: ",
			"Source: `/acme/cli@" + version + "` · `fixtures/docs/acme-cli/",
			" · commit " + commit[:12] + "\n",
			"\n## Acme Widgets: Configuration › Environment variables\n\nSource: `/acme/widgets@" + version + "` · `fixtures/docs/acme-widgets/docs/getting-started/configuration.md#environment-variables`",
			"Environment variables override the config file.",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, stdout)
			}
		}
	}
}

func TestContextDegrades(t *testing.T) {
	out, _ := contextFixtures(t)
	// Nothing found: nothing printed (a hook adds nothing), exit 0.
	if code, stdout, stderr := runCLI(t, "context", "--artifacts", out, "What are the next steps?"); code != exitOK || stdout != "" || stderr != "" {
		t.Errorf("no library: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _ := runCLI(t, "context", "--artifacts", out, "--json", "What are the next steps?"); code != exitOK || strings.Join(strings.Fields(stdout), "") != `{"libraries":[],"items":[]}` {
		t.Errorf("no library, JSON: exit %d, %s", code, stdout)
	}
	// A library the artifacts lack, without a remote: listed, no items.
	code, stdout, _ := runCLI(t, "context", "--artifacts", out, "--json", "npm i left-pad")
	var res contextitems.Result
	if err := json.Unmarshal([]byte(stdout), &res); code != exitOK || err != nil || len(res.Items) != 0 ||
		len(res.Libraries) != 1 || res.Libraries[0].Name != "left-pad" || res.Libraries[0].Status != contextitems.StatusUnknown {
		t.Errorf("unknown library: exit %d, %v, %s", code, err, stdout)
	}
	// No artifacts at all: a warning, exit 0.
	if code, stdout, stderr := runCLI(t, "context", "--artifacts", filepath.Join(out, "nope"), "deploy with the Acme CLI"); code != exitOK || stdout != "" || !strings.HasPrefix(stderr, "indexer context: no local artifacts in ") {
		t.Errorf("no artifacts: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestContextStdin(t *testing.T) {
	out, _ := contextFixtures(t)
	run := func(stdin string, args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := runContext(context.Background(), append([]string{"--artifacts", out}, args...), strings.NewReader(stdin), &o, &e)
		return code, o.String(), e.String()
	}
	event := `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/src","hook_event_name":"UserPromptSubmit","prompt":"deploy to prod with the Acme CLI"}`
	if code, stdout, stderr := run(event, "--hook"); code != exitOK || !strings.Contains(stdout, "Source: `/acme/cli@") || stderr != "" {
		t.Errorf("--hook: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, stderr := run("not json", "--hook"); code != exitOK || stdout != "" || !strings.Contains(stderr, "cannot read the prompt") {
		t.Errorf("--hook with a bad event: exit %d, stdout %q, stderr %q; a hook must never block the prompt", code, stdout, stderr)
	}
	if code, stdout, _ := run("configure acme widgets", "--json", "-"); code != exitOK || !strings.Contains(stdout, `"id": "/acme/widgets"`) {
		t.Errorf("prompt from stdin: exit %d, %s", code, stdout)
	}
}

func TestContextUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"context", "--help"}, exitOK, "UserPromptSubmit"},
		{[]string{"context"}, exitUsage, "give the prompt"},
		{[]string{"context", "--json", "--markdown", "x"}, exitUsage, "not both"},
		// A hook's bad usage is exit 1: Claude Code blocks the prompt on 2.
		{[]string{"context", "--hook", "x"}, exitFailed, "--hook reads the prompt from stdin"},
		{[]string{"context", "--hook", "--tokens", "0"}, exitFailed, "--tokens"},
		{[]string{"context", "--artifact", "d", "--hook"}, exitFailed, "flag provided but not defined"},
		{[]string{"context", "--tokens", "10", "x"}, exitUsage, "--tokens"},
		{[]string{"context", "--timeout", "0s", "x"}, exitUsage, "--timeout"},
		{[]string{"context", "--nope", "x"}, exitUsage, "flag provided but not defined"},
		{[]string{"help"}, exitOK, "indexer context"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output %q does not contain %q", code, tt.code, stdout+stderr, tt.want)
			}
		})
	}
}
