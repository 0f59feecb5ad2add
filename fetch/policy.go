package fetch

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Transports a repository address may use, as named in a Policy and in
// codex7.yaml's allow.transports.
const (
	TransportHTTPS = "https"
	TransportHTTP  = "http"
	TransportSSH   = "ssh" // ssh:// URLs and scp-like git@host:path addresses
	TransportGit   = "git"
	TransportFile  = "file" // local paths and file:// URLs
)

// Transports lists every transport a Policy may allow, in the order error
// messages name them.
var Transports = []string{TransportHTTPS, TransportHTTP, TransportSSH, TransportGit, TransportFile}

// DefaultTransports returns the transports allowed when a Policy names
// none: HTTPS and local repositories. Plain-text http and git, and ssh
// (which signs in with the SSH agent's keys), must be allowed explicitly.
// The caller owns the returned slice.
func DefaultTransports() []string { return []string{TransportHTTPS, TransportFile} }

// Errors of Policy.Check.
var (
	// ErrTransportNotAllowed means the address uses a transport the policy
	// does not allow, or one fetch never allows (remote helpers such as
	// ext::, unknown URL schemes).
	ErrTransportNotAllowed = errors.New("transport not allowed")
	// ErrOutsideRoots means a local repository, or the git directory or
	// object store it points at, lies outside the policy's local roots.
	ErrOutsideRoots = errors.New("local repository outside the allowed roots")
)

// Policy says which repositories fetch may read. ListRefs and Clone check
// it before touching the repository. The zero value allows
// DefaultTransports and local repositories anywhere.
type Policy struct {
	// Transports are the transports allowed (see Transports); empty means
	// DefaultTransports.
	Transports []string
	// LocalRoots are the absolute directories local repositories must lie
	// in, symbolic links resolved; empty means anywhere.
	LocalRoots []string
}

var (
	schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)
	helperRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*::`)
)

// Transport names the transport repo uses, as git reads the address:
// "https", "http", "ssh" (ssh:// and scp-like user@host:path), "git",
// "file" (file:// URLs and local paths). A remote-helper address
// ("ext::sh -c …", "fd::3") or an unknown scheme is an error wrapping
// ErrTransportNotAllowed: those are never fetched.
func Transport(repo string) (string, error) {
	if m := schemeRE.FindStringSubmatch(repo); m != nil {
		switch s := strings.ToLower(m[1]); s {
		case TransportHTTPS, TransportHTTP, TransportSSH, TransportGit, TransportFile:
			return s, nil
		case "git+ssh", "ssh+git":
			return TransportSSH, nil
		default:
			return "", fmt.Errorf("%w: URL scheme %q is not a transport fetch uses (%s)", ErrTransportNotAllowed, s, strings.Join(Transports, ", "))
		}
	}
	if helperRE.MatchString(repo) {
		return "", fmt.Errorf("%w: git remote-helper addresses (\"transport::address\") can run programs and are never fetched", ErrTransportNotAllowed)
	}
	if IsURL(repo) {
		return TransportSSH, nil
	}
	return TransportFile, nil
}

// Check returns nil when p allows fetching repo, else an error wrapping
// ErrTransportNotAllowed or ErrOutsideRoots. For a local repository it
// resolves symbolic links, and follows what git itself would follow to
// reach objects elsewhere (a .git file's gitdir:, a worktree's commondir,
// objects/info/alternates): each must lie under a root too. Errors never
// repeat user info of a URL.
func (p Policy) Check(repo string) error {
	if strings.HasPrefix(repo, "-") {
		return fmt.Errorf("%w: an address starting with \"-\" would be read as an option", ErrTransportNotAllowed)
	}
	t, err := Transport(repo)
	if err != nil {
		return err
	}
	allowed := p.Transports
	if len(allowed) == 0 {
		allowed = DefaultTransports()
	}
	if !slices.Contains(allowed, t) {
		return fmt.Errorf("%w: %s uses the %s transport; allowed: %s", ErrTransportNotAllowed, Redact(repo), t, strings.Join(allowed, ", "))
	}
	if t != TransportFile || len(p.LocalRoots) == 0 {
		return nil
	}
	dir, err := localPath(repo)
	if err != nil {
		return err
	}
	return p.checkLocal(dir)
}

// localPath returns the absolute, cleaned path a local address names.
func localPath(repo string) (string, error) {
	p := repo
	if schemeRE.MatchString(repo) {
		u, err := url.Parse(repo)
		if err != nil {
			return "", fmt.Errorf("%w: malformed file:// URL", ErrTransportNotAllowed)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("%w: file:// URL names host %q; local repositories have none (file:///path)", ErrTransportNotAllowed, u.Host)
		}
		p = fileURLPath(u.Path)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("local repository %s: %w", p, err)
	}
	return abs, nil
}

// fileURLPath returns the file path that p, the path of a file:// URL,
// names: p itself on Unix, and on Windows p with backslashes and without
// the slash before a drive letter ("/C:/repos/b" → `C:\repos\b`).
func fileURLPath(p string) string {
	if len(p) > 1 && p[0] == '/' && filepath.VolumeName(p[1:]) != "" {
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

// checkLocal checks that dir, and every directory git would read objects
// from when serving it, lies under one of the roots.
func (p Policy) checkLocal(dir string) error {
	roots := make([]string, len(p.LocalRoots))
	for i, r := range p.LocalRoots {
		roots[i] = realPath(r)
	}
	inside := func(what, path string) error {
		real := realPath(path)
		for _, r := range roots {
			if within(r, real) {
				return nil
			}
		}
		return fmt.Errorf("%w: %s %s is not under %s", ErrOutsideRoots, what, real, strings.Join(roots, ", "))
	}
	if err := inside("repository", dir); err != nil {
		return err
	}
	// git serves the first of dir/.git, dir, dir.git/.git and dir.git that
	// is a repository, so dir.git is what it reads when dir is none: a
	// missing or plain dir passes the check above, its dir.git must too.
	if served := gitLookup(dir); served != dir {
		if err := inside("repository (git reads it for "+dir+")", served); err != nil {
			return err
		}
		dir = served
	}
	// A work tree's .git may be a file pointing at the git directory: it
	// must lie under a root too, unless it is the entry git made for this
	// very work tree when it was added to a repository elsewhere (git
	// worktree add), which names this .git file back. That repository then
	// counts as a root for what it leads to.
	gitDir := filepath.Join(dir, ".git")
	linked := false
	if data, err := os.ReadFile(gitDir); err == nil {
		target := strings.TrimSpace(strings.TrimPrefix(firstLine(data), "gitdir:"))
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		if err := inside("git directory (from .git)", target); err != nil {
			if !isWorktreeOf(target, gitDir) {
				return err
			}
			linked = true
		}
		gitDir = target
	} else if _, err := os.Stat(gitDir); err != nil {
		gitDir = dir // bare repository
	}
	// A linked worktree's git directory names the main one in commondir.
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(firstLine(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		if linked {
			roots = append(roots, realPath(common))
		} else if err := inside("common git directory (from commondir)", common); err != nil {
			return err
		}
		gitDir = common
	}
	objects := filepath.Join(gitDir, "objects")
	f, err := os.Open(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		alt := strings.TrimSpace(sc.Text())
		if alt == "" || strings.HasPrefix(alt, "#") {
			continue
		}
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(objects, alt)
		}
		if err := inside("object store (from objects/info/alternates)", alt); err != nil {
			return err
		}
	}
	return nil
}

// gitLookup returns the directory git serves for the path dir, as git's
// enter_repo does (upload-pack, which go-git's file transport runs, and
// every other git command): the first of dir/.git (a directory or a
// gitfile), dir, dir.git/.git and dir.git that is a repository; dir when
// none is.
func gitLookup(dir string) string {
	for _, c := range []string{dir, dir + ".git"} {
		if st, err := os.Stat(filepath.Join(c, ".git")); err == nil && (st.Mode().IsRegular() || st.IsDir() && isGitDir(filepath.Join(c, ".git"))) {
			return c
		}
		if isGitDir(c) {
			return c
		}
	}
	return dir
}

// isGitDir reports whether dir looks like a git directory to git: a HEAD,
// an objects and a refs directory.
func isGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// isWorktreeOf reports whether gitDir is the administrative directory git
// keeps for the linked work tree whose .git file is dotGit: its gitdir file
// names dotGit back.
func isWorktreeOf(gitDir, dotGit string) bool {
	data, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return false
	}
	back := strings.TrimSpace(firstLine(data))
	if !filepath.IsAbs(back) {
		back = filepath.Join(gitDir, back)
	}
	return realPath(back) == realPath(dotGit)
}

// realPath returns path absolute, cleaned and with symbolic links
// resolved as far as it exists.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// Resolve the longest existing prefix, so a missing repository under a
	// symlinked root is still judged by where it would be.
	dir, rest := abs, ""
	for {
		parent := filepath.Dir(dir)
		rest = filepath.Join(filepath.Base(dir), rest)
		if parent == dir {
			return abs
		}
		dir = parent
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
	}
}

// within reports whether path is root or below it; both are clean and
// absolute.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func firstLine(data []byte) string {
	s, _, _ := strings.Cut(string(data), "\n")
	return s
}
