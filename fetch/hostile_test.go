package fetch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/codex7/codex7/internal/gittest"
)

// eachPath runs test once for each way Clone reads a local repository, with
// a new Fetcher of the given limits: "in-process" (cloneLocal) and "git"
// (go-git's file transport, which runs git upload-pack). So every
// protection these tests prove is proven on both. On the in-process path
// git is taken off PATH: a silent fallback to git would fail the test
// rather than pass it.
func eachPath(t *testing.T, limits Limits, test func(t *testing.T, f *Fetcher)) {
	t.Helper()
	for _, viaGit := range []bool{false, true} {
		name := "in-process"
		if viaGit {
			name = "git"
		}
		t.Run(name, func(t *testing.T) {
			if !viaGit {
				withoutGit(t)
			}
			test(t, &Fetcher{Limits: limits, viaGit: viaGit})
		})
	}
}

// withoutGit empties PATH for the rest of the test, so that starting git
// fails.
func withoutGit(t *testing.T) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	if _, err := exec.LookPath("git"); err == nil {
		t.Fatal("git is still on PATH")
	}
}

// cloneHead clones the default branch of dir with f.
func cloneHead(t *testing.T, f *Fetcher, dir string) (*Snapshot, error) {
	t.Helper()
	refs, err := f.ListRefs(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := refs.Resolve(refs.Head)
	if err != nil {
		t.Fatal(err)
	}
	return f.Clone(context.Background(), dir, res, nil)
}

// omittedReasons maps each omitted path to its reason.
func omittedReasons(s *Snapshot) map[string]string {
	out := map[string]string{}
	for _, o := range s.Omitted() {
		out[o.Path] = o.Reason
	}
	return out
}

// assertAbsent checks that no way of reaching p in s succeeds.
func assertAbsent(t *testing.T, s *Snapshot, p string) {
	t.Helper()
	if _, err := s.Stat(p); err == nil {
		t.Errorf("Stat(%q) succeeded", p)
	}
	if _, err := s.ReadFile(p); err == nil {
		t.Errorf("ReadFile(%q) succeeded", p)
	}
	if _, err := s.Open(p); err == nil {
		t.Errorf("Open(%q) succeeded", p)
	}
	if _, err := fs.ReadDir(s, p); err == nil {
		t.Errorf("ReadDir(%q) succeeded", p)
	}
}

// walkPaths lists every path fs.WalkDir reaches in s.
func walkPaths(t *testing.T, s *Snapshot) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(s, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !fs.ValidPath(p) {
			t.Errorf("WalkDir reached an invalid path %q", p)
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotSymlinks proves that no symbolic link is followed: out of the
// tree, to /etc/passwd, to a directory (in or out of the tree), in a loop,
// or named docs/index.md. Each is left out and listed with its reason.
func TestSnapshotSymlinks(t *testing.T) {
	r := gittest.New(t, "main")
	r.Write(map[string]string{"README.md": "# Lib\n", "docs/guide.md": "# Guide\n"})
	links := map[string]string{
		"docs/passwd.md":   "/etc/passwd",
		"docs/up.md":       "../../../../../../etc/passwd",
		"docs/etc":         "/etc",
		"docs/parent":      "..",
		"docs/loop-a.md":   "loop-b.md",
		"docs/loop-b.md":   "loop-a.md",
		"docs/self":        "self",
		"docs/index.md":    "../README.md",
		"docs/home/key.md": "/root/.ssh/id_rsa",
	}
	for name, target := range links {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	r.Commit("links")

	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		s, err := cloneHead(t, f, r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		reasons := omittedReasons(s)
		for name := range links {
			if reasons[name] != "symbolic link (not followed)" {
				t.Errorf("%s: omitted reason %q, want symbolic link (not followed)", name, reasons[name])
			}
			assertAbsent(t, s, name)
		}
		for _, p := range []string{"docs/etc/passwd", "docs/parent/README.md", "docs/parent/docs/guide.md", "docs/self/self"} {
			assertAbsent(t, s, p)
		}
		if got, want := strings.Join(walkPaths(t, s), ","), ".,README.md,docs,docs/guide.md,docs/home"; got != want {
			t.Errorf("walk = %s, want %s", got, want)
		}
		if len(s.Symlinks()) != len(links) {
			t.Errorf("Symlinks() = %v, want the %d links", s.Symlinks(), len(links))
		}
		if err := fstest.TestFS(s, "README.md", "docs/guide.md"); err != nil {
			t.Error(err)
		}
	})
}

// TestSnapshotNames writes, with go-git plumbing, a tree the git CLI refuses
// to make: entries named "..", ".", with a slash, invalid UTF-8, control
// and bidi characters, 300 bytes long, twice the same name, two names that
// differ only in case, and a path longer than 4,096 bytes.
func TestSnapshotNames(t *testing.T) {
	r := gittest.New(t, "main")
	page := r.Blob("# Page\n")
	secret := r.Tree(gittest.File("escape.md", r.Blob("# Escaped\n")))
	long := strings.Repeat("n", 300) + ".md"
	// 17 nested folders of 250-byte names: a path past 4,096 bytes.
	far := r.Tree(gittest.File("far.md", page))
	seg := strings.Repeat("p", 250)
	for range 16 {
		far = r.Tree(gittest.Dir(seg, far))
	}
	root := r.Tree(
		gittest.Dir(seg, far),
		gittest.File("ok.md", page),
		gittest.Dir("..", secret),
		gittest.Dir(".", secret),
		gittest.File("a/b.md", page),
		gittest.File("\xff\xfe.md", page),
		gittest.File("bad\x1b[31m.md", page),
		gittest.File("tab\t.md", page),
		gittest.File("new\nline.md", page),
		gittest.File("\u202egnp.md", page),
		gittest.File(long, page),
		gittest.File("dup.md", page),
		gittest.File("dup.md", r.Blob("# Second\n")),
		gittest.File("README.md", r.Blob("# Upper\n")),
		gittest.File("readme.md", r.Blob("# Lower\n")),
	)
	r.CommitTree(root, "names")

	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		s, err := cloneHead(t, f, r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			`..`:               `name ".." would leave its directory`,
			`.`:                `name "." would leave its directory`,
			`"a/b.md"`:         "name contains a slash",
			`"\xff\xfe.md"`:    "name is not valid UTF-8",
			`"bad\x1b[31m.md"`: "name contains control characters",
			`"tab\t.md"`:       "name contains control characters",
			`"new\nline.md"`:   "name contains control characters",
			`"\u202egnp.md"`:   "name contains control characters",
			long:               "name longer than 255 bytes",
			"dup.md":           "a second entry of the same name in its directory",
			strings.TrimSuffix(strings.Repeat(seg+"/", 17), "/"): "path longer than 4096 bytes",
		}
		got := omittedReasons(s)
		for p, reason := range want {
			if got[p] != reason {
				t.Errorf("omitted %q: reason %q, want %q", p, got[p], reason)
			}
		}
		if len(got) != len(want) {
			t.Errorf("omitted %v, want %d entries", got, len(want))
		}
		var short []string
		long16 := 0
		for _, p := range walkPaths(t, s) {
			if strings.HasPrefix(p, seg) {
				long16++
			} else {
				short = append(short, p)
			}
		}
		if got := strings.Join(short, ","); got != ".,README.md,dup.md,ok.md,readme.md" || long16 != 16 {
			t.Errorf("walk = %s and %d folders of the long path; want .,README.md,dup.md,ok.md,readme.md (the case-colliding names both kept) and 16", got, long16)
		}
		for p, body := range map[string]string{"README.md": "# Upper\n", "readme.md": "# Lower\n", "dup.md": "# Page\n"} {
			if data, err := s.ReadFile(p); err != nil || string(data) != body {
				t.Errorf("ReadFile(%s) = %q, %v; want %q", p, data, err, body)
			}
		}
		for _, p := range []string{"../escape.md", "escape.md", "./escape.md", "a/b.md", "a"} {
			assertAbsent(t, s, p)
		}
		if err := fstest.TestFS(s, "README.md", "readme.md", "dup.md", "ok.md"); err != nil {
			t.Error(err)
		}
	})
}

// TestSnapshotNULName writes tree objects whose entry name holds a NUL byte,
// which no encoder writes and which shifts the rest of the entry. git
// upload-pack refuses to send such a tree, in a subdirectory or at the
// root: the clone fails with an error that says so. Read in process, the
// tree does not decode: an error too, naming the tree, never a fallback to
// git or a snapshot without it.
func TestSnapshotNULName(t *testing.T) {
	r := gittest.New(t, "main")
	blob := r.Blob("# Page\n")
	bad := r.RawTree(append([]byte("100644 a\x00b.md\x00"), blob[:]...))
	for _, root := range []plumbing.Hash{r.Tree(gittest.File("ok.md", blob), gittest.Dir("docs", bad)), bad} {
		r.CommitTree(root, "nul in a name")
		eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
			want := "read tree " + bad.String() + ": malformed tree"
			if f.viaGit {
				want = "the remote sent no objects"
			}
			if _, err := cloneHead(t, f, r.Dir); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("clone of a malformed tree: error %v, want one saying %q", err, want)
			}
		})
	}
}

// TestSnapshotUnreadableSubtree indexes a tree whose subdirectory cannot be
// decoded (a NUL in a name, as a server other than git's could send) or
// is missing: each is left out with its reason, the rest is indexed.
func TestSnapshotUnreadableSubtree(t *testing.T) {
	st := newStore(Limits{})
	blob, _ := st.put(plumbing.BlobObject, plumbing.ComputeHash(plumbing.BlobObject, []byte("# Page\n")), []byte("# Page\n"))
	raw := append([]byte("100644 a\x00b.md\x00"), blob[:]...)
	bad, _ := st.put(plumbing.TreeObject, plumbing.ComputeHash(plumbing.TreeObject, raw), raw)
	root := &object.Tree{Entries: []object.TreeEntry{
		{Name: "docs", Mode: filemode.Dir, Hash: bad},
		{Name: "gone", Mode: filemode.Dir, Hash: plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")},
		{Name: "lost.md", Mode: filemode.Regular, Hash: plumbing.NewHash("89abcdef0123456789abcdef0123456789abcdef")},
		{Name: "ok.md", Mode: filemode.Regular, Hash: blob},
	}}
	s, err := newSnapshot(st, "c0ffee", time.Time{}, root, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := omittedReasons(s)
	if !strings.Contains(got["docs"], "unreadable directory") || !strings.Contains(got["docs"], "malformed tree") {
		t.Errorf("docs omitted with %q, want unreadable directory (malformed tree)", got["docs"])
	}
	if !strings.Contains(got["gone"], "unreadable directory") {
		t.Errorf("gone omitted with %q, want unreadable directory", got["gone"])
	}
	if !strings.Contains(got["lost.md"], "content not fetched") {
		t.Errorf("lost.md omitted with %q, want content not fetched", got["lost.md"])
	}
	if paths := strings.Join(walkPaths(t, s), ","); paths != ".,ok.md" {
		t.Errorf("walk = %s, want .,ok.md", paths)
	}
}

// TestSnapshotSubmodules points gitlinks at a commit of another repository
// and at a commit that exists nowhere: neither is fetched or followed.
func TestSnapshotSubmodules(t *testing.T) {
	other := gittest.New(t, "main")
	other.Write(map[string]string{"private.md": "# Private\n"})
	otherCommit := other.Commit("private")

	r := gittest.New(t, "main")
	page := r.Blob("# Page\n")
	modules := r.Blob("[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = " + other.Dir + "\n")
	vendor := r.Tree(
		gittest.Gitlink("lib", plumbing.NewHash(otherCommit)),
		gittest.Gitlink("ghost", plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")),
	)
	r.CommitTree(r.Tree(gittest.File(".gitmodules", modules), gittest.File("ok.md", page), gittest.Dir("vendor", vendor)), "submodules")

	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		s, err := cloneHead(t, f, r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		got := s.Omitted()
		want := []Omitted{
			{Path: "vendor/ghost", Reason: "submodule (not followed)", Dir: true},
			{Path: "vendor/lib", Reason: "submodule (not followed)", Dir: true},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Omitted() = %v, want %v", got, want)
		}
		assertAbsent(t, s, "vendor/lib/private.md")
		if got := strings.Join(walkPaths(t, s), ","); got != ".,.gitmodules,ok.md,vendor" {
			t.Errorf("walk = %s", got)
		}
	})
}

// TestSnapshotDeepTree clones 3,000 nested directories: the snapshot keeps
// the first Limits.MaxDepth levels and lists the directory below as
// omitted.
func TestSnapshotDeepTree(t *testing.T) {
	r := gittest.Deep(t, 3000)
	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		start := time.Now()
		s, err := cloneHead(t, f, r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("3000 levels: clone and index in %v", time.Since(start).Round(time.Millisecond))
		deepest := strings.Repeat("d/", DefaultMaxDepth-1) + "page.md"
		if _, err := s.Stat(deepest); err != nil {
			t.Errorf("level %d page missing: %v", DefaultMaxDepth, err)
		}
		cut := strings.TrimSuffix(strings.Repeat("d/", DefaultMaxDepth), "/")
		want := []Omitted{{Path: cut, Reason: fmt.Sprintf("directory deeper than %d levels", DefaultMaxDepth), Dir: true}}
		if got := s.Omitted(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Omitted() = %v, want %v", got, want)
		}
		if n := len(s.Files()); n != DefaultMaxDepth {
			t.Errorf("%d files, want %d (one per level kept)", n, DefaultMaxDepth)
		}
	})
}

// TestCloneEntryLimits clones a three-object pack that expands to 200,000
// files, and a pack of 2,000 distinct objects, with MaxEntries 50,000 and
// 1,000: both stop with ErrTooManyEntries, the walk as soon as it passes the
// limit, the objects at the pack's header through git and as the 1,002nd
// is met in process.
func TestCloneEntryLimits(t *testing.T) {
	bomb := gittest.TreeBomb(t, 200, 1000, ".md")
	r := gittest.New(t, "main")
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("p%04d.md", i)] = fmt.Sprintf("# Page %d\n", i)
	}
	r.Write(files)
	r.Commit("many objects")
	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		start := time.Now()
		f.Limits.MaxEntries = 50_000
		_, err := cloneHead(t, f, bomb.Dir)
		if !errors.Is(err, ErrTooManyEntries) || !strings.Contains(err.Error(), "more than 50000 entries") {
			t.Errorf("tree bomb: error %v, want ErrTooManyEntries naming the limit", err)
		}
		t.Logf("200,000-file tree bomb refused at 50,000 entries in %v", time.Since(start).Round(time.Millisecond))
		f.Limits.MaxEntries = 250_000
		if _, err := cloneHead(t, f, bomb.Dir); err != nil {
			t.Errorf("the same tree under a higher limit: %v", err)
		}
		f.Limits.MaxEntries = 1000
		want := "pack holds 2002 objects"
		if !f.viaGit {
			want = "more than 1001 distinct objects"
		}
		if _, err := cloneHead(t, f, r.Dir); !errors.Is(err, ErrTooManyEntries) || !strings.Contains(err.Error(), want) {
			t.Errorf("2,002 objects: error %v, want ErrTooManyEntries saying %q", err, want)
		}
	})
}

// TestCloneFetchBytesLimit clones 3 MiB of small distinct files with
// MaxFetchBytes 1 MiB: ErrTooLarge.
func TestCloneFetchBytesLimit(t *testing.T) {
	r := gittest.New(t, "main")
	files := map[string]string{}
	for i := range 48 {
		files[fmt.Sprintf("p%02d.md", i)] = fmt.Sprintf("# Page %d\n\n%s", i, strings.Repeat(fmt.Sprintf("line %d of page %d\n", i, i), 4000))
	}
	r.Write(files)
	r.Commit("3 MiB")
	eachPath(t, Limits{MaxFetchBytes: 1 << 20}, func(t *testing.T, f *Fetcher) {
		_, err := cloneHead(t, f, r.Dir)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 1 MiB") {
			t.Errorf("error %v, want ErrTooLarge naming the limit", err)
		}
		f.Limits = Limits{}
		if _, err := cloneHead(t, f, r.Dir); err != nil {
			t.Errorf("under the default limit: %v", err)
		}
	})
}

// peakHeap samples the heap's live and unswept objects every millisecond
// until stop is called, which returns the highest value seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// hugeRepo commits a 40 MiB markdown file, a 24 MiB random binary named
// .md, a zlib bomb of bomb zero bytes (a thousandth of that packed) and a
// small page, streaming each blob into git so the test holds none of them.
func hugeRepo(t testing.TB, bomb int64) (*gittest.Repo, map[string]int64) {
	t.Helper()
	r := gittest.New(t, "main")
	sizes := map[string]int64{"docs/huge.md": 40 << 20, "docs/binary.md": 24 << 20, "docs/bomb.md": bomb}
	docs := r.Tree(
		gittest.File("huge.md", r.BlobFrom(gittest.Lorem(sizes["docs/huge.md"]))),
		gittest.File("binary.md", r.BlobFrom(gittest.Random(1, sizes["docs/binary.md"]))),
		gittest.File("bomb.md", r.BlobFrom(gittest.Zeros(bomb))),
		gittest.File("small.md", r.Blob("# Small\n\nStill indexed.\n")),
	)
	r.CommitTree(r.Tree(gittest.Dir("docs", docs)), "huge files")
	return r, sizes
}

var bombMiB = flag.Int("bomb-mib", 256, "size of the zlib bomb in TestCloneHugeFilesBoundedMemory, in MiB")

// TestCloneHugeFilesBoundedMemory clones 320 MiB of files over the size
// cap (more with -bomb-mib): none is held (reading one fails with ErrNotFetched, its size is
// known), and the heap stays far below the size of any of them.
func TestCloneHugeFilesBoundedMemory(t *testing.T) {
	r, sizes := hugeRepo(t, int64(*bombMiB)<<20)
	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		runtime.GC()
		base := peakHeap()()
		stop := peakHeap()
		start := time.Now()
		s, err := cloneHead(t, f, r.Dir)
		elapsed := time.Since(start)
		peak := stop()
		if err != nil {
			t.Fatal(err)
		}
		growth := int64(peak) - int64(base)
		t.Logf("cloned %d MiB of files over the size cap in %v; heap peak %.1f MiB (%.1f MiB above the %.1f MiB before)",
			(sizes["docs/huge.md"]+sizes["docs/binary.md"]+sizes["docs/bomb.md"])>>20, elapsed.Round(time.Millisecond),
			float64(peak)/(1<<20), float64(growth)/(1<<20), float64(base)/(1<<20))
		if growth > 24<<20 {
			t.Errorf("heap grew by %d MiB while cloning; want under 24 MiB (nothing over the cap held)", growth>>20)
		}
		for p, size := range sizes {
			info, err := s.Stat(p)
			if err != nil || info.Size() != size {
				t.Errorf("Stat(%s) = %v, %v; want size %d", p, info, err, size)
				continue
			}
			if _, err := s.ReadFile(p); !errors.Is(err, ErrNotFetched) {
				t.Errorf("ReadFile(%s) error %v, want ErrNotFetched", p, err)
			}
		}
		if data, err := s.ReadFile("docs/small.md"); err != nil || !strings.Contains(string(data), "Still indexed") {
			t.Errorf("small.md = %q, %v", data, err)
		}
	})
}

// TestSnapshotLFSPointers clones a repository whose pages are Git LFS
// pointers, as a clone without git-lfs holds them: the pointer's text is
// not the page, so each is left out and listed, while a page that merely
// talks about LFS, or is too large to be a pointer, is kept.
func TestSnapshotLFSPointers(t *testing.T) {
	pointer := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	r := gittest.New(t, "main")
	r.Write(map[string]string{
		"docs/guide.md": pointer,
		"docs/old.md":   "version https://hawser.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 9\n",
		"docs/lfs.md":   "# LFS\n\nA pointer starts with `version https://git-lfs.github.com/spec/v1`.\n",
		"docs/long.md":  pointer + strings.Repeat("more text\n", 120),
	})
	r.Commit("lfs")
	eachPath(t, Limits{}, func(t *testing.T, f *Fetcher) {
		s, err := cloneHead(t, f, r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		reasons := omittedReasons(s)
		for _, p := range []string{"docs/guide.md", "docs/old.md"} {
			if !strings.Contains(reasons[p], "LFS pointer") {
				t.Errorf("%s: omitted as %q, want an LFS pointer", p, reasons[p])
			}
			assertAbsent(t, s, p)
		}
		if got, want := strings.Join(s.Files(), ","), "docs/lfs.md,docs/long.md"; got != want {
			t.Errorf("files = %s, want %s", got, want)
		}
	})
}
