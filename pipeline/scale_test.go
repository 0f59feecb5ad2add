package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/gittest"
)

// TestManyLibrariesOverHTTP builds twelve libraries served by one real git
// server (git http-backend) with PerHost 2 and ListJobs 8: the server never
// sees more than two requests at once; the first build lists and fetches
// each repository; a no-op rebuild lists each exactly once and fetches
// nothing; after one repository gets a commit, only it is fetched again.
// Half the libraries take their versions from the repository (the default
// branch read while planning), half name them in the config.
func TestManyLibrariesOverHTTP(t *testing.T) {
	root := t.TempDir()
	var repos []*gittest.Repo
	var src strings.Builder
	src.WriteString("allow: {transports: [http]}\nlibraries:\n")
	srv := gittest.ServeHTTP(t, root)
	for i := range 12 {
		r := gittest.New(t, "main")
		r.Write(map[string]string{"docs/guide.md": fmt.Sprintf("# Guide %d\n\nConfigure library %d.\n", i, i)})
		r.Commit("docs")
		name := fmt.Sprintf("lib%02d.git", i)
		r.Git("clone", "-q", "--bare", r.Dir, root+"/"+name)
		r.Git("remote", "add", "origin", root+"/"+name)
		repos = append(repos, r)
		fmt.Fprintf(&src, "  - id: /org/lib%02d\n    repo: %s/%s\n", i, srv.URL, name)
		if i%2 == 1 {
			src.WriteString("    versions: [{ref: main}]\n")
		}
	}
	cfg, err := config.Parse(strings.NewReader(src.String()), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = t.TempDir()
	opts := Options{Out: t.TempDir(), PerHost: 2, ListJobs: 8, Jobs: 2}
	build := func(wantBuilt int) (lists, fetches map[string]int) {
		t.Helper()
		res, err := Build(context.Background(), cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		built := 0
		for _, v := range res.Versions {
			if v.Stage == StageBuilt {
				built++
			}
		}
		if built != wantBuilt || len(res.Versions) != 12 {
			t.Fatalf("%d versions built of %d, want %d of 12", built, len(res.Versions), wantBuilt)
		}
		return srv.Counts()
	}
	lists, fetches := build(12)
	if len(lists) != 12 || len(fetches) != 12 {
		t.Errorf("first build listed %d and fetched %d repositories, want 12 each", len(lists), len(fetches))
	}
	lists, fetches = build(0)
	for i := range 12 {
		if n := lists[fmt.Sprintf("/lib%02d.git", i)]; n != 1 {
			t.Errorf("no-op rebuild listed lib%02d %d times, want once", i, n)
		}
	}
	if len(fetches) != 0 {
		t.Errorf("no-op rebuild fetched %v, want nothing", fetches)
	}
	repos[3].Write(map[string]string{"docs/guide.md": "# Guide 3\n\nChanged.\n"})
	repos[3].Commit("change")
	repos[3].Git("push", "-q", "origin", "main")
	_, fetches = build(1)
	if len(fetches) != 1 || fetches["/lib03.git"] == 0 {
		t.Errorf("after one repository changed, the build fetched %v; want lib03 only", fetches)
	}
	if p := srv.Peak(); p > 2 {
		t.Errorf("the git server saw %d requests at once, want at most PerHost=2", p)
	}
}
