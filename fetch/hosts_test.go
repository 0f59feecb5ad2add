package fetch

import (
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
)

// TestListLocalMatchesGit lists local repositories in process and through
// git-upload-pack, and wants the same refs: a work tree with lightweight
// and annotated tags (peeled), a tag of a tag, a symbolic branch, its bare
// clone with packed refs, and a detached HEAD (no default branch).
func TestListLocalMatchesGit(t *testing.T) {
	r, _ := newRepo(t)
	r.Git("tag", "-a", "v1.0.2", "-m", "tag of a tag", "v1.0.1")
	r.Git("symbolic-ref", "refs/heads/alias", "refs/heads/next")
	bare := t.TempDir() + "/bare.git"
	r.Git("clone", "-q", "--bare", r.Dir, bare)
	exec.Command("git", "-C", bare, "pack-refs", "--all").Run()
	detached := gittest.New(t, "main")
	detached.Write(map[string]string{"a.md": "# A\n"})
	detached.Commit("one")
	detached.Git("checkout", "-q", "--detach")
	ctx := context.Background()
	for _, dir := range []string{r.Dir, bare, "file://" + bare, detached.Dir} {
		t.Run(dir, func(t *testing.T) {
			path, err := localPath(dir)
			if err != nil {
				t.Fatal(err)
			}
			local, err := listLocal(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			remote, err := listRemote(ctx, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(local, remote) {
				t.Errorf("in-process listing differs from git's:\n got %+v\nwant %+v", local, remote)
			}
		})
	}
}

// TestPerHostLimit lists and clones sixteen repositories of one real git
// server (git http-backend) from sixteen goroutines with PerHost 3: the
// server never sees more than three requests at once, and sees that many
// (the limit is not a lock).
func TestPerHostLimit(t *testing.T) {
	root := t.TempDir()
	var names []string
	for i := range 16 {
		r := gittest.New(t, "main")
		r.Write(map[string]string{"README.md": strings.Repeat("# Lib\n\ntext\n", i+1)})
		r.Commit("docs")
		name := fmt.Sprintf("r%02d.git", i)
		r.Git("clone", "-q", "--bare", r.Dir, root+"/"+name)
		names = append(names, name)
	}
	srv := gittest.ServeHTTP(t, root)
	f := &Fetcher{Policy: Policy{Transports: []string{TransportHTTP}}, PerHost: 3}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(names))
	for _, name := range names {
		wg.Go(func() {
			url := srv.URL + "/" + name
			refs, err := f.ListRefs(ctx, url, nil)
			if err != nil {
				errs <- err
				return
			}
			res, err := refs.Resolve("main")
			if err != nil {
				errs <- err
				return
			}
			if _, err := f.Clone(ctx, url, res, nil); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if p := srv.Peak(); p > 3 || p < 2 {
		t.Errorf("the server saw at most %d requests at once; want 2 or 3 with PerHost 3", p)
	}
}

func TestHost(t *testing.T) {
	for repo, want := range map[string]string{
		"https://GitHub.com/a/b":          "github.com",
		"https://user@git.example:8443/x": "git.example:8443",
		"git@github.com:a/b.git":          "github.com",
		"ssh://git@gitlab.com/a/b":        "gitlab.com",
		"/srv/git/a":                      "",
		"file:///srv/git/a":               "",
		"../mirrors/b":                    "",
		"http://127.0.0.1:9999/repo.git":  "127.0.0.1:9999",
		"git://git.kernel.org/pub/x.git":  "git.kernel.org",
	} {
		if got := Host(repo); got != want {
			t.Errorf("Host(%q) = %q, want %q", repo, got, want)
		}
	}
}
