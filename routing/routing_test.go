package routing

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/codex7/codex7/config"
)

func libsN(n int) []Library {
	libs := make([]Library, n)
	for i := range libs {
		libs[i] = Library{ID: fmt.Sprintf("/org%02d/lib%05d", i%50, i)}
	}
	return libs
}

// TestAssign: the split is deterministic whatever the order of libraries
// and groups, even, and adding a fourth group moves only the libraries it
// wins (about a quarter), never one between two old groups.
func TestAssign(t *testing.T) {
	libs := libsN(4000)
	a, err := Assign(libs, []string{"a", "b", "c"}, ByLibrary)
	if err != nil {
		t.Fatal(err)
	}
	rev := append([]Library(nil), libs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b, _ := Assign(rev, []string{"c", "a", "b"}, ByLibrary)
	count := map[string]int{}
	for id, g := range a {
		if b[id] != g {
			t.Fatalf("%s: group %s, then %s with the inputs reordered", id, g, b[id])
		}
		count[g]++
	}
	for g, n := range count {
		if n < 1100 || n > 1570 { // 1333 ± about 6 standard deviations
			t.Errorf("group %s holds %d of 4000 libraries; want about a third", g, n)
		}
	}
	c, _ := Assign(libs, []string{"a", "b", "c", "d"}, ByLibrary)
	moved := 0
	for id, g := range a {
		if c[id] != g {
			if c[id] != "d" {
				t.Fatalf("%s moved from %s to %s when group d was added", id, g, c[id])
			}
			moved++
		}
	}
	if moved < 800 || moved > 1200 {
		t.Errorf("adding a fourth group moved %d of 4000 libraries; want about 1000", moved)
	}
	// Case does not matter: the proxy lower-cases what it looks up.
	d, _ := Assign([]Library{{ID: "/ORG00/LIB00000"}}, []string{"a", "b", "c"}, ByLibrary)
	if d["/ORG00/LIB00000"] != a["/org00/lib00000"] {
		t.Errorf("an id's group depends on its case")
	}
}

func TestAssignByOrg(t *testing.T) {
	libs := libsN(500)
	a, err := Assign(libs, []string{"a", "b", "c"}, ByOrg)
	if err != nil {
		t.Fatal(err)
	}
	orgGroup := map[string]string{}
	groups := map[string]bool{}
	for id, g := range a {
		org := strings.Split(id, "/")[1]
		if prev, ok := orgGroup[org]; ok && prev != g {
			t.Fatalf("organization %s split across %s and %s", org, prev, g)
		}
		orgGroup[org] = g
		groups[g] = true
	}
	if len(groups) != 3 {
		t.Errorf("50 organizations fill %d of 3 groups", len(groups))
	}
}

func TestAssignRefuses(t *testing.T) {
	for _, groups := range [][]string{nil, {"a", "a"}, {"a b"}, {""}, {"x/y"}, {"g0", AnyBackend}} {
		if _, err := Assign(libsN(3), groups, ByLibrary); err == nil {
			t.Errorf("Assign with groups %q: want an error", groups)
		}
	}
	if _, err := Assign(libsN(3), []string{"a"}, "hash"); err == nil {
		t.Error("Assign by \"hash\": want an error")
	}
}

// TestEntries: every id is in the map, lower-cased without its slash, and
// with ".git" after it (a GitHub clone URL) unless that is another
// library's id; a name shared by libraries of two groups, or equal to an
// id key, is not.
func TestEntries(t *testing.T) {
	libs := []Library{
		{ID: "/Vercel/Next.js", Title: "Next.js", Aliases: []string{"nextjs", "next"}},
		{ID: "/acme/docs", Title: "Acme Docs", Aliases: []string{"widgets"}},
		{ID: "/beta/docs"},
		{ID: "/gamma/next", Aliases: []string{"vercel/next.js"}},
		{ID: "/beta/docs.git"},
	}
	assign := map[string]string{"/Vercel/Next.js": "a", "/acme/docs": "a", "/beta/docs": "b", "/gamma/next": "b", "/beta/docs.git": "a"}
	var got []string
	for _, e := range Entries(libs, assign) {
		got = append(got, e.Key+"="+e.Group)
	}
	want := []string{"acme/docs=a", "acme/docs.git=a", "beta/docs=b", "beta/docs.git=a", "beta/docs.git.git=a", "docs.git=a", "gamma/next=b", "gamma/next.git=b",
		"next.js=a", "nextjs=a", "vercel/next.js=a", "vercel/next.js.git=a", "widgets=a"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Entries:\n got %s\nwant %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

// TestGenerate writes the files for a config and checks that each group's
// config loads, holds exactly its libraries with their settings and
// comments, and that the output does not change when generated again.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("# the whole catalog\nallow: {transports: [https, file]}\nlibraries:\n")
	for i := range 40 {
		fmt.Fprintf(&src, "  - id: /org%d/lib%02d # library %d\n    repo: repos/lib%02d\n    docs: [\"docs/**\"]\n", i%4, i, i, i)
	}
	cfgPath := filepath.Join(dir, "codex7.yaml")
	if err := os.WriteFile(cfgPath, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Config: cfgPath, Groups: []string{"g0", "g1", "g2"}, Servers: map[string][]string{"g1": {"10.0.0.1:8080", "10.0.0.2:8080"}}, Out: filepath.Join(dir, "router")}
	groups, err := Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	// What it wrote is what Files names, for a caller to report.
	var written []string
	for _, d := range []string{dir, opts.Out} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if p := filepath.Join(d, e.Name()); e.Type().IsRegular() && p != cfgPath {
				written = append(written, p)
			}
		}
	}
	if files := opts.Files(); !slices.Equal(slices.Sorted(slices.Values(files)), slices.Sorted(slices.Values(written))) {
		t.Errorf("Generate wrote %v; Files says %v", written, files)
	}
	read := func(p string) []byte {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first := map[string][]byte{}
	total := 0
	for _, g := range groups {
		p := filepath.Join(dir, "codex7."+g.Name+".yaml")
		first[p] = read(p)
		cfg, err := config.Load(p)
		if err != nil {
			t.Fatalf("%s does not load: %v\n%s", p, err, first[p])
		}
		var ids []string
		for _, l := range cfg.Libraries {
			ids = append(ids, l.ID)
			if l.Repo != "repos/"+strings.Split(l.ID, "/")[2] || len(l.Docs) != 1 {
				t.Errorf("%s: %s lost its settings: %+v", p, l.ID, l)
			}
		}
		sort.Strings(ids) // config order; g.Libraries is sorted
		if strings.Join(ids, ",") != strings.Join(g.Libraries, ",") {
			t.Errorf("%s lists %v, want %v", p, ids, g.Libraries)
		}
		if !bytes.Contains(first[p], []byte("# library ")) {
			t.Errorf("%s lost the libraries' comments:\n%s", p, first[p])
		}
		total += len(ids)
	}
	if total != 40 {
		t.Errorf("the groups' configs list %d libraries, want 40", total)
	}
	cfgText := string(read(filepath.Join(opts.Out, "haproxy.cfg")))
	for _, want := range []string{"backend g0\n", "server g0-1 codex7-g0:8080", "server g1-2 10.0.0.2:8080", "backend any\n", "libraries.map,any)"} {
		if !strings.Contains(cfgText, want) {
			t.Errorf("haproxy.cfg lacks %q:\n%s", want, cfgText)
		}
	}
	first["map"] = read(filepath.Join(opts.Out, "libraries.map"))
	first["cfg"] = []byte(cfgText)
	if _, err := Generate(opts); err != nil {
		t.Fatal(err)
	}
	for p, data := range first {
		switch p {
		case "map":
			p = filepath.Join(opts.Out, "libraries.map")
		case "cfg":
			p = filepath.Join(opts.Out, "haproxy.cfg")
		}
		if !bytes.Equal(read(p), data) {
			t.Errorf("%s changed when generated again", p)
		}
	}
	opts.Servers = map[string][]string{"g9": {"x:1"}}
	if _, err := Generate(opts); err == nil {
		t.Error("servers for an unknown group: want an error")
	}
}

// TestWriteHAProxyRefusesServers: a server address that the configuration
// would read as more than an address (an option after a space, a
// directive after a newline, a comment) is refused, not written.
func TestWriteHAProxyRefusesServers(t *testing.T) {
	for _, s := range []string{"", "10.0.0.1:8080 backup", "x:1\n    http-request deny", "x:1#c", "x:1\r", "x:\"1\"", "x:1\x00"} {
		var b bytes.Buffer
		if err := WriteHAProxy(&b, []Group{{Name: "g0", Servers: []string{"ok:8080", s}}}, HAProxyOptions{}); err == nil {
			t.Errorf("server %q: want an error, wrote:\n%s", s, b.String())
		}
	}
	var b bytes.Buffer
	if err := WriteHAProxy(&b, []Group{{Name: "g0", Servers: []string{"10.0.0.1:8080", "[::1]:8080", "codex7-g0.ns.svc:8080"}}}, HAProxyOptions{}); err != nil {
		t.Errorf("plain addresses: %v", err)
	}
}

// TestEntriesNonASCII: the proxy lower-cases ASCII letters only (HAProxy's
// lower), so a name written with a capital beyond ASCII ("Ökonomie") is
// looked up as sent; the map holds that spelling, and the wholly
// lower-cased one an agent may send.
func TestEntriesNonASCII(t *testing.T) {
	libs := []Library{{ID: "/de/wirtschaft", Title: "Ökonomie", Aliases: []string{"Straße", "ÉLAN"}}}
	var got []string
	for _, e := range Entries(libs, map[string]string{"/de/wirtschaft": "a"}) {
		got = append(got, e.Key)
	}
	for _, want := range []string{"Ökonomie", "ökonomie", "straße", "Élan", "élan"} {
		if !slices.Contains(got, want) {
			t.Errorf("Entries lacks %q: %q", want, got)
		}
	}
}
