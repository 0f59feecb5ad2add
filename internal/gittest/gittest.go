// Package gittest makes real git repositories from plain files at test time,
// with the git binary, so fetch and pipeline tests clone genuine repos.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git work tree in a test's temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
}

// New makes an empty repository whose default branch is branch.
func New(t testing.TB, branch string) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: the file transport needs it")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", branch)
	return r
}

// Git runs git in the repo with a fixed identity and dates, and returns its
// trimmed output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Codex7 Test", "GIT_AUTHOR_EMAIL=test@codex7.invalid",
		"GIT_COMMITTER_NAME=Codex7 Test", "GIT_COMMITTER_EMAIL=test@codex7.invalid",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write creates or replaces files (slash-separated paths to contents).
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, body := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// CopyDir copies a directory tree from disk into the repo at dest ("" for the root).
func (r *Repo) CopyDir(src, dest string) {
	r.t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(r.Dir, dest, rel)
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
		r.t.Fatal(err)
	}
}

// Commit stages everything and commits; it returns the new commit's SHA.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// FromDir returns a git repository holding a copy of src, committed on
// branch main. It is made under cache (which outlives the test, so
// benchmarks and reruns reuse it) and rebuilt only when missing or
// unfinished.
func FromDir(tb testing.TB, src, cache string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git binary not found: the file transport needs it")
	}
	dir := filepath.Join(cache, filepath.Base(src))
	ready := filepath.Join(dir, ".git", "codex7-ready")
	if _, err := os.Stat(ready); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	r := &Repo{t: tb, Dir: dir}
	r.CopyDir(src, "")
	r.Git("init", "-q", "-b", "main")
	r.Commit("docs")
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}
