package routing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/syncbuf"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/pipeline"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/routing"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// haproxyBinary finds haproxy: the test skips without it, and fails when
// CODEX7_REQUIRE_PROXY=1 (CI installs it).
func haproxyBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CODEX7_REQUIRE_PROXY") == "1" {
			t.Fatal("haproxy not found and CODEX7_REQUIRE_PROXY=1: apt-get install haproxy")
		}
		t.Skip("haproxy not found: apt-get install haproxy (CI sets CODEX7_REQUIRE_PROXY=1)")
	}
	return bin
}

func freeListener(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// cluster is replica groups served on real ports behind a real HAProxy.
type cluster struct {
	base    string // the proxy's URL
	groups  []routing.Group
	groupOf map[string]string
	libs    []testLib
	audit   *syncbuf.Buffer // the replicas' audit lines
}

type testLib struct{ id, alias string }

// startCluster splits six libraries across two groups with Generate,
// builds each group's dist from its own generated config, serves each with
// the real HTTP server on a real port, and starts haproxy with the
// generated configuration in front.
func startCluster(t testing.TB, bin string) *cluster {
	t.Helper()
	dir := t.TempDir()
	libs := []testLib{{"/alpha/one", "uno"}, {"/beta/two", "dos"}, {"/gamma/three", "tres"}, {"/delta/four", "cuatro"}, {"/eps/five", "cinco"}, {"/zeta/six", "seis"}}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "allow: {local_roots: [%s]}\nlibraries:\n", os.TempDir())
	for _, l := range libs {
		r := gittest.New(t, "main")
		name := strings.Split(l.id, "/")[2]
		r.Write(map[string]string{"docs/guide.md": "# " + name + " guide\n\nHow to configure " + name + " connection pools.\n\n## Retries\n\nRetry " + name + " requests with backoff.\n"})
		r.Commit("docs")
		fmt.Fprintf(&cfg, "  - id: %s\n    aliases: [%s]\n    repo: %s\n", l.id, l.alias, r.Dir)
	}
	cfgPath := filepath.Join(dir, "codex7.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	groupNames := []string{"g0", "g1"}
	audit := &syncbuf.Buffer{}
	listeners := map[string]net.Listener{}
	servers := map[string][]string{}
	for _, g := range groupNames {
		listeners[g] = freeListener(t)
		servers[g] = []string{listeners[g].Addr().String()}
	}
	proxyLn := freeListener(t)
	proxyAddr := proxyLn.Addr().String()
	proxyLn.Close() // haproxy binds it
	groups, err := routing.Generate(routing.Options{Config: cfgPath, Groups: groupNames, Servers: servers, Out: filepath.Join(dir, "router"), Bind: proxyAddr})
	if err != nil {
		t.Fatal(err)
	}
	groupOf := map[string]string{}
	for _, g := range groups {
		if len(g.Libraries) == 0 {
			t.Fatalf("group %s holds no library: the test needs both groups used (%+v)", g.Name, groups)
		}
		for _, id := range g.Libraries {
			groupOf[id] = g.Name
		}
		gcfg, err := config.Load(filepath.Join(dir, "codex7."+g.Name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		dist := filepath.Join(dir, "dist-"+g.Name)
		res, err := pipeline.Build(context.Background(), gcfg, pipeline.Options{Out: dist})
		if err != nil || res.Err() != nil {
			t.Fatalf("build %s: %v %v", g.Name, err, res.Err())
		}
		engine, err := search.Open(dist)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { engine.Close() })
		// The proxy connects from 127.0.0.1; the tests' clients may
		// connect from another loopback address (clientFrom).
		srv := &http.Server{Handler: server.Handler(engine, "test", slog.New(slog.DiscardHandler), server.HTTPOptions{
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
			Audit:          slog.New(slog.NewJSONHandler(audit, nil)),
		})}
		go srv.Serve(listeners[g.Name])
		t.Cleanup(func() { srv.Close() })
	}

	base := "http://" + proxyAddr
	startHAProxy(t, bin, filepath.Join(dir, "router", "haproxy.cfg"), base)
	return &cluster{base: base, groups: groups, groupOf: groupOf, libs: libs, audit: audit}
}

// startHAProxy runs haproxy with the configuration cfg until the test
// ends, and waits until the proxy at base answers /readyz; its output is
// logged when the test fails.
func startHAProxy(t testing.TB, bin, cfg, base string) {
	t.Helper()
	cmd := exec.Command(bin, "-db", "-f", cfg)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy output:\n%s", logs.String())
		}
	})
	if !waitfor.Poll(20*time.Second, func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}) {
		t.Fatalf("the proxy at %s never answered /readyz", base)
	}
}

// TestHAProxyRoutes splits six libraries across two replica groups with
// Generate, builds each group's dist from its own generated config, serves
// each with the real HTTP server on a real port, and puts the real HAProxy
// in front with the generated configuration. Every way an agent names a
// library, over MCP and both REST versions, must reach the group that holds
// it (the response's X-Codex7-Group) and be answered; a group asked
// directly for a library it does not hold cannot answer, so the routing is
// what makes the answers right.
func TestHAProxyRoutes(t *testing.T) {
	bin := haproxyBinary(t)
	if testing.Short() {
		t.Skip("builds two dists and starts a proxy")
	}
	c := startCluster(t, bin)
	base, groups, groupOf, libs := c.base, c.groups, c.groupOf, c.libs
	type answer struct {
		status int
		group  string
		body   string
	}
	do := func(t *testing.T, method, target, body string) answer {
		t.Helper()
		req, _ := http.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return answer{status: -1, body: err.Error()}
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header.Get(routing.GroupHeader), string(data)}
	}
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	for _, l := range libs {
		want := groupOf[l.id]
		org, project, _ := strings.Cut(strings.TrimPrefix(l.id, "/"), "/")
		project2 := strings.ToUpper(project[:1]) + project[1:]
		cases := []struct{ name, method, target, body, must string }{
			{"mcp docs", "POST", base + "/mcp", call("get-library-docs", `{"libraryId":"`+l.id+`","customQuery":"retries"}`), "Retry " + project},
			{"mcp docs, version and case", "POST", base + "/mcp", call("get-library-docs", `{"libraryId":"/`+org+`/`+project2+`@main","topic":"retries"}`), "Retry " + project},
			{"mcp docs, GitHub URL", "POST", base + "/mcp", call("get-library-docs", `{"context7CompatibleLibraryID":"https://github.com/`+org+`/`+project+`","customQuery":"pools"}`), "connection pools"},
			{"mcp docs, clone URL", "POST", base + "/mcp", call("get-library-docs", `{"libraryId":"https://github.com/`+org+`/`+project+`.git","customQuery":"retries"}`), "Retry " + project},
			{"mcp docs, scp clone URL", "POST", base + "/mcp", call("get-library-docs", `{"libraryId":"git@github.com:`+org+`/`+project+`.git","customQuery":"retries"}`), "Retry " + project},
			{"mcp docs, spaces and doubled slash", "POST", base + "/mcp", call("get-library-docs", `{"libraryId":" /`+org+`//`+project+` ","customQuery":"retries"}`), "Retry " + project},
			{"mcp docs, alias", "POST", base + "/mcp", call("get-library-docs", `{"libraryId":"`+l.alias+`","customQuery":"pools"}`), "connection pools"},
			{"mcp resolve", "POST", base + "/mcp", call("resolve-library-id", `{"libraryName":"`+l.alias+`"}`), l.id},
			{"rest v2 context", "GET", base + "/api/v2/context?type=txt&query=retries&libraryId=" + url.QueryEscape(l.id), "", "Retry " + project},
			{"rest v2 context, GitHub URL and spaces", "GET", base + "/api/v2/context?type=txt&query=retries&libraryId=" + url.QueryEscape(" github.com/"+org+"/"+project+".git "), "", "Retry " + project},
			{"rest v2 search", "GET", base + "/api/v2/libs/search?query=retries&libraryName=" + project, "", l.id},
			{"rest v1 docs", "GET", base + "/api/v1/" + org + "/" + project + "/main?topic=retries", "", "Retry " + project},
		}
		for _, c := range cases {
			t.Run(l.id+"/"+c.name, func(t *testing.T) {
				a := do(t, c.method, c.target, c.body)
				if a.status != 200 || a.group != want || !strings.Contains(a.body, c.must) || strings.Contains(a.body, `"isError":true`) {
					t.Errorf("status %d from group %q, want 200 from %s holding %q; body:\n%.600s", a.status, a.group, want, c.must, a.body)
				}
			})
		}
		// The other group does not hold it: asked directly, it cannot answer.
		for _, g := range groups {
			if g.Name == want {
				continue
			}
			a := do(t, "GET", "http://"+g.Servers[0]+"/api/v2/context?type=txt&query=retries&libraryId="+url.QueryEscape(l.id), "")
			if a.status == 200 && strings.Contains(a.body, "Retry "+project) {
				t.Errorf("group %s answers for %s, which it should not hold", g.Name, l.id)
			}
		}
	}
	// The replicas trust the proxy's address: a client's requests are
	// audited as its own (the proxy names it in X-Forwarded-For), not the
	// proxy's, so that its limits are its own too.
	t.Run("client address", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
			LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
		// The client names another address itself: the proxy appends
		// the one it sees, and that one counts.
		req, _ := http.NewRequest("GET", base+"/api/v2/libs/search?query=retries&libraryName=uno", nil)
		req.Header.Set("X-Forwarded-For", "198.51.100.9")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		log := c.audit.String()
		if !strings.Contains(log, `"remote":"127.0.0.2","peer":"127.0.0.1"`) || strings.Contains(log, "198.51.100.9") {
			t.Errorf("no audit line names the client 127.0.0.2 behind the proxy 127.0.0.1, or one names the address the client wrote:\n%s", log)
		}
	})

	// A request about no library goes to any group.
	a := do(t, "POST", base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if a.status != 200 || a.group != routing.AnyBackend {
		t.Errorf("initialize: status %d from %q, want 200 from %s", a.status, a.group, routing.AnyBackend)
	}
}

// BenchmarkHAProxyHop measures what the proxy adds to a get-library-docs
// call: the same call straight to the replica holding the library, and
// through HAProxy (which buffers the body, reads its libraryId and looks
// it up in the map), one keep-alive connection each, in turns.
//
//	go test -run '^$' -bench HAProxyHop -benchtime 2000x -count 3 ./routing/
func BenchmarkHAProxyHop(b *testing.B) {
	c := startCluster(b, haproxyBinary(b))
	l := c.libs[0]
	var direct string
	for _, g := range c.groups {
		if g.Name == c.groupOf[l.id] {
			direct = "http://" + g.Servers[0]
		}
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"libraryId":"` + l.id + `","customQuery":"retries"}}}`
	for _, target := range []struct{ name, base string }{{"direct", direct}, {"proxied", c.base}} {
		b.Run(target.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for b.Loop() {
				req, _ := http.NewRequest("POST", target.base+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// TestHAProxyKeyForms puts the real HAProxy, with the generated
// configuration and map, in front of stand-in replicas (one group per
// library, answering anything), and sends every form of each library's id
// that request.ParseKey documents, over MCP (the JSON body) and REST (the
// query string): each must reach the group of the library ParseKey reads
// it as. A form the proxy's key does not read goes to "any", whose other
// groups would answer "library not found".
func TestHAProxyKeyForms(t *testing.T) {
	bin := haproxyBinary(t)
	libs := []routing.Library{{ID: "/acme/widgets", Aliases: []string{"gadgets"}}, {ID: "/Vercel/Next.js", Aliases: []string{"nextjs"}}, {ID: "/org_1/pro-ject"}}
	assign := map[string]string{}
	var groups []routing.Group
	for i, l := range libs {
		g := fmt.Sprintf("g%d", i)
		assign[l.ID] = g
		replica := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
		t.Cleanup(replica.Close)
		groups = append(groups, routing.Group{Name: g, Servers: []string{replica.Listener.Addr().String()}, Libraries: []string{l.ID}})
	}
	dir := t.TempDir()
	proxyLn := freeListener(t)
	proxyAddr := proxyLn.Addr().String()
	proxyLn.Close() // haproxy binds it
	var cfg, m bytes.Buffer
	if err := routing.WriteHAProxy(&cfg, groups, routing.HAProxyOptions{Bind: proxyAddr, MapFile: filepath.Join(dir, "libraries.map")}); err != nil {
		t.Fatal(err)
	}
	if err := routing.WriteMap(&m, routing.Entries(libs, assign)); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"haproxy.cfg": cfg.Bytes(), "libraries.map": m.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	startHAProxy(t, bin, filepath.Join(dir, "haproxy.cfg"), "http://"+proxyAddr)

	groupOf := func(form string) string {
		t.Helper()
		k, err := request.ParseKey(form)
		if err != nil {
			t.Fatalf("request.ParseKey(%q): %v: the test's forms must be ones it accepts", form, err)
		}
		for _, l := range libs {
			if strings.EqualFold(l.ID, k.ID) || k.ID == "" && (strings.EqualFold(l.ID[strings.LastIndex(l.ID, "/")+1:], k.Name) || slices.Contains(l.Aliases, strings.ToLower(k.Name))) {
				return assign[l.ID]
			}
		}
		t.Fatalf("request.ParseKey(%q) = %+v, no library of the test", form, k)
		return ""
	}
	routed := func(req *http.Request) string {
		t.Helper()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get(routing.GroupHeader)
	}
	var forms []string
	for _, l := range libs {
		id := l.ID
		o, p, _ := strings.Cut(strings.TrimPrefix(id, "/"), "/")
		forms = append(forms,
			id, id[1:], strings.ToUpper(id), "//"+id[1:], "/"+o+"//"+p, o+"///"+p+"/", id+"/v1.2", id+"@v1.2", id[1:]+"@main",
			"https://github.com/"+o+"/"+p, "HTTP://WWW.GitHub.com/"+o+"/"+p, "https://github.com/"+o+"/"+p+".git", "https://github.com/"+o+"/"+p+".git/",
			"github.com/"+o+"/"+p, "github.com/"+o+"/"+p+".git", "www.github.com/"+o+"/"+p, "/github.com/"+o+"/"+p,
			"git@github.com:"+o+"/"+p+".git", "git@github.com:"+o+"/"+p, "ssh://git@github.com/"+o+"/"+p+".git", "git+ssh://git@github.com/"+o+"/"+p,
			"https://github.com/"+o+"/"+p+"/tree/main/docs", "https://github.com/"+o+"/"+p+"?tab=readme", "https://github.com/"+o+"/"+p+"#readme",
			"https://github.com//"+o+"/"+p, "https://user@github.com:443/"+o+"/"+p,
			"https://context7.com/"+o+"/"+p, "https://context7.com/"+o+"/"+p+"/llms.txt", "context7.com/"+o+"/"+p+"/v1/llms.txt", "https://context7.com"+id+"/v1?tokens=5",
			" "+id, id+" ", "  "+id[1:]+"@v1  ", "\u00a0"+id, "/"+o+" / "+p, "/ "+o+"/"+p+" ",
			`"`+id+`"`, "'"+id+"'", "`"+id+"`", `\`+id+`\`, "“"+id+"”", "‘"+id+"’", `" `+id+` "`,
		)
	}
	forms = append(forms, "gadgets", " Gadgets ", `"nextjs"`, "Next.js", "next.js@15", "pro-ject")
	for _, form := range forms {
		want := groupOf(form)
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "get-library-docs", "arguments": map[string]any{"libraryId": form}}})
		req, _ := http.NewRequest("POST", "http://"+proxyAddr+"/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if got := routed(req); got != want {
			t.Errorf("MCP libraryId %q: routed to %q, want %q", form, got, want)
		}
		// url.QueryEscape writes a space as '+', as Context7's clients do.
		req, _ = http.NewRequest("GET", "http://"+proxyAddr+"/api/v2/context?query=x&libraryId="+url.QueryEscape(form), nil)
		if got := routed(req); got != want {
			t.Errorf("REST libraryId=%q: routed to %q, want %q", form, got, want)
		}
	}
}
