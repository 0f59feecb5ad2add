package pipeline

// Planning: which versions of a library are out of date, decided from the
// remote's refs, the published manifests and the config, before anything
// is fetched that need not be.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fetch"
	"github.com/codex7/codex7/markdown"
)

// plan is what one library needs built.
type plan struct {
	lib    config.Library
	latest string
	// names are the names of every version the library has, built or
	// not; nil when its versions could not be listed.
	names  []string
	jobs   []*job
	failed []VersionResult
}

// job is one library version to build.
type job struct {
	lib        config.Library
	url        string
	version    config.Version
	name       string
	resolved   fetch.Resolved
	configHash string
	snap       *fetch.Snapshot // already fetched while planning, or nil
	// snapToken says the job holds one of builder.snapshots for snap,
	// which its build gives back.
	snapToken bool
	// context7Versions is recorded in the manifest of the default branch's
	// version when the versions come from the repository.
	context7Versions []string
}

// repoURL turns the config's repo into something go-git can fetch: URLs as
// they are, local paths made absolute against the config's directory.
func (b *builder) repoURL(repo string) string {
	if fetch.IsURL(repo) || filepath.IsAbs(repo) {
		return repo
	}
	return filepath.Join(b.cfg.Dir, repo)
}

// ErrBadRef means a ref the repository names as a version (its default
// branch, or one its context7.json lists) gives no usable version name:
// ".." and the like would name a directory outside the library's.
var ErrBadRef = errors.New("unusable version ref")

func (b *builder) plan(ctx context.Context, lib config.Library) *plan {
	p := &plan{lib: lib}
	fail := func(version string, err error) *plan {
		stage := b.failure(ctx, lib.ID, version, err)
		p.failed = append(p.failed, VersionResult{Library: lib.ID, Version: version, Stage: stage, Err: fmt.Errorf("%s: %w", VersionName(lib.ID, version), err)})
		b.opts.Progress(Event{Library: lib.ID, Version: version, Stage: stage, Err: err})
		return p
	}
	url := b.repoURL(lib.Repo)
	auth := fetch.Auth(url, lib.TokenEnv, b.opts.Getenv)
	lctx, cancel := context.WithTimeout(ctx, b.opts.FetchTimeout)
	defer cancel()
	refs, err := b.fetcher.ListRefs(lctx, url, auth)
	if err != nil {
		return fail("*", err)
	}
	versions := lib.Versions
	var headSnap *fetch.Snapshot
	var headExtra []string // context7.json's versions, when versions come from the repo
	if len(versions) == 0 {
		// No versions configured: the default branch, plus what the repo's
		// context7.json lists as previous (tag) and branch versions.
		if refs.Head == "" {
			return fail("*", fmt.Errorf("%w: list versions: in the config", fetch.ErrNoDefaultBranch))
		}
		head := config.Version{Ref: refs.Head}
		if lib.Latest == "" {
			// context7.json lists older versions: the default branch is current.
			p.latest = lib.VersionName(head)
		}
		res, err := refs.Resolve(refs.Head)
		if err != nil {
			return fail(refs.Head, err)
		}
		extra, known := b.recordedContext7Versions(lib, head, res.Commit)
		if !known {
			select {
			case b.snapshots <- struct{}{}:
			case <-ctx.Done():
				return fail(refs.Head, ctx.Err())
			}
			if headSnap, err = b.fetcher.Clone(lctx, url, res, auth); err != nil {
				<-b.snapshots
				return fail(refs.Head, err)
			}
			// The token goes with the job that takes headSnap, or back
			// below when none does.
			defer func() {
				if headSnap != nil {
					<-b.snapshots
				}
			}()
			extra = context7Versions(readContext7(headSnap, b.log))
		}
		headExtra = extra
		versions = []config.Version{head}
		for _, ref := range extra {
			versions = append(versions, config.Version{Ref: ref})
		}
	}
	seen := map[string]bool{}
	var names []string
	for _, v := range versions {
		name := lib.VersionName(v)
		if err := config.CheckVersionName(name); err != nil {
			// Only a name from the repository gets here (its default
			// branch, its context7.json's versions): Validate checked the
			// config's. A hostile or odd ref ("..") must never become a
			// directory.
			fail(name, fmt.Errorf("%w: the repository's ref %q: %v; list the versions to build under versions: in the config, each with a name:", ErrBadRef, v.Ref, err))
			if p.latest == name {
				p.latest = ""
			}
			continue
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
		if lib.Latest != "" && (lib.Latest == v.Ref || lib.Latest == name) {
			p.latest = name
		}
		res, err := refs.Resolve(v.Ref)
		if err != nil {
			fail(name, err)
			continue
		}
		j := &job{lib: lib, url: url, version: v, name: name, resolved: res}
		j.configHash = b.configHash(lib, v, name)
		if len(lib.Versions) == 0 && v.Ref == refs.Head {
			j.context7Versions = headExtra
		}
		if !b.opts.Force && b.publishedUpToDate(j) != nil {
			p.failed = append(p.failed, VersionResult{Library: lib.ID, Version: name, Ref: v.Ref, Commit: res.Commit, Stage: StageUpToDate})
			b.opts.Progress(Event{Library: lib.ID, Version: name, Stage: StageUpToDate})
			continue
		}
		if headSnap != nil && len(lib.Versions) == 0 && v.Ref == refs.Head && res.Commit == headSnap.Commit {
			j.snap, j.snapToken, headSnap = headSnap, true, nil
		}
		p.jobs = append(p.jobs, j)
	}
	p.names = names
	switch {
	case p.latest != "":
	case lib.Latest != "":
		// Only reachable when the versions come from the repository: Validate
		// checks latest: against listed versions. A typo must not quietly
		// make the highest tag, maybe an old release, the default.
		fail(lib.Latest, fmt.Errorf("latest: %q is none of this library's versions (%s): set it to one of them, or remove it", lib.Latest, strings.Join(names, ", ")))
		if len(lib.Versions) == 0 && len(names) > 0 {
			p.latest = names[0] // the default branch, as with no latest:
		} else {
			p.latest = artifacts.LatestOf(names)
		}
	default:
		p.latest = artifacts.LatestOf(names) // highest semver, else the first
	}
	return p
}

// recordedContext7Versions returns the context7.json versions recorded by
// the published build of the default branch, when that build is of commit
// and still up to date; known is false when the repo must be read.
func (b *builder) recordedContext7Versions(lib config.Library, head config.Version, commit string) (refs []string, known bool) {
	if b.opts.Force {
		return nil, false
	}
	name := lib.VersionName(head)
	j := &job{lib: lib, name: name, resolved: fetch.Resolved{Commit: commit}, configHash: b.configHash(lib, head, name)}
	m := b.publishedUpToDate(j)
	if m == nil {
		return nil, false
	}
	return m.Context7Versions, true
}

// context7Versions lists the refs context7.json names as versions.
func context7Versions(c7 *config.Context7) []string {
	if c7 == nil {
		return nil
	}
	var refs []string
	for _, v := range c7.PreviousVersions {
		refs = append(refs, v.Tag)
	}
	for _, v := range c7.BranchVersions {
		refs = append(refs, v.Branch)
	}
	return refs
}

// publishedUpToDate returns the manifest of the published version when it
// was built from the same commit, config and indexer and its files are
// intact, else nil.
func (b *builder) publishedUpToDate(j *job) *artifacts.Manifest {
	dir := artifacts.Dir(b.opts.Out, j.lib.ID, j.name)
	m, err := artifacts.ReadManifest(dir)
	if err != nil || m.Commit != j.resolved.Commit || m.ConfigHash != j.configHash || m.IndexerVersion != IndexerVersion {
		return nil
	}
	// A damaged version is rebuilt rather than kept: checksumming the
	// files costs far less than serving a version the server refuses.
	if ok, seen := b.intact.Load(dir); seen {
		if !ok.(bool) {
			return nil
		}
		return m
	}
	probs := artifacts.VerifyVersion(dir)
	b.intact.Store(dir, len(probs) == 0)
	if len(probs) > 0 {
		b.log.Warn("published version is damaged: rebuilding it", "library", j.lib.ID, "version", j.name, "file", probs[0].Path, "err", probs[0].Err)
		return nil
	}
	return m
}

// configHash digests everything the config says that shapes this version's
// artifact, and the build options that do too.
func (b *builder) configHash(lib config.Library, v config.Version, name string) string {
	// Where the entry sits in the file, the library's other versions and
	// which one is latest shape no file of this version.
	fromRepo := len(lib.Versions) == 0
	lib.Line, lib.Versions, lib.Latest = 0, nil, ""
	data, _ := json.Marshal(struct {
		Lib          config.Library
		FromRepo     bool // versions from the repository: context7_versions recorded
		Repo         string
		Version      config.Version
		Name         string
		MaxFileBytes int64
		MaxDepth     int // directories deeper are left out
		Split        markdown.Options
		Format       int
	}{lib, fromRepo, fetch.Redact(lib.Repo), v, name, b.opts.MaxFileBytes, b.opts.Fetch.MaxDepth, b.opts.Split, artifacts.FormatVersion})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func readContext7(snap *fetch.Snapshot, log *slog.Logger) *config.Context7 {
	data, err := snap.ReadFile("context7.json")
	if err != nil {
		return nil
	}
	c7, err := config.ParseContext7(data)
	if err != nil {
		log.Warn("ignoring context7.json", "commit", snap.Commit, "err", err)
		return nil
	}
	return c7
}

// VersionName names a library version in messages (/org/name@version).
// The version "*", which stands for every version of a library whose
// versions could not be listed, names the library alone.
func VersionName(library, version string) string {
	if version == "*" {
		return library
	}
	return library + "@" + version
}
