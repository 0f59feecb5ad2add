// Package catalog owns what the server serves: it loads one or more
// artifact directories (dists) read-only as one catalog, checks every
// version against its manifest and its files against their checksums
// before first use (a load reads catalog.json only: it lists what a
// load needs of each version), refuses damaged versions with a reason
// while serving the rest, and switches to a new catalog when a build or pull publishes
// one, without a restart and without a request ever seeing two builds.
//
// A Loader holds the current Snapshot, an immutable view of the catalogs;
// requests run on one through Loader.With. A Snapshot's versionDirs
// (one per version directory) open their Version (index, topic tree,
// documents) lazily and close it once no Snapshot uses them, or earlier
// when more than Options.MaxOpen are open and no request holds it (least
// recently used first); it opens again when next asked for.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/topics"
)

// Options tune a Loader. The zero value suits the CLI.
type Options struct {
	// Logger receives reloads and refused versions; nil discards them.
	Logger *slog.Logger
	// CacheBytes bounds the decoded section text kept in memory across
	// all libraries (default index.DefaultCacheBytes).
	CacheBytes int
	// VerifyInBackground checksums every served version after each load,
	// one at a time, so first requests rarely wait for verification. A
	// version is always verified before its first use either way.
	VerifyInBackground bool
	// AllowEmpty starts the loader without a catalog (not ready) instead
	// of failing, for servers whose artifacts arrive after start.
	AllowEmpty bool
	// MaxOpen bounds the library versions open at once: beyond it, the
	// least recently used one no request holds is closed, and opens again
	// when next asked for (default DefaultMaxOpen; negative: no bound).
	MaxOpen int
}

// Loader serves artifact directories read-only as one catalog. It is safe
// for concurrent use. Each request works on one immutable Snapshot of the
// catalog, so a reload never shows a request half of an update; indexes
// open on first use and close once no Snapshot serves them.
type Loader struct {
	dirs  []string
	log   *slog.Logger
	cache *index.Cache
	set   *openSet // bounds the versions open, across snapshots
	opts  Options

	current  atomic.Pointer[snapshot]
	reloadMu sync.Mutex // serializes loads, and Close with them
	// logged is, per source, the last load error logged (under reloadMu),
	// so that an error repeated at every poll is logged once.
	logged []string
	// heapChecked is, under reloadMu, the libraries of the catalog the
	// heap was last checked for (maybeCheckHeap).
	heapChecked int
	// closed is set, under reloadMu, by Close: no state is loaded after.
	closed atomic.Bool
	quit   chan struct{} // closed by Close, to end Watch

	verifyKick chan struct{}
	stop       context.CancelFunc
	done       sync.WaitGroup
}

// Open serves the artifact directories dirs as one catalog: each is
// loaded, watched and reloaded on its own, and a library two of them hold
// is refused in both (ErrConflict). Only catalog.json is read now (see
// load); a version's manifest is read, its files checksummed and its
// index opened on first use. Requests are served once one directory has a
// catalog; Status says Ready once all have.
func Open(dirs []string, opts Options) (*Loader, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no artifact directory to serve")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Loader{dirs: slices.Clone(dirs), logged: make([]string, len(dirs)), log: log, cache: index.NewCache(opts.CacheBytes), set: newOpenSet(maxOpen(opts.MaxOpen)), opts: opts, verifyKick: make(chan struct{}, 1), quit: make(chan struct{})}
	e.current.Store(emptySnapshot(e.dirs))
	if _, err := e.reload(false); err != nil && !e.current.Load().ready {
		if !opts.AllowEmpty {
			return nil, err
		}
		log.Warn("no artifacts loaded yet", "dirs", dirs, "err", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stop = cancel
	if opts.VerifyInBackground {
		e.done.Add(1)
		go e.verifyLoop(ctx)
		e.kickVerify()
	}
	return e, nil
}

// maxOpen is the bound of Options.MaxOpen n: DefaultMaxOpen for 0, none
// (0) when negative.
func maxOpen(n int) int {
	switch {
	case n == 0:
		return DefaultMaxOpen
	case n < 0:
		return 0
	}
	return n
}

// Close stops background work and Watch, and closes every index once the
// requests using it end. Afterwards the engine loads nothing: calls fail
// with ErrClosed. Closing twice is harmless.
func (e *Loader) Close() error {
	e.reloadMu.Lock()
	if e.closed.Load() {
		e.reloadMu.Unlock()
		return nil
	}
	e.closed.Store(true)
	close(e.quit)
	old := e.current.Swap(emptySnapshot(e.dirs))
	e.reloadMu.Unlock()
	if e.stop != nil {
		e.stop()
	}
	e.done.Wait()
	if old != nil {
		old.retire()
	}
	return nil
}

// Dirs returns the artifact directories served.
func (e *Loader) Dirs() []string { return slices.Clone(e.dirs) }

// Catalog returns the catalog served now: refused versions, and libraries
// left with none, are not in it. It is immutable: callers must not modify it.
func (e *Loader) Catalog() *artifacts.Catalog { return e.current.Load().catalog }

// Refused is a library version the engine will not serve, and why.
type Refused struct {
	Library string `json:"library"`
	Version string `json:"version"`
	Path    string `json:"path"`
	// Reason says why for people, with paths relative to the version
	// directory.
	Reason string `json:"reason"`
	// Cause is the error behind Reason, for errors.Is (it wraps
	// artifacts.ErrChecksum, ErrMissing, ErrFormatVersion, ErrCorrupt or
	// index.ErrCorruptStore for damaged artifacts).
	Cause error `json:"-"`
}

// Status describes what the engine serves, for readiness checks and metrics.
type Status struct {
	// Ready is true once every source has a catalog loaded.
	Ready bool `json:"ready"`
	// Sources are the artifact directories, in the order given.
	Sources   []SourceStatus `json:"sources"`
	LoadedAt  time.Time      `json:"loaded_at"`
	Libraries int            `json:"libraries"`
	// Versions counts the versions served: those of the catalog, less
	// those refused since it was loaded (until a reload leaves them out).
	Versions int `json:"versions"`
	// Open counts the versions whose index is open, MaxOpen bounds them
	// (0: no bound; more are open while requests hold more).
	Open    int `json:"open"`
	MaxOpen int `json:"max_open,omitempty"`
	// Opens counts the versions opened since start (again after an
	// eviction included), Evictions those closed to stay within MaxOpen,
	// and OpenHits the requests that found their version open.
	Opens     int64     `json:"opens"`
	Evictions int64     `json:"evictions"`
	OpenHits  int64     `json:"open_hits"`
	Refused   []Refused `json:"refused,omitempty"`
	// LastError is why the newest catalog of some source could not be
	// loaded (the previous one is still served), or "".
	LastError string `json:"last_error,omitempty"`
	// Reloads counts catalogs loaded since start.
	Reloads int64 `json:"reloads"`
}

// SourceStatus is one artifact directory of Status.
type SourceStatus struct {
	Dir string `json:"dir"`
	// Loaded says a catalog of it is served.
	Loaded bool `json:"loaded"`
	// Error is why its newest catalog.json could not be loaded, or "".
	Error string `json:"error,omitempty"`
}

// Status reports what the engine serves now.
func (e *Loader) Status() Status {
	st := e.current.Load()
	s := Status{Ready: st.ready, LoadedAt: st.loadedAt, Libraries: len(st.catalog.Libraries), Reloads: st.generation}
	var errs []string
	for _, src := range st.sources {
		ss := SourceStatus{Dir: src.dir, Loaded: src.catalog != nil}
		if src.err != nil {
			ss.Error = src.err.Error()
			errs = append(errs, ss.Error)
		}
		s.Ready = s.Ready && ss.Loaded
		s.Sources = append(s.Sources, ss)
	}
	s.LastError = strings.Join(errs, "; ")
	s.Versions = st.versions
	s.Refused = append(s.Refused, st.refused...)
	// Refused since the load: still in st.catalog, no longer served.
	late := st.refusedSince()
	s.Refused = append(s.Refused, late...)
	s.Versions -= len(late)
	sort.SliceStable(s.Refused, func(i, j int) bool { return s.Refused[i].Path < s.Refused[j].Path })
	o := e.set.stats()
	s.Open, s.MaxOpen, s.Opens, s.Evictions, s.OpenHits = o.Open, o.MaxOpen, o.Opens, o.Evictions, o.Hits
	return s
}

// Reload reads the catalog again now, even if catalog.json looks
// unchanged (SIGHUP). On error the previous catalog stays served. After
// Close it is ErrClosed.
func (e *Loader) Reload(ctx context.Context) error {
	_, err := e.reload(true)
	return err
}

// Watch polls catalog.json every interval until ctx ends or the engine
// closes, and loads it when it changes (a build replaced it). Errors are
// logged and the previous catalog stays served.
func (e *Loader) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.quit:
			return
		case <-t.C:
			e.reload(false)
		}
	}
}

// reload loads the catalog into a new state and swaps it in, unless
// catalog.json is the file already loaded and force is false. It reports
// whether a new state was swapped in.
func (e *Loader) reload(force bool) (bool, error) {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	return e.reloadLocked(force)
}

// reloadSince loads the catalog again unless it was loaded since the state
// of generation gen, so that requests which all found the same state out
// of date cause one load, not one each.
func (e *Loader) reloadSince(gen int64) error {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	if e.current.Load().generation != gen {
		return nil
	}
	_, err := e.reloadLocked(true)
	return err
}

// reloadLocked is reload with e.reloadMu held.
func (e *Loader) reloadLocked(force bool) (bool, error) {
	if e.closed.Load() {
		return false, ErrClosed
	}
	prev := e.current.Load()
	srcs := make([]source, len(e.dirs))
	same := !force && !prev.retry
	for i, d := range e.dirs {
		srcs[i].dir = d
		srcs[i].id, srcs[i].err = statCatalog(d)
		// Unchanged: the same file as looked at before, or still none
		// for the same reason.
		p := prev.sources[i]
		if srcs[i].err != nil {
			same = same && p.seenErr == srcs[i].err.Error()
		} else {
			same = same && p.seenErr == "" && p.seen == srcs[i].id
		}
	}
	if same {
		return false, nil
	}
	start := time.Now()
	st, err := load(srcs, prev, e.cache, e.set)
	e.logErrors(st)
	if !st.ready {
		// Nothing to serve yet: keep the state for its errors only.
		st.generation = prev.generation
		e.current.Store(st)
		prev.retire()
		return false, err
	}
	st.acquireVersionDirs()
	st.generation = prev.generation
	if prev.ready {
		st.generation++
	}
	e.current.Store(st)
	prev.retire()
	e.log.Info("catalog loaded", "dirs", e.dirs, "libraries", len(st.catalog.Libraries), "refused", len(st.refused), "duration_ms", time.Since(start).Milliseconds())
	e.maybeCheckHeap(len(st.catalog.Libraries))
	for _, r := range st.refused {
		level := slog.LevelWarn
		if errors.Is(r.Cause, ErrConflict) {
			level = slog.LevelError
		}
		e.log.Log(context.Background(), level, "version refused", "library", r.Library, "version", r.Version, "reason", r.Reason)
	}
	e.kickVerify()
	// err, if any, is why some source's newest catalog was not loaded:
	// its previous one is served.
	return true, err
}

// logErrors logs each source of st whose newest catalog could not be
// loaded, once per distinct error.
func (e *Loader) logErrors(st *snapshot) {
	for i, src := range st.sources {
		var msg string
		if src.err != nil {
			msg = src.err.Error()
		}
		if msg == e.logged[i] {
			continue
		}
		e.logged[i] = msg
		switch {
		case msg == "":
		case src.catalog == nil && errors.Is(src.err, fs.ErrNotExist):
			// A directory a build or pull has yet to fill.
			e.log.Info("waiting for a catalog", "dir", src.dir)
		default:
			e.log.Error("catalog not loaded; serving the previous one", "dir", src.dir, "err", msg, "previous", src.catalog != nil)
		}
	}
}

// catalogID identifies one catalog.json file: a build replaces it by
// rename, which changes the inode (on Windows, the file index).
type catalogID struct {
	ino, size int64
	mtime     time.Time
}

func statCatalog(dir string) (catalogID, error) {
	p := filepath.Join(dir, artifacts.CatalogFile)
	fi, err := os.Stat(p)
	if err != nil {
		return catalogID{}, fmt.Errorf("read catalog: %w", err)
	}
	return catalogID{ino: fileIndex(p, fi), size: fi.Size(), mtime: fi.ModTime()}, nil
}

// acquire returns the current state with a reference held; release it.
// The loop makes sure the reference is taken on a state that was current
// after the increment, so a retiring state is never resurrected.
func (e *Loader) acquire() *snapshot {
	for {
		st := e.current.Load()
		st.refs.Add(1)
		if e.current.Load() == st {
			return st
		}
		st.release()
	}
}

// maxStaleRetries bounds how often a request is retried on a newer state
// after finding its version republished on disk under it.
const maxStaleRetries = 3

// With runs fn on the current Snapshot. When fn finds a version directory
// replaced on disk since the state was loaded (a build published between
// two polls), the catalog is reloaded and fn runs again on the new state,
// so a publish never fails a request. Requests that found the same state
// out of date share one reload. After Close, with fails with ErrClosed.
func (e *Loader) With(fn func(*Snapshot) error) error {
	for i := 0; ; i++ {
		if e.closed.Load() {
			return ErrClosed
		}
		st := e.acquire()
		if !st.ready {
			st.release()
			if e.closed.Load() {
				return ErrClosed
			}
			return ErrNotReady
		}
		gen, outdated, err := e.run(st, fn)
		if outdated {
			// A version of the catalog served was refused: load one
			// without it.
			e.reloadSince(gen)
		}
		if !errors.Is(err, ErrStale) || i == maxStaleRetries {
			return err
		}
		e.log.Info("version republished under a request; reloading", "err", err)
		if rerr := e.reloadSince(gen); rerr != nil {
			if errors.Is(rerr, ErrClosed) {
				return ErrClosed
			}
			return err
		}
	}
}

// run calls fn on st, held by the caller, and then gives back the
// versions the call opened and the caller's reference on st, also when fn
// panics (a server recovers and serves on): a retired state still held
// would keep every index it opened open for good. It returns st's
// generation, whether fn found st outdated, and fn's error.
func (e *Loader) run(st *snapshot, fn func(*Snapshot) error) (gen int64, outdated bool, err error) {
	defer st.release()
	call := &Snapshot{snapshot: st, lease: &lease{set: e.set}}
	defer call.lease.end()
	err = fn(call)
	if d := (*damaged)(nil); errors.As(err, &d) {
		err = st.damagedError(d)
	}
	return st.generation, st.outdated.Load(), err
}

func (e *Loader) kickVerify() {
	select {
	case e.verifyKick <- struct{}{}:
	default:
	}
}

// verifyLoop checksums the current state's versions after every load.
func (e *Loader) verifyLoop(ctx context.Context) {
	defer e.done.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.verifyKick:
		}
		st := e.acquire()
		refusedNow := false
		for _, path := range st.paths {
			if ctx.Err() != nil || e.current.Load() != st {
				break
			}
			sl := st.vdirs[path]
			// Only a new refusal changes the catalog: a failure that may
			// pass is left for the request that next opens the version.
			if err := sl.verify(); err != nil && sl.refusal() != nil && !st.isRefused(path) {
				refusedNow = true
			}
		}
		st.release()
		if refusedNow && ctx.Err() == nil {
			// A new state leaves the refused versions out of the catalog.
			e.reload(true)
		}
	}
}

// Resolved is a library version an id resolved to.
type Resolved struct {
	Library *artifacts.CatalogLib
	Version *artifacts.CatalogVersion
	// Build is the sha256 of the version's manifest: two Resolved with the
	// same Build and path name the same files, whichever catalog they
	// came from, so answers computed from one suit the other.
	Build string
}

// served makes r name the build sl's manifest describes, once read: the
// catalog's, unless the directory was republished after the catalog was
// written (a build publishes every version before it writes the
// catalog), so that an answer never names one build and holds another.
func (r *Resolved) served(sl *versionDir) {
	if d := sl.desc.Load(); d != nil {
		r.Version, r.Build = d.served(r.Version), d.sum
	}
}

// Libraries returns the current catalog's library index. It is read-only
// and does no I/O, so it needs no reference on the Snapshot; after Close
// it is empty.
func (e *Loader) Libraries() *libraries.Index { return e.current.Load().libs }

// Resolve finds the library version an agent's id names. An id without a
// version gets the library's latest; an explicit version that is not built
// is a *VersionError, never replaced by another. A bare name ("fastapi")
// matches the one library whose project name, title or alias it is; a
// name several libraries share is a *LibraryError suggesting them, never
// resolved to one of them. The Resolved's
// pointers point into the served catalog, which is immutable and shared
// by every request: callers must not modify what they point to.
func (e *Loader) Resolve(ctx context.Context, id string) (*Resolved, error) {
	var r *Resolved
	err := e.With(func(st *Snapshot) (err error) {
		r, _, err = st.resolve(request.ScopeOf(ctx), id)
		return err
	})
	return r, err
}

// Topics returns the topic tree of the library version id names (the
// latest when id has no version). The tree is shared: callers must not
// modify it. It reads the manifest (on the version's first use) and
// topics.json, verified against it: the version's index is not opened.
func (e *Loader) Topics(ctx context.Context, id string) (*Resolved, *topics.Tree, error) {
	var r *Resolved
	var tree *topics.Tree
	err := e.With(func(st *Snapshot) error {
		if err := ctx.Err(); err != nil { // a request given up reads nothing
			return err
		}
		var sl *versionDir
		var err error
		if r, sl, err = st.resolve(request.ScopeOf(ctx), id); err != nil {
			return err
		}
		if tree, err = sl.topics(); err != nil {
			return st.unavailable(r, sl, err)
		}
		return nil
	})
	return r, tree, err
}

// Documents returns the documents of the library version id names, sorted
// by path. The slice is shared: callers must not modify it.
func (e *Loader) Documents(ctx context.Context, id string) (*Resolved, []artifacts.DocumentInfo, error) {
	var r *Resolved
	var docs []artifacts.DocumentInfo
	err := e.With(func(st *Snapshot) error {
		if err := ctx.Err(); err != nil { // a request given up opens nothing
			return err
		}
		var v *Version
		var err error
		r, v, err = st.Open(request.ScopeOf(ctx), id)
		if err == nil {
			docs, err = v.Documents()
		}
		return err
	})
	return r, docs, err
}
