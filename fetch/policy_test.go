package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/gittest"
)

func TestTransport(t *testing.T) {
	tests := []struct {
		repo, want string
	}{
		{"https://github.com/a/b", TransportHTTPS},
		{"HTTPS://github.com/a/b", TransportHTTPS},
		{"http://git.internal/a/b", TransportHTTP},
		{"ssh://git@github.com/a/b.git", TransportSSH},
		{"git+ssh://git@github.com/a/b.git", TransportSSH},
		{"git@github.com:a/b.git", TransportSSH},
		{"github.com:a/b.git", TransportSSH},
		{"data:text/plain,hello/world", TransportSSH}, // git reads host "data"
		{"git://example.com/a/b", TransportGit},
		{"file:///srv/git/b", TransportFile},
		{"/srv/git/b", TransportFile},
		{"../docs-repo", TransportFile},
		{"./My Docs/a:b", TransportFile},
		{`C:\repos\b`, TransportFile},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			got, err := Transport(tt.repo)
			if err != nil || got != tt.want {
				t.Errorf("Transport(%q) = %q, %v; want %q", tt.repo, got, err, tt.want)
			}
		})
	}
	for _, repo := range []string{"ext::sh -c touch% /tmp/pwned", "fd::3", "EXT::x", "ftp://example.com/a", "data://x/y", "javascript://x"} {
		if got, err := Transport(repo); !errors.Is(err, ErrTransportNotAllowed) {
			t.Errorf("Transport(%q) = %q, %v; want ErrTransportNotAllowed", repo, got, err)
		}
	}
}

func TestPolicyTransports(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		repo   string
		ok     bool
	}{
		{"https by default", Policy{}, "https://github.com/a/b", true},
		{"local path by default", Policy{}, "/srv/git/b", true},
		{"file URL by default", Policy{}, "file:///srv/git/b", true},
		{"ssh not by default", Policy{}, "ssh://git@github.com/a/b", false},
		{"scp-like not by default", Policy{}, "git@github.com:a/b.git", false},
		{"git not by default", Policy{}, "git://example.com/a/b", false},
		{"http not by default", Policy{}, "http://example.com/a/b", false},
		{"ssh when allowed", Policy{Transports: []string{"https", "ssh"}}, "git@github.com:a/b.git", true},
		{"local refused when not listed", Policy{Transports: []string{"https"}}, "/srv/git/b", false},
		{"remote helper never", Policy{Transports: Transports}, "ext::sh -c id", false},
		{"unknown scheme never", Policy{Transports: Transports}, "ftp://example.com/a", false},
		{"option injection never", Policy{Transports: Transports}, "--upload-pack=touch /tmp/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Check(tt.repo)
			if tt.ok && err != nil {
				t.Errorf("Check(%q) = %v, want nil", tt.repo, err)
			}
			if !tt.ok && !errors.Is(err, ErrTransportNotAllowed) {
				t.Errorf("Check(%q) = %v, want ErrTransportNotAllowed", tt.repo, err)
			}
		})
	}
	err := Policy{}.Check("ssh://bob:hunter2@github.com/a/b")
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "allowed: https, file") {
		t.Errorf("error %v: want the allowed transports named and no password", err)
	}
}

// TestPolicyLocalRoots builds repositories in and out of a root, and the
// ways git could be led from inside the root to objects outside it.
func TestPolicyLocalRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := gittest.New(t, "main")
	outside.Write(map[string]string{"secret.md": "# Secret\n"})
	outside.Commit("secret")
	mkdir := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(p, data string) {
		t.Helper()
		mkdir(filepath.Dir(p))
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(filepath.Join(root, "good", ".git", "objects"))
	if err := os.Symlink(outside.Dir, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "gitfile", ".git"), "gitdir: "+filepath.Join(outside.Dir, ".git")+"\n")
	write(filepath.Join(root, "gitfile-rel", ".git"), "gitdir: ../../"+filepath.Base(filepath.Dir(outside.Dir))+"/"+filepath.Base(outside.Dir)+"/.git\n")
	write(filepath.Join(root, "alt", ".git", "objects", "info", "alternates"), filepath.Join(outside.Dir, ".git", "objects")+"\n")
	write(filepath.Join(root, "bare.git", "objects", "info", "alternates"), "# comment\n../../good/.git/objects\n"+filepath.Join(outside.Dir, ".git", "objects")+"\n")
	write(filepath.Join(root, "wt", ".git"), "gitdir: "+filepath.Join(root, "wtdir")+"\n")
	write(filepath.Join(root, "wtdir", "commondir"), filepath.Join(outside.Dir, ".git")+"\n")
	// A real linked work tree of the outside repository, inside the root,
	// and a forged .git file naming that work tree's entry from elsewhere.
	outside.Git("worktree", "add", "-q", filepath.Join(root, "worktree"))
	entry := filepath.Join(outside.Dir, ".git", "worktrees", "worktree")
	write(filepath.Join(root, "forged", ".git"), "gitdir: "+entry+"\n")
	linkedRoot := filepath.Join(base, "linked-root")
	if err := os.Symlink(root, linkedRoot); err != nil {
		t.Fatal(err)
	}

	p := Policy{LocalRoots: []string{root}}
	tests := []struct {
		name string
		p    Policy
		repo string
		ok   bool
	}{
		{"inside", p, filepath.Join(root, "good"), true},
		{"inside, as file URL", p, "file://" + filepath.Join(root, "good"), true},
		{"a missing repository inside", p, filepath.Join(root, "nope"), true},
		{"the root itself", p, root, true},
		{"inside a root given through a symlink", Policy{LocalRoots: []string{linkedRoot}}, filepath.Join(root, "good"), true},
		{"no roots: anywhere", Policy{}, outside.Dir, true},
		{"outside", p, outside.Dir, false},
		{"outside, as file URL", p, "file://" + outside.Dir, false},
		{"climbing out with ..", p, filepath.Join(root, "good", "..", "..", filepath.Base(filepath.Dir(outside.Dir)), filepath.Base(outside.Dir)), false},
		{"a symlink inside to outside", p, filepath.Join(root, "link"), false},
		{"a .git file pointing outside", p, filepath.Join(root, "gitfile"), false},
		{"a relative .git file pointing outside", p, filepath.Join(root, "gitfile-rel"), false},
		{"alternates outside", p, filepath.Join(root, "alt"), false},
		{"a bare repository's alternates outside", p, filepath.Join(root, "bare.git"), false},
		{"a worktree whose commondir is outside", p, filepath.Join(root, "wt"), false},
		{"a linked work tree of a repository outside", p, filepath.Join(root, "worktree"), true},
		{"a .git file naming another work tree's entry", p, filepath.Join(root, "forged"), false},
		{"a sibling whose name starts like the root", p, root + "-evil", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Check(tt.repo)
			if tt.ok && err != nil {
				t.Errorf("Check(%q) = %v, want nil", tt.repo, err)
			}
			if !tt.ok && !errors.Is(err, ErrOutsideRoots) {
				t.Errorf("Check(%q) = %v, want ErrOutsideRoots", tt.repo, err)
			}
		})
	}
	if err := p.Check("file://example.com" + filepath.Join(root, "good")); !errors.Is(err, ErrTransportNotAllowed) {
		t.Errorf("file URL with a host: %v, want ErrTransportNotAllowed", err)
	}
}

// TestFetcherChecksBeforeContact points a Fetcher at a listener that counts
// connections, and at a real repository outside the roots: nothing is
// contacted, where an allowing policy does connect.
func TestFetcherChecksBeforeContact(t *testing.T) {
	ln := gittest.Listen(t)
	addr := ln.Addr
	// A bound for the refused calls, which must return at once; the ones
	// that reach something get their own (under -race on a busy machine
	// a real listing takes seconds).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, url := range []string{"git://" + addr + "/a/b", "ssh://git@" + addr + "/a/b", "http://" + addr + "/a/b"} {
		if _, err := (&Fetcher{}).ListRefs(ctx, url, nil); !errors.Is(err, ErrTransportNotAllowed) {
			t.Errorf("ListRefs(%s) = %v, want ErrTransportNotAllowed", url, err)
		}
		if _, err := (&Fetcher{}).Clone(ctx, url, Resolved{Name: "refs/heads/main", Commit: strings.Repeat("0", 40)}, nil); !errors.Is(err, ErrTransportNotAllowed) {
			t.Errorf("Clone(%s) = %v, want ErrTransportNotAllowed", url, err)
		}
	}
	if n := ln.Conns(); n != 0 {
		t.Errorf("%d connections to a refused address", n)
	}
	gctx, gcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer gcancel()
	(&Fetcher{Policy: Policy{Transports: []string{TransportGit}}}).ListRefs(gctx, "git://"+addr+"/a/b", nil)
	if ln.Conns() == 0 {
		t.Error("an allowed git:// address made no connection: the listener does not prove anything")
	}

	marker := filepath.Join(t.TempDir(), "pwned")
	if _, err := (&Fetcher{}).ListRefs(ctx, "ext::sh -c touch% "+marker, nil); !errors.Is(err, ErrTransportNotAllowed) {
		t.Errorf("ext:: address: %v, want ErrTransportNotAllowed", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the ext:: command ran")
	}

	outside, _ := newRepo(t)
	f := &Fetcher{Policy: Policy{LocalRoots: []string{t.TempDir()}}}
	if _, err := f.ListRefs(ctx, outside.Dir, nil); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("ListRefs outside the roots = %v, want ErrOutsideRoots", err)
	}
	lctx, lcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer lcancel()
	if _, err := (&Fetcher{}).ListRefs(lctx, outside.Dir, nil); err != nil {
		t.Errorf("the same repository without roots: %v", err)
	}
}

// TestFileURLPath checks the file path of a file:// URL's path: the path
// itself on Unix, a drive path on Windows.
func TestFileURLPath(t *testing.T) {
	tests := []struct{ in, unix, windows string }{
		{"/srv/git/b", "/srv/git/b", `\srv\git\b`},
		{"/C:/repos/b", "/C:/repos/b", `C:\repos\b`},
		{"/", "/", `\`},
	}
	for _, tt := range tests {
		want := tt.unix
		if filepath.Separator == '\\' {
			want = tt.windows
		}
		if got := fileURLPath(tt.in); got != want {
			t.Errorf("fileURLPath(%q) = %q, want %q", tt.in, got, want)
		}
	}
}
