package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// damage is one way a file goes bad on disk.
type damage struct {
	name string
	do   func(t *testing.T, p string)
}

// damages are the ways TestCorruptArtifacts breaks each file: a bit
// flipped in the middle (bit rot: the size stays, JSON often still
// parses), cut in half (a copy that stopped), deleted, emptied (a full
// disk), and garbage appended (a botched concatenation).
var damages = []damage{
	{"flip", func(t *testing.T, p string) {
		data := readFile(t, p)
		data[len(data)/2] ^= 0x01
		writeFile(t, p, data)
	}},
	{"truncate", func(t *testing.T, p string) { writeFile(t, p, readFile(t, p)[:fileSize(t, p)/2]) }},
	{"delete", func(t *testing.T, p string) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}},
	{"empty", func(t *testing.T, p string) { writeFile(t, p, nil) }},
	{"append", func(t *testing.T, p string) { writeFile(t, p, append(readFile(t, p), "\x00garbage\xff{}\n"...)) }},
}

// corruptVersions are the library versions of the corruption fixture.
// Damage is done to both versions of /acme/widgets: main is the latest,
// whose topics are read when the catalog loads, v1.0.0 one opened only
// when asked for.
var corruptVersions = []struct{ lib, version string }{
	{"/acme/cli", "main"}, {"/acme/widgets", "main"}, {"/acme/widgets", "v1.0.0"},
}

// TestCorruptArtifacts damages every file of an artifact version (the
// manifest, topics.json, documents.json and every file of the index
// directory, the section store among them) and catalog.json, in every way
// of damages, one at a time, and checks that:
//   - `indexer verify` exits 1 naming exactly the damaged file;
//   - search.Engine refuses exactly that library version, with a reason
//     naming the file, and serves the others (a damaged catalog.json
//     fails to load and the catalog loaded before stays served);
//   - over HTTP, /readyz lists the refused version and its reason,
//     /metrics counts it, and /api and /mcp answer for the other versions
//     and refuse it with that reason.
func TestCorruptArtifacts(t *testing.T) {
	pristine := corruptFixture(t)
	type tcase struct {
		rel string // the damaged file, relative to the output directory
		lib string // its library version, or "" for catalog.json
		ver string
	}
	cases := []tcase{{rel: artifacts.CatalogFile}}
	for _, v := range corruptVersions[1:] {
		dir := artifacts.Dir(pristine, v.lib, v.version)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(pristine, p)
				cases = append(cases, tcase{filepath.ToSlash(rel), v.lib, v.version})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]bool{}
	for _, c := range cases {
		kinds[c.rel[strings.LastIndex(c.rel, "/")+1:]] = true
	}
	for _, want := range []string{artifacts.CatalogFile, artifacts.ManifestFile, artifacts.TopicsFile, artifacts.DocumentsFile, "sections.bin"} {
		if !kinds[want] {
			t.Fatalf("the fixture has no %s: files %v", want, cases)
		}
	}
	start := time.Now()
	n := 0
	for _, c := range cases {
		for _, dmg := range damages {
			n++
			t.Run(c.rel+"/"+dmg.name, func(t *testing.T) {
				out := copyTree(t, pristine)
				// An engine that loaded the sound artifacts, as a running
				// server has, sees the damage on its next load.
				running, err := search.Open(out)
				if err != nil {
					t.Fatal(err)
				}
				defer running.Close()
				dmg.do(t, filepath.Join(out, filepath.FromSlash(c.rel)))

				checkVerifyNames(t, out, c.rel)
				if c.lib == "" {
					checkCatalogRefused(t, out, running, c.rel)
					return
				}
				reasonHas := strings.TrimPrefix(c.rel, strings.Trim(c.lib, "/")+"/"+c.ver+"/")
				checkEngineRefuses(t, out, c.lib, c.ver, reasonHas)
				checkHTTPRefuses(t, out, c.lib, c.ver, reasonHas)
			})
		}
	}
	t.Logf("%d files × %d damages = %d cases in %s", len(cases), len(damages), n, time.Since(start).Round(time.Millisecond))
}

// corruptFixture builds /acme/cli@main and /acme/widgets at main and
// v1.0.0 from the fixture documentation.
func corruptFixture(t *testing.T) string {
	t.Helper()
	var cfg strings.Builder
	cfg.WriteString("libraries:\n")
	for _, lib := range []string{"cli", "widgets"} {
		r := gittest.New(t, "main")
		r.CopyDir("../../fixtures/docs/acme-"+lib, "")
		r.Commit("docs")
		r.Git("tag", "v1.0.0")
		versions := "[{ref: main}]"
		if lib == "widgets" {
			versions = "[{ref: v1.0.0}, {ref: main}]"
		}
		fmt.Fprintf(&cfg, "  - id: /acme/%s\n    repo: %s\n    versions: %s\n    latest: main\n", lib, r.Dir, versions)
	}
	out := t.TempDir()
	buildtest.Build(t, out, cfg.String())
	if probs, err := artifacts.Verify(out); err != nil || len(probs) > 0 {
		t.Fatalf("the fixture does not verify: %v %v", probs, err)
	}
	return out
}

// checkVerifyNames runs `indexer verify` and checks that it fails naming
// rel and no other file.
func checkVerifyNames(t *testing.T, out, rel string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, "verify", out)
	var named []string
	for _, line := range strings.Split(stdout, "\n") {
		if p, ok := strings.CutPrefix(line, "BAD "); ok {
			p, _, _ = strings.Cut(p, ": ")
			if !slices.Contains(named, p) {
				named = append(named, p)
			}
		}
	}
	if code != exitFailed || !slices.Equal(named, []string{rel}) {
		t.Errorf("indexer verify: exit %d naming %v, want exit %d naming %s\n%s%s", code, named, exitFailed, rel, stdout, stderr)
	}
}

// checkCatalogRefused checks a damaged catalog.json: a new engine does
// not load it, saying why, and is not ready; a running one keeps serving
// the catalog it had and says why the new one was not loaded.
func checkCatalogRefused(t *testing.T, out string, running *search.Engine, rel string) {
	t.Helper()
	if e, err := search.Open(out); err == nil {
		e.Close()
		t.Errorf("a damaged %s was loaded", rel)
	} else if !strings.Contains(err.Error(), rel) {
		t.Errorf("load error %q does not name %s", err, rel)
	}
	if err := running.Reload(context.Background()); err == nil {
		t.Errorf("a running engine reloaded a damaged %s", rel)
	}
	st := running.Status()
	if !st.Ready || st.Versions != len(corruptVersions) || !strings.Contains(st.LastError, rel) {
		t.Errorf("running engine after a damaged catalog: ready %v, %d versions, last error %q; want the previous catalog's %d versions served and the error", st.Ready, st.Versions, st.LastError, len(corruptVersions))
	}
	for _, v := range corruptVersions {
		if _, err := running.Docs(context.Background(), search.DocsRequest{Library: v.lib + "@" + v.version, Query: "install"}); err != nil {
			t.Errorf("%s@%s not served from the previous catalog: %v", v.lib, v.version, err)
		}
	}
	// Over HTTP, a server started on it is not ready and says why.
	e, err := search.OpenWith(out, search.Options{AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ts := httptest.NewServer(server.Handler(e, "test", slog.New(slog.DiscardHandler), server.HTTPOptions{}))
	defer ts.Close()
	code, body := httpGet(t, ts.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, rel) {
		t.Errorf("/readyz: %d %q, want 503 naming %s", code, body, rel)
	}
	if m := scrapeMetrics(t, ts.URL); m["codex7_ready"] != 0 {
		t.Errorf("codex7_ready %v, want 0", m["codex7_ready"])
	}
}

// checkEngineRefuses opens the damaged artifacts without background
// verification: the first request for the damaged version is refused
// with a reason naming the file, as are the next ones, while the other
// versions answer; the engine's status lists exactly that refusal.
func checkEngineRefuses(t *testing.T, out, lib, ver, reasonHas string) {
	t.Helper()
	e, err := search.Open(out)
	if err != nil {
		t.Fatalf("open: %v (one damaged version must not stop the others)", err)
	}
	defer e.Close()
	ctx := context.Background()
	for range 2 {
		for _, v := range corruptVersions {
			_, err := e.Docs(ctx, search.DocsRequest{Library: v.lib + "@" + v.version, Query: "install"})
			switch {
			case v.lib != lib || v.version != ver:
				if err != nil {
					t.Errorf("%s@%s, not damaged: %v", v.lib, v.version, err)
				}
			case !errors.Is(err, catalog.ErrVersionUnavailable) || !strings.Contains(err.Error(), reasonHas):
				t.Errorf("%s@%s: %v, want ErrVersionUnavailable naming %s", v.lib, v.version, err, reasonHas)
			}
		}
	}
	refused := e.Status().Refused
	if len(refused) != 1 || refused[0].Library != lib || refused[0].Version != ver || !strings.Contains(refused[0].Reason, reasonHas) {
		t.Errorf("refused %+v, want %s@%s naming %s", refused, lib, ver, reasonHas)
	}
}

// checkHTTPRefuses serves the damaged artifacts as `indexer serve --http`
// does (background verification, no request needed to find the damage)
// and checks /readyz, /metrics, the Context7-compatible API and MCP.
func checkHTTPRefuses(t *testing.T, out, lib, ver, reasonHas string) {
	t.Helper()
	e, err := search.OpenWith(out, search.Options{VerifyInBackground: true, AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ts := httptest.NewServer(server.Handler(e, "test", slog.New(slog.DiscardHandler), server.HTTPOptions{}))
	defer ts.Close()
	wantLine := fmt.Sprintf("refused %s@%s: ", lib, ver)
	var body string
	waitfor.Nil(t, 10*time.Second, "/readyz to report the damaged version", func() error {
		var code int
		if code, body = httpGet(t, ts.URL+"/readyz"); code != http.StatusOK || !strings.Contains(body, "1 refused") {
			return fmt.Errorf("%d %q", code, body)
		}
		return nil
	})
	var line string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "refused ") {
			line = l
		}
	}
	if !strings.HasPrefix(line, wantLine) || !strings.Contains(line, reasonHas) {
		t.Errorf("/readyz refusal %q, want %q… naming %s", line, wantLine, reasonHas)
	}
	m := scrapeMetrics(t, ts.URL)
	if m["codex7_catalog_refused_versions"] != 1 || m["codex7_catalog_versions"] != float64(len(corruptVersions)-1) || m["codex7_ready"] != 1 {
		t.Errorf("metrics: refused %v, versions %v, ready %v; want 1, %d, 1", m["codex7_catalog_refused_versions"], m["codex7_catalog_versions"], m["codex7_ready"], len(corruptVersions)-1)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "corrupt-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, v := range corruptVersions {
		id := v.lib + "/" + v.version
		damaged := v.lib == lib && v.version == ver
		code, body := httpGet(t, ts.URL+"/api/v2/context?"+url.Values{"libraryId": {id}, "query": {"install"}}.Encode())
		var apiErr struct{ Error, Message string }
		json.Unmarshal([]byte(body), &apiErr)
		switch {
		case !damaged && code != http.StatusOK:
			t.Errorf("/api for %s, not damaged: %d %s", id, code, body)
		case damaged && (code != http.StatusServiceUnavailable || apiErr.Error != "library_unavailable" || !strings.Contains(apiErr.Message, reasonHas)):
			t.Errorf("/api for damaged %s: %d %s, want 503 library_unavailable naming %s", id, code, body, reasonHas)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-library-docs", Arguments: map[string]any{"libraryId": id, "customQuery": "install"}})
		if err != nil {
			t.Fatalf("get-library-docs %s: %v", id, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		switch {
		case !damaged && res.IsError:
			t.Errorf("/mcp get-library-docs %s, not damaged: %s", id, text)
		case damaged && (!res.IsError || !strings.Contains(text, "not served") || !strings.Contains(text, reasonHas)):
			t.Errorf("/mcp get-library-docs damaged %s: isError %v %q, want a refusal naming %s", id, res.IsError, text, reasonHas)
		}
	}
}

func httpGet(t testing.TB, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// scrapeMetrics returns /metrics' series without labels, by name.
func scrapeMetrics(t *testing.T, base string) map[string]float64 {
	t.Helper()
	_, body := httpGet(t, base+"/metrics")
	m := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		var name string
		var v float64
		if strings.HasPrefix(line, "#") || strings.Contains(line, "{") {
			continue
		}
		if _, err := fmt.Sscanf(line, "%s %g", &name, &v); err == nil {
			m[name] = v
		}
	}
	return m
}

// copyTree copies the directory src into a new temporary directory.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, p string) int {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Size())
}
