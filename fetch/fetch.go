// Package fetch brings a git repository's tree at one ref into memory with
// go-git: a cheap listing of the remote's refs (to decide whether anything
// changed), then a shallow, single-ref clone without a work tree, exposed as
// an fs.FS snapshot of the commit. A local repository's refs and tree are
// read in process from its object store, under the same checks and limits,
// without starting git.
//
// Any URL go-git understands works (https, ssh, git, file://) as does a local
// path, as far as a Fetcher's Policy allows: its transports, and for local
// repositories the roots they must lie under, are checked before anything
// is contacted. Credentials come from the caller (see Auth), never from the
// URL, and never appear in errors or logs: use Redact on any URL you print.
//
// Repositories are untrusted input. A clone holds what it fetches within
// Limits (files over a size cap are hashed as they stream by and dropped,
// the bytes and objects kept and the tree entries walked are capped), and
// the snapshot leaves out, and lists, what must not become a path:
// symbolic links, submodules, unsafe names, directories too deep; and Git
// LFS pointers, which stand for content that is not in the repository.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Errors callers branch on.
var (
	// ErrRefNotFound means the remote has no branch or tag of that name.
	ErrRefNotFound = errors.New("ref not found")
	// ErrNoDefaultBranch means the remote does not advertise HEAD.
	ErrNoDefaultBranch = errors.New("remote has no default branch")
	// ErrNoRepository means a local repository path names no folder, or
	// a folder that is no git repository.
	ErrNoRepository = errors.New("no git repository there")
)

// DefaultTokenEnv is the environment variable read for an HTTPS token when a
// library does not name its own.
const DefaultTokenEnv = "CODEX7_GIT_TOKEN"

// Refs is what a remote advertises: its default branch and the commit each
// branch and tag points at (annotated tags peeled to their commit).
type Refs struct {
	// Head is the default branch's short name, or "" when not advertised.
	Head     string
	Branches map[string]string
	Tags     map[string]string
}

// Resolved is one ref of a remote, resolved to a full name and a commit.
type Resolved struct {
	Name   plumbing.ReferenceName
	Commit string
	IsTag  bool
}

// Resolve finds ref among the remote's branches and tags. It accepts a short
// name ("main", "v1.2.0") or a full one ("refs/heads/main"); a branch wins
// over a tag of the same short name, as in git.
func (r *Refs) Resolve(ref string) (Resolved, error) {
	switch {
	case strings.HasPrefix(ref, "refs/heads/"):
		if c, ok := r.Branches[strings.TrimPrefix(ref, "refs/heads/")]; ok {
			return Resolved{Name: plumbing.ReferenceName(ref), Commit: c}, nil
		}
	case strings.HasPrefix(ref, "refs/tags/"):
		if c, ok := r.Tags[strings.TrimPrefix(ref, "refs/tags/")]; ok {
			return Resolved{Name: plumbing.ReferenceName(ref), Commit: c, IsTag: true}, nil
		}
	default:
		if c, ok := r.Branches[ref]; ok {
			return Resolved{Name: plumbing.NewBranchReferenceName(ref), Commit: c}, nil
		}
		if c, ok := r.Tags[ref]; ok {
			return Resolved{Name: plumbing.NewTagReferenceName(ref), Commit: c, IsTag: true}, nil
		}
	}
	return Resolved{}, fmt.Errorf("%w: %q (the remote has %s)", ErrRefNotFound, ref, r.describe())
}

// describe names a few of the remote's refs for an error message.
func (r *Refs) describe() string {
	var names []string
	for b := range r.Branches {
		names = append(names, "branch "+b)
	}
	for t := range r.Tags {
		names = append(names, "tag "+t)
	}
	if len(names) == 0 {
		return "no branches or tags"
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	return strings.Join(names, ", ")
}

// Fetcher fetches from the repositories its Policy allows, within its
// Limits. The zero value allows DefaultTransports and local repositories
// anywhere, with the default limits. A Fetcher is safe for concurrent use,
// and must not be copied once used: its per-host limit is shared by every
// call on it.
type Fetcher struct {
	Policy Policy
	Limits Limits
	// PerHost bounds the listings and clones running against one host at
	// once (see Host; 0 means DefaultPerHost). Calls past it wait their
	// turn, or for their context to end.
	PerHost int
	// Logger receives what a caller should know but that is not an error:
	// a local repository cloned with git because it cannot be read in
	// process (see Clone). Nil means slog.Default().
	Logger *slog.Logger

	hosts hostLimiter
	// viaGit makes Clone use go-git's transport for local repositories
	// too, so tests can hold both paths to the same protections.
	viaGit bool
}

func (f *Fetcher) logger() *slog.Logger {
	if f.Logger != nil {
		return f.Logger
	}
	return slog.Default()
}

// ListRefs asks the remote at repoURL for its refs without fetching
// objects, with the zero Fetcher.
func ListRefs(ctx context.Context, repoURL string, auth transport.AuthMethod) (*Refs, error) {
	return (&Fetcher{}).ListRefs(ctx, repoURL, auth)
}

// Clone is Fetcher.Clone with the zero Fetcher.
func Clone(ctx context.Context, repoURL string, ref Resolved, auth transport.AuthMethod) (*Snapshot, error) {
	return (&Fetcher{}).Clone(ctx, repoURL, ref, auth)
}

// ListRefs asks the remote at repoURL for its refs without fetching
// objects. It checks f.Policy first: nothing is contacted when the address
// is not allowed.
func (f *Fetcher) ListRefs(ctx context.Context, repoURL string, auth transport.AuthMethod) (*Refs, error) {
	if err := f.Policy.Check(repoURL); err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	release, err := f.hosts.acquire(ctx, repoURL, f.PerHost)
	if err != nil {
		return nil, fmt.Errorf("list refs of %s: %w", Redact(repoURL), err)
	}
	defer release()
	t, _ := Transport(repoURL)
	if t == TransportFile {
		if dir, err := localPath(repoURL); err == nil {
			refs, err := listLocal(ctx, dir)
			if err == nil {
				return refs, nil
			}
			if !errors.Is(err, errNotLocal) {
				return nil, fmt.Errorf("list refs of %s: %w", repoURL, err)
			}
		}
	}
	refs, err := listRemote(ctx, repoURL, auth)
	if t == TransportFile && errors.Is(err, transport.ErrRepositoryNotFound) {
		return nil, noLocalRepository(repoURL)
	}
	return refs, err
}

// noLocalRepository is ErrNoRepository for the local repository path
// repoURL, saying whether the folder (or, as git reads it, the folder
// with .git added) exists.
func noLocalRepository(repoURL string) error {
	dir, _ := localPath(repoURL)
	for _, d := range []string{dir, dir + ".git"} {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("list refs of %s: %w: the folder is not a git repository (commit the docs to a repository there, or point repo: at one)", repoURL, ErrNoRepository)
		}
	}
	return fmt.Errorf("list refs of %s: %w: the folder does not exist (a relative repo: path is read from the config file's folder)", repoURL, ErrNoRepository)
}

// listRemote asks the remote for its refs over git's protocol.
func listRemote(ctx context.Context, repoURL string, auth transport.AuthMethod) (*Refs, error) {
	remote := git.NewRemote(memory.NewStorage(), &gitconfig.RemoteConfig{Name: "origin", URLs: []string{repoURL}})
	list, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return nil, fmt.Errorf("list refs of %s: %w", Redact(repoURL), cleanErr(err))
	}
	refs := &Refs{Branches: map[string]string{}, Tags: map[string]string{}}
	peeled := map[string]string{}
	for _, ref := range list {
		name := ref.Name().String()
		switch {
		case name == "HEAD" && ref.Type() == plumbing.SymbolicReference:
			if validRef(ref.Target()) {
				refs.Head = ref.Target().Short()
			}
		case !validRef(plumbing.ReferenceName(strings.TrimSuffix(name, "^{}"))):
			// git never makes such a ref; a server that advertises one
			// ("refs/tags/..") is not to be trusted with a version's name.
		case strings.HasSuffix(name, "^{}"):
			peeled[strings.TrimSuffix(strings.TrimPrefix(name, "refs/tags/"), "^{}")] = ref.Hash().String()
		case ref.Name().IsBranch():
			refs.Branches[ref.Name().Short()] = ref.Hash().String()
		case ref.Name().IsTag():
			refs.Tags[ref.Name().Short()] = ref.Hash().String()
		}
	}
	for tag, commit := range peeled {
		refs.Tags[tag] = commit
	}
	return refs, nil
}

// validRef reports whether name is a ref name git itself would make
// (git check-ref-format's rules, as go-git applies them): no component
// starting with '.', no "..", no control characters, spaces or ~^:?*[\.
func validRef(name plumbing.ReferenceName) bool { return name.Validate() == nil }

// Clone fetches the single ref named by ref (a Resolved from ListRefs) with
// depth 1 into memory and returns a snapshot of its tree. It checks that the
// fetched commit is the one ListRefs saw, so a ref moving in between is
// reported rather than silently mixed. It checks f.Policy first, and holds
// the clone within f.Limits (see Limits for what is kept, dropped and
// refused).
//
// A local repository (a path or file:// URL) is read in process from its
// own object store, with no git process (see cloneLocal), under the same
// checks and limits. The rule for falling back to a clone through git: only
// when go-git cannot open the repository or might misread it (alternates,
// a repository format with extensions); the fallback is logged at Info on
// f.Logger with the reason. What is wrong with the repository itself (a
// missing or corrupt object, a ref that moved) is an error either way.
func (f *Fetcher) Clone(ctx context.Context, repoURL string, ref Resolved, auth transport.AuthMethod) (*Snapshot, error) {
	if err := f.Policy.Check(repoURL); err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	release, err := f.hosts.acquire(ctx, repoURL, f.PerHost)
	if err != nil {
		return nil, fmt.Errorf("clone %s at %s: %w", Redact(repoURL), ref.Name.Short(), err)
	}
	defer release()
	if t, _ := Transport(repoURL); t == TransportFile && !f.viaGit {
		if dir, err := localPath(repoURL); err == nil {
			snap, err := cloneLocal(ctx, dir, ref, f.Limits)
			var notInProcess *notInProcessError
			if !errors.As(err, &notInProcess) {
				if err != nil {
					return nil, fmt.Errorf("clone %s at %s: %w", Redact(repoURL), ref.Name.Short(), err)
				}
				return snap, nil
			}
			f.logger().InfoContext(ctx, "cloning a local repository with git: it cannot be read in process",
				"repo", Redact(repoURL), "reason", notInProcess.reason)
		}
	}
	return f.cloneGit(ctx, repoURL, ref, auth)
}

// cloneGit clones through go-git's transport into the limited store.
func (f *Fetcher) cloneGit(ctx context.Context, repoURL string, ref Resolved, auth transport.AuthMethod) (*Snapshot, error) {
	st := newStore(f.Limits)
	ctx, st.abort = context.WithCancel(ctx)
	defer st.abort()
	repo, err := git.CloneContext(ctx, st, nil, &git.CloneOptions{
		URL:           repoURL,
		Auth:          auth,
		ReferenceName: ref.Name,
		SingleBranch:  true,
		Depth:         1,
		NoCheckout:    true,
		Tags:          git.NoTags,
	})
	if ferr := st.failure(); ferr != nil {
		err = ferr // what stopped the pack, not the cancellation it caused
	}
	if err != nil {
		return nil, fmt.Errorf("clone %s at %s: %w", Redact(repoURL), ref.Name.Short(), cleanErr(err))
	}
	commit, err := repo.CommitObject(plumbing.NewHash(ref.Commit))
	if err != nil {
		head, herr := repo.Head()
		if herr != nil {
			return nil, fmt.Errorf("clone %s at %s: %w", Redact(repoURL), ref.Name.Short(), err)
		}
		if commit, err = repo.CommitObject(head.Hash()); err != nil {
			return nil, fmt.Errorf("clone %s at %s: read commit: %w", Redact(repoURL), ref.Name.Short(), err)
		}
	}
	if commit.Hash.String() != ref.Commit {
		return nil, fmt.Errorf("clone %s at %s: the ref moved from %s to %s while fetching; run the build again",
			Redact(repoURL), ref.Name.Short(), ref.Commit[:12], commit.Hash.String()[:12])
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("clone %s at %s: read tree: %w", Redact(repoURL), ref.Name.Short(), err)
	}
	snap, err := newSnapshot(st, commit.Hash.String(), commit.Committer.When.UTC(), tree, f.Limits)
	if err != nil {
		return nil, fmt.Errorf("clone %s at %s: %w", Redact(repoURL), ref.Name.Short(), err)
	}
	return snap, nil
}

// Auth returns the credentials for repoURL from the environment: for http(s)
// URLs, a token from the variable tokenEnv (DefaultTokenEnv when empty) sent
// as basic-auth password, with CODEX7_GIT_USERNAME (default
// "x-access-token") as user name. Other transports get nil, which lets
// go-git use its defaults (the SSH agent for ssh URLs). getenv is os.Getenv
// in production.
func Auth(repoURL, tokenEnv string, getenv func(string) string) transport.AuthMethod {
	if !strings.HasPrefix(repoURL, "https://") && !strings.HasPrefix(repoURL, "http://") {
		return nil
	}
	if tokenEnv == "" {
		tokenEnv = DefaultTokenEnv
	}
	token := getenv(tokenEnv)
	if token == "" {
		return nil
	}
	user := getenv("CODEX7_GIT_USERNAME")
	if user == "" {
		user = "x-access-token"
	}
	return &githttp.BasicAuth{Username: user, Password: token}
}

// Redact removes any user info from a URL so it can be logged or recorded.
func Redact(repoURL string) string {
	u, err := url.Parse(repoURL)
	if err != nil || u.User == nil || u.Scheme == "" {
		return repoURL
	}
	u.User = nil
	return u.String()
}

var userinfoRE = regexp.MustCompile(`://[^/@\s]+@`)

// cleanErr strips user info from URLs that go-git may echo in its errors.
// The result still wraps err, so that errors.Is and errors.As find its
// cause (a network error, transport.ErrAuthenticationRequired...): print
// the result, not what it wraps.
func cleanErr(err error) error {
	msg := err.Error()
	if clean := userinfoRE.ReplaceAllString(msg, "://"); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

// redactedError is err with msg, its message without user info, as its
// message.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
