package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/codex7/codex7/internal/gittest"
)

func newRepo(t *testing.T) (*gittest.Repo, map[string]string) {
	t.Helper()
	r := gittest.New(t, "main")
	r.Write(map[string]string{"README.md": "# Lib\n\nv1\n", "docs/guide.md": "# Guide\n"})
	shas := map[string]string{"v1": r.Commit("v1")}
	r.Git("tag", "v1.0.0")                      // lightweight
	r.Git("tag", "-a", "v1.0.1", "-m", "annot") // annotated: must peel to the commit
	r.Write(map[string]string{"README.md": "# Lib\n\nv2\n", "docs/deep/a.mdx": "# A\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(r.Dir, "docs", "escape.md")); err != nil {
		t.Fatal(err)
	}
	shas["main"] = r.Commit("v2")
	r.Git("branch", "next")
	return r, shas
}

func TestListRefs(t *testing.T) {
	r, shas := newRepo(t)
	refs, err := ListRefs(context.Background(), r.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if refs.Head != "main" {
		t.Errorf("Head = %q, want main", refs.Head)
	}
	tests := []struct {
		ref, commit string
		tag         bool
	}{
		{"main", shas["main"], false},
		{"refs/heads/next", shas["main"], false},
		{"v1.0.0", shas["v1"], true},
		{"v1.0.1", shas["v1"], true},
		{"refs/tags/v1.0.1", shas["v1"], true},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := refs.Resolve(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if got.Commit != tt.commit || got.IsTag != tt.tag {
				t.Errorf("Resolve(%q) = %+v, want commit %s tag %v", tt.ref, got, tt.commit, tt.tag)
			}
		})
	}
	_, err = refs.Resolve("v9")
	if !errors.Is(err, ErrRefNotFound) || !strings.Contains(err.Error(), "tag v1.0.0") {
		t.Errorf("Resolve(v9) error = %v, want ErrRefNotFound listing the refs", err)
	}
}

func TestCloneSnapshot(t *testing.T) {
	r, _ := newRepo(t)
	ctx := context.Background()
	for _, url := range []string{r.Dir, "file://" + r.Dir} {
		refs, err := ListRefs(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		for ref, files := range map[string][]string{
			"main":   {"README.md", "docs/deep/a.mdx", "docs/guide.md"},
			"v1.0.1": {"README.md", "docs/guide.md"},
			"v1.0.0": {"README.md", "docs/guide.md"},
			"next":   {"README.md", "docs/deep/a.mdx", "docs/guide.md"},
		} {
			res, err := refs.Resolve(ref)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := Clone(ctx, url, res, nil)
			if err != nil {
				t.Fatalf("Clone(%s, %s): %v", url, ref, err)
			}
			if snap.Commit != res.Commit {
				t.Errorf("%s: commit %s, want %s", ref, snap.Commit, res.Commit)
			}
			if got := strings.Join(snap.Files(), ","); got != strings.Join(files, ",") {
				t.Errorf("%s: files %s, want %s", ref, got, strings.Join(files, ","))
			}
			if err := fstest.TestFS(snap, files...); err != nil {
				t.Errorf("%s: %v", ref, err)
			}
			want := "# Lib\n\nv2\n"
			if ref == "v1.0.0" || ref == "v1.0.1" {
				want = "# Lib\n\nv1\n"
			}
			if data, _ := snap.ReadFile("README.md"); string(data) != want {
				t.Errorf("%s: README.md = %q, want %q", ref, data, want)
			}
		}
	}
}

func TestSnapshotNeverFollowsSymlinks(t *testing.T) {
	r, _ := newRepo(t)
	refs, _ := ListRefs(context.Background(), r.Dir, nil)
	res, _ := refs.Resolve("main")
	snap, err := Clone(context.Background(), r.Dir, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(snap.Symlinks(), ","); got != "docs/escape.md" {
		t.Errorf("Symlinks() = %q, want docs/escape.md", got)
	}
	if _, err := snap.Stat("docs/escape.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(symlink) error = %v, want fs.ErrNotExist", err)
	}
	if _, err := snap.ReadFile("docs/escape.md"); err == nil {
		t.Error("ReadFile followed a symlink to /etc/passwd")
	}
	if _, err := snap.Open("docs/escape.md"); err == nil {
		t.Error("Open followed a symlink")
	}
	if _, err := snap.Open("../etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Open(../etc/passwd) error = %v, want fs.ErrInvalid", err)
	}
}

func TestCloneCancelled(t *testing.T) {
	r, _ := newRepo(t)
	refs, _ := ListRefs(context.Background(), r.Dir, nil)
	res, _ := refs.Resolve("main")
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done() // expired, not merely about to
	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		if _, err := f.Clone(ctx, r.Dir, res, nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Clone with an expired context: %v, want context.DeadlineExceeded", err)
		}
	})
}

// TestListRefsBadRemote: a local path that names no folder, or a folder
// that is no repository, is ErrNoRepository with what to do about it.
func TestListRefsBadRemote(t *testing.T) {
	for _, tc := range []struct{ name, dir, want string }{
		{"no folder", filepath.Join(t.TempDir(), "nope"), "the folder does not exist"},
		{"no repository", t.TempDir(), "the folder is not a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ListRefs(context.Background(), tc.dir, nil)
			if !errors.Is(err, ErrNoRepository) || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Fatalf("ListRefs(%s) = %v, want ErrNoRepository saying %q", tc.dir, err, tc.want)
			}
		})
	}
}

func TestAuthAndRedact(t *testing.T) {
	env := map[string]string{"CODEX7_GIT_TOKEN": "s3cret", "ACME_TOKEN": "acme"}
	getenv := func(k string) string { return env[k] }
	if a := Auth("https://example.com/x.git", "", getenv); a == nil || !strings.Contains(a.String(), "x-access-token") || strings.Contains(a.String(), "s3cret") {
		t.Errorf("Auth default = %v, want basic auth with the token hidden", a)
	}
	if a := Auth("https://example.com/x.git", "ACME_TOKEN", getenv); a == nil {
		t.Error("Auth with token_env = nil")
	}
	if a := Auth("https://example.com/x.git", "MISSING", getenv); a != nil {
		t.Errorf("Auth without a token = %v, want nil", a)
	}
	if a := Auth("git@example.com:org/x.git", "", getenv); a != nil {
		t.Errorf("Auth for ssh = %v, want nil (agent)", a)
	}
	for in, want := range map[string]string{
		"https://user:pw@example.com/x.git": "https://example.com/x.git",
		"https://example.com/x.git":         "https://example.com/x.git",
		"/srv/repo":                         "/srv/repo",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	if err := cleanErr(errors.New("fetch https://u:tok@host/x failed")); strings.Contains(err.Error(), "tok") {
		t.Errorf("cleanErr kept the secret: %v", err)
	}
}

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{
		"https://github.com/a/b": true, "file:///tmp/x": true, "git@github.com:a/b.git": true,
		"github.com:a/b.git": true, "/tmp/repo": false, "./docs": false, "../a@b:c/d": false,
		`C:\repos\b`: false,
	} {
		if got := IsURL(in); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestListRefsCredentialsKeepCause lists a URL whose user info go-git
// echoes in its error: the message must lose the secret but not the
// cause, which callers find with errors.As (here, the refused connection).
func TestListRefsCredentialsKeepCause(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: the connection is refused
	f := &Fetcher{Policy: Policy{Transports: []string{TransportHTTP}}}
	_, err = f.ListRefs(context.Background(), "http://user:s3cret@"+addr+"/x.git", nil)
	if err == nil {
		t.Fatal("ListRefs of a closed port succeeded")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error repeats the password: %v", err)
	}
	var netErr *net.OpError
	if !errors.As(err, &netErr) {
		t.Errorf("got %v, want an error wrapping the *net.OpError that refused the connection", err)
	}
}
