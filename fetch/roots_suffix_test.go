package fetch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestLocalRootsDotGitSuffix: git (upload-pack, which go-git's file
// transport runs, and which ListRefs and Clone fall back to when go-git
// cannot open the path) reads PATH.git when PATH is not a repository, so
// the policy checks what git reads: PATH.git, a symbolic link to a
// repository outside the root, is refused though PATH is inside it.
func TestLocalRootsDotGitSuffix(t *testing.T) {
	outside, shas := newRepo(t)
	root := t.TempDir()
	if err := os.Symlink(outside.Dir, filepath.Join(root, "docs.git")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	repo := filepath.Join(root, "docs") // does not exist; docs.git does
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := &Fetcher{Policy: Policy{LocalRoots: []string{root}}}
	refs, err := f.ListRefs(ctx, repo, nil)
	if !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("ListRefs(%s) = %+v, %v; want ErrOutsideRoots (it read the repository outside the root)", repo, refs, err)
	}
	snap, err := f.Clone(ctx, repo, Resolved{Name: "refs/heads/main", Commit: shas["main"]}, nil)
	if !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("Clone(%s) = %v; want ErrOutsideRoots", repo, err)
	}
	if snap != nil {
		if _, err := snap.Open("README.md"); err == nil {
			t.Errorf("Clone read README.md of the repository outside the root")
		}
	}
}

// TestLocalRootsDotGitSuffixInside: a bare repository at PATH.git inside
// the root is read for PATH, as git reads it.
func TestLocalRootsDotGitSuffixInside(t *testing.T) {
	src, shas := newRepo(t)
	root := t.TempDir()
	if out, err := exec.Command("git", "clone", "-q", "--bare", src.Dir, filepath.Join(root, "docs.git")).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v: %s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := &Fetcher{Policy: Policy{LocalRoots: []string{root}}}
	refs, err := f.ListRefs(ctx, filepath.Join(root, "docs"), nil)
	if err != nil {
		t.Fatalf("ListRefs of a repository at docs.git inside the root: %v", err)
	}
	if res, err := refs.Resolve("main"); err != nil || res.Commit != shas["main"] {
		t.Errorf("main = %+v, %v; want %s", res, err, shas["main"])
	}
}
