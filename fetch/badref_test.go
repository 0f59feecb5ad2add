package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
)

// TestListRefsDropsInvalidNames: a server may advertise ref names git
// itself never makes ("refs/tags/..", a component starting with '.'), and
// such a name would become a version's directory. ListRefs leaves them
// out, over HTTP (a real git http-backend whose advertisement gets the
// names added, as a hostile server would send them) and from a local
// repository's packed-refs; the valid refs beside them are listed.
func TestListRefsDropsInvalidNames(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not found")
	}
	r := gittest.New(t, "main")
	r.Write(map[string]string{"README.md": "# x\n"})
	sha := r.Commit("docs")
	r.Git("tag", "v1.0.0")
	bad := []string{"refs/tags/..", "refs/tags/.hidden", "refs/heads/a..b", "refs/tags/x.lock", "refs/heads/x:y"}

	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + r.Dir, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := httptest.NewRecorder()
		backend.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if strings.HasSuffix(req.URL.Path, "/info/refs") {
			var extra bytes.Buffer
			for _, name := range bad {
				line := sha + " " + name + "\n"
				fmt.Fprintf(&extra, "%04x%s", len(line)+4, line)
			}
			i := bytes.LastIndex(body, []byte("0000"))
			body = append(body[:i:i], append(extra.Bytes(), body[i:]...)...)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	defer srv.Close()

	check := func(name string, refs *Refs) {
		t.Helper()
		if refs.Head != "main" || refs.Branches["main"] != sha || refs.Tags["v1.0.0"] != sha {
			t.Errorf("%s: head %q, branches %v, tags %v; want main and v1.0.0", name, refs.Head, refs.Branches, refs.Tags)
		}
		for _, b := range bad {
			short := strings.TrimPrefix(strings.TrimPrefix(b, "refs/heads/"), "refs/tags/")
			if _, ok := refs.Branches[short]; ok {
				t.Errorf("%s: branch %q listed", name, short)
			}
			if _, ok := refs.Tags[short]; ok {
				t.Errorf("%s: tag %q listed", name, short)
			}
		}
	}
	f := &Fetcher{Policy: Policy{Transports: []string{TransportHTTP}}}
	refs, err := f.ListRefs(context.Background(), srv.URL+"/.git", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("over HTTP", refs)

	var packed strings.Builder
	packed.WriteString("# pack-refs with: peeled fully-peeled sorted\n")
	for _, name := range bad {
		packed.WriteString(sha + " " + name + "\n")
	}
	r.Write(map[string]string{".git/packed-refs": packed.String()})
	if refs, err = ListRefs(context.Background(), r.Dir, nil); err != nil {
		t.Fatal(err)
	}
	check("local", refs)
}
