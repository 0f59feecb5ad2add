// Package gittest makes real git repositories from plain files at test time,
// with the git binary, so fetch and pipeline tests clone genuine repos. For
// repositories that attack the indexer it also writes objects one by one
// with go-git's plumbing (Blob, Tree, CommitTree): trees the git CLI refuses
// to make, with names such as ".." or invalid UTF-8, gitlinks, thousands of
// nested levels, or one blob shared by a million entries.
package gittest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Repo is a git work tree in a test's temporary directory.
type Repo struct {
	t    testing.TB
	Dir  string
	repo *git.Repository // opened by objects, for the plumbing methods
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

// Entry is one entry of a tree written with Tree: a name (any bytes but
// NUL, including names the git CLI refuses such as "..", "a/b" or invalid
// UTF-8), a mode and the hash of the object it points at.
type Entry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// File, Dir, Link and Gitlink make entries of the four kinds.
func File(name string, blob plumbing.Hash) Entry      { return Entry{name, filemode.Regular, blob} }
func Dir(name string, tree plumbing.Hash) Entry       { return Entry{name, filemode.Dir, tree} }
func Link(name string, target plumbing.Hash) Entry    { return Entry{name, filemode.Symlink, target} }
func Gitlink(name string, commit plumbing.Hash) Entry { return Entry{name, filemode.Submodule, commit} }

// objects opens the repository's object store with go-git, once.
func (r *Repo) objects() storer.EncodedObjectStorer {
	r.t.Helper()
	if r.repo == nil {
		repo, err := git.PlainOpen(r.Dir)
		if err != nil {
			r.t.Fatal(err)
		}
		r.repo = repo
	}
	return r.repo.Storer
}

// put writes one object of type t with content data and returns its hash.
func (r *Repo) put(t plumbing.ObjectType, data []byte) plumbing.Hash {
	r.t.Helper()
	obj := r.objects().NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		r.t.Fatal(err)
	}
	w.Close()
	h, err := r.objects().SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// Blob writes a blob object and returns its hash.
func (r *Repo) Blob(data string) plumbing.Hash {
	r.t.Helper()
	return r.put(plumbing.BlobObject, []byte(data))
}

// BlobFrom streams src into a blob object with git hash-object, so a test
// can store a blob of hundreds of MiB without holding it in its own memory.
func (r *Repo) BlobFrom(src io.Reader) plumbing.Hash {
	r.t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir = r.Dir
	cmd.Stdin = src
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git hash-object: %v", err)
	}
	return plumbing.NewHash(strings.TrimSpace(string(out)))
}

// Tree writes a tree object holding entries, sorted as git sorts them
// (directories as if their name ended in "/"), without any of the checks
// git and go-git make: duplicate names and names such as "..", "a/b",
// "\xff" or "bad\x1b[31m" are written as given.
func (r *Repo) Tree(entries ...Entry) plumbing.Hash {
	r.t.Helper()
	sorted := append([]Entry(nil), entries...)
	key := func(e Entry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.SliceStable(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	var b bytes.Buffer
	for _, e := range sorted {
		fmt.Fprintf(&b, "%o %s\x00", uint32(e.Mode), e.Name)
		b.Write(e.Hash[:])
	}
	return r.put(plumbing.TreeObject, b.Bytes())
}

// RawTree writes data as a tree object, unparsed: for trees no encoder
// would write, such as a name holding a NUL byte.
func (r *Repo) RawTree(data []byte) plumbing.Hash {
	r.t.Helper()
	return r.put(plumbing.TreeObject, data)
}

// CommitTree writes a commit of tree (with the current branch head as
// parent, if any) with a fixed identity and date, moves the branch HEAD
// points at to it, and returns its SHA.
func (r *Repo) CommitTree(tree plumbing.Hash, msg string) string {
	r.t.Helper()
	s := r.objects()
	head, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		r.t.Fatal(err)
	}
	branch := head.Target()
	sig := object.Signature{Name: "Codex7 Test", Email: "test@codex7.invalid", When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	if ref, err := r.repo.Storer.Reference(branch); err == nil {
		c.ParentHashes = []plumbing.Hash{ref.Hash()}
	}
	obj := s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		r.t.Fatal(err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(branch, h)); err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

// TreeBomb commits, on a new repository's main branch, a root of dirs
// directories that all share one subtree of files entries (named
// f0000000<ext>…) that all share one blob: a pack of four objects that
// expands to dirs×files files.
func TreeBomb(tb testing.TB, dirs, files int, ext string) *Repo {
	tb.Helper()
	r := New(tb, "main")
	blob := r.Blob("# Tiny\n")
	entries := make([]Entry, files)
	for i := range entries {
		entries[i] = File(fmt.Sprintf("f%07d%s", i, ext), blob)
	}
	sub := r.Tree(entries...)
	entries = make([]Entry, dirs)
	for i := range entries {
		entries[i] = Dir(fmt.Sprintf("d%05d", i), sub)
	}
	r.CommitTree(r.Tree(entries...), "tree bomb")
	return r
}

// Deep commits, on a new repository's main branch, levels nested
// directories named "d", each holding a page.md (the same blob).
func Deep(tb testing.TB, levels int) *Repo {
	tb.Helper()
	r := New(tb, "main")
	page := r.Blob("# Level\n")
	tree := r.Tree(File("page.md", page))
	for range levels - 1 {
		tree = r.Tree(Dir("d", tree), File("page.md", page))
	}
	r.CommitTree(tree, "deep")
	return r
}

// Lorem streams n bytes of markdown prose, for BlobFrom.
func Lorem(n int64) io.Reader {
	const line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n"
	off := 0
	return io.LimitReader(readerFunc(func(p []byte) (int, error) {
		for i := range p {
			p[i] = line[off%len(line)]
			off++
		}
		return len(p), nil
	}), n)
}

// Random streams n pseudo-random (incompressible) bytes, the same for the
// same seed, for BlobFrom.
func Random(seed uint64, n int64) io.Reader {
	rng := rand.New(rand.NewPCG(seed, seed))
	return io.LimitReader(readerFunc(func(p []byte) (int, error) {
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		return len(p), nil
	}), n)
}

// Zeros streams n zero bytes, which deflate about a thousandfold: a zlib
// bomb once packed.
func Zeros(n int64) io.Reader {
	return io.LimitReader(readerFunc(func(p []byte) (int, error) {
		clear(p)
		return len(p), nil
	}), n)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
