package catalog

import (
	"errors"
	"fmt"
	"os"
	"path"
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

// Snapshot is one request's view of a loaded catalog: the catalog, shared
// by every request that runs on it, and what the request opened, held open
// until it ends (Loader.With makes one per call of its function).
type Snapshot struct {
	*snapshot
	lease *lease
}

// snapshot is one loaded catalog: immutable once swapped in, except for
// the reference count and the vdirs' lazily opened indexes. A versionDir
// whose manifest did not change is shared with the previous snapshot, so a
// reload keeps open indexes open. With several sources (artifact
// directories), the catalog is their union.
type snapshot struct {
	// ready says at least one source is loaded: requests are served.
	ready   bool
	sources []loadedSource         // one per Engine source, in order
	catalog *artifacts.Catalog     // served view: refused versions left out
	vdirs   map[string]*versionDir // by version path, every version listed on disk
	paths   []string               // the keys of vdirs, sorted
	refused []Refused              // found at load, sorted by path
	libs    *libraries.Index
	cache   *index.Cache
	set     *openSet // the Loader's, bounding the versions open
	// prepared and loadTrees hold, during load only, what
	// prepareVersions found and the latest versions' trees it read.
	prepared  map[prepKey]prepared
	loadTrees map[*versionDir]*topics.Tree
	// latest is each library's latest versionDir, by library id.
	latest map[string]*versionDir
	// versions counts the versions of catalog; refusedAt is the set of
	// refused's paths. lateRefusals caches the versions refused since
	// the load (see refusedSince).
	versions     int
	refusedAt    map[string]bool
	lateRefusals atomic.Pointer[lateRefusals]
	loadedAt     time.Time
	generation   int64
	// retry says a version was refused at load for a reason that may pass
	// (too many open files, an I/O error): the next poll loads the catalog
	// again even if catalog.json is unchanged.
	retry bool

	refs    atomic.Int64
	retired atomic.Bool
	cleanup sync.Once
	// outdated says a request found a version of the catalog refused
	// since the state was loaded: the catalog should be loaded again to
	// leave it out.
	outdated atomic.Bool
}

// loadedSource is what a state holds of one source.
type loadedSource struct {
	dir string
	// id identifies the catalog.json read (zero when none could be).
	id catalogID
	// catalog is the catalog as read, nil until one was: when a newer one
	// cannot be read, the previous one is loaded again.
	catalog *artifacts.Catalog
	// err is why the newest catalog.json could not be loaded, or nil.
	err error
	// seen identifies the newest catalog.json looked at, loaded or not,
	// and seenErr is why it could not even be found ("" when it was):
	// the next poll loads nothing while both stay the same.
	seen    catalogID
	seenErr string
}

func emptySnapshot(dirs []string) *snapshot {
	st := &snapshot{catalog: &artifacts.Catalog{FormatVersion: artifacts.FormatVersion, Libraries: []artifacts.CatalogLib{}}, vdirs: map[string]*versionDir{},
		libs: libraries.NewIndex(&artifacts.Catalog{}, nil)}
	for _, d := range dirs {
		st.sources = append(st.sources, loadedSource{dir: d, err: errNoCatalogYet, seenErr: errNoCatalogYet.Error()})
	}
	return st
}

// errNoCatalogYet is a source's error before its first load.
var errNoCatalogYet = errors.New("no catalog loaded yet")

// republishedWait bounds how long load keeps reading a version's manifest
// again after finding the version republished under it, waiting a little
// longer each time (from republishedBackoff): a build publishing version
// after version is waited out, and a directory republished without end
// cannot hold a load for longer. A count of tries was not enough: on a
// busy machine, ten reads could each be overtaken by the next publish.
const (
	republishedWait    = 2 * time.Second
	republishedBackoff = 100 * time.Microsecond
)

// source is one artifact directory as a load finds it.
type source struct {
	dir string
	id  catalogID
	err error // from statCatalog
}

// load reads each source's catalog and every listed version's manifest,
// reusing prev's vdirs whose manifest is byte-identical. A source whose
// catalog cannot be read keeps the catalog prev had of it, if any, with
// the error recorded. Versions that fail their checks are refused
// (listed, left out of the served catalog), and so is a library that
// two sources both hold, in both. When no source has a catalog the
// state is not ready and the error is the first source's.
func load(srcs []source, prev *snapshot, cache *index.Cache, set *openSet) (*snapshot, error) {
	st := &snapshot{vdirs: map[string]*versionDir{}, cache: cache, set: set, loadedAt: time.Now()}
	cats := make([]*artifacts.Catalog, len(srcs))
	var firstErr error
	for i, src := range srcs {
		ls := loadedSource{dir: src.dir, id: src.id, err: src.err, seen: src.id}
		if src.err != nil {
			ls.seenErr = src.err.Error()
		}
		if ls.err == nil {
			ls.catalog, ls.err = artifacts.ReadCatalog(src.dir)
		}
		if ls.err != nil {
			ls.id = catalogID{}
			if prev != nil && i < len(prev.sources) && prev.sources[i].dir == src.dir && prev.sources[i].catalog != nil {
				ls.catalog, ls.id = prev.sources[i].catalog, prev.sources[i].id
			}
			if firstErr == nil {
				firstErr = ls.err
			}
		}
		cats[i] = ls.catalog
		st.sources = append(st.sources, ls)
	}
	owners := libraryOwners(srcs, cats)
	st.prepareVersions(srcs, cats, prev)
	defer func() { st.prepared, st.loadTrees = nil, nil }()
	served := &artifacts.Catalog{FormatVersion: artifacts.FormatVersion, Libraries: []artifacts.CatalogLib{}}
	// builds identifies each library's latest version, for the library
	// index; trees holds those of the trees read by this load, only until
	// the index is built.
	builds, trees := map[string]string{}, map[string]*topics.Tree{}
	st.latest = map[string]*versionDir{}
	for i, cat := range cats {
		if cat == nil {
			continue
		}
		st.ready = true
		dir := srcs[i].dir
		seen := map[string]bool{}
		for _, l := range cat.Libraries {
			lower := strings.ToLower(l.ID)
			if seen[lower] {
				st.refuse(l.ID, "", "", errors.New("listed twice in the catalog"), "")
				continue
			}
			seen[lower] = true
			if o := owners[lower]; len(o) > 1 {
				if o[0] == i {
					st.refuse(l.ID, "", "", fmt.Errorf("%w: %s", ErrConflict, strings.Join(ownerDirs(srcs, o), " and ")), "")
				}
				continue
			}
			if lib, latest, tree := st.loadLibrary(dir, l, prev); len(lib.Versions) > 0 {
				served.Libraries = append(served.Libraries, lib)
				if latest != nil {
					st.latest[l.ID] = latest
					builds[l.ID] = latest.sum
				}
				if tree != nil {
					trees[l.ID] = tree
				}
			}
		}
	}
	if !st.ready {
		st.catalog = served
		st.libs = libraries.NewIndex(served, nil)
		return st, firstErr
	}
	sort.SliceStable(served.Libraries, func(i, j int) bool { return served.Libraries[i].ID < served.Libraries[j].ID })
	for p := range st.vdirs {
		st.paths = append(st.paths, p)
	}
	sort.Strings(st.paths)
	sort.Slice(st.refused, func(i, j int) bool {
		if st.refused[i].Path != st.refused[j].Path {
			return st.refused[i].Path < st.refused[j].Path
		}
		return st.refused[i].Library < st.refused[j].Library
	})
	st.catalog = served
	st.refusedAt = make(map[string]bool, len(st.refused))
	for _, r := range st.refused {
		st.refusedAt[r.Path] = true
	}
	for _, l := range served.Libraries {
		st.versions += len(l.Versions)
	}
	var prevLibs *libraries.Index
	if prev != nil {
		prevLibs = prev.libs
	}
	st.libs = libraries.NewIndexFrom(prevLibs, served, builds, func(id string) *topics.Tree {
		if t := trees[id]; t != nil {
			return t
		}
		return st.latestTree(id)
	})
	trees = nil // the index needs no more of them
	return st, firstErr
}

// libraryOwners maps each library id (lower case) to the sources whose
// catalog lists it, in order.
func libraryOwners(srcs []source, cats []*artifacts.Catalog) map[string][]int {
	owners := map[string][]int{}
	for i, cat := range cats {
		if cat == nil {
			continue
		}
		for _, l := range cat.Libraries {
			lower := strings.ToLower(l.ID)
			if o := owners[lower]; len(o) == 0 || o[len(o)-1] != i {
				owners[lower] = append(o, i)
			}
		}
	}
	return owners
}

func ownerDirs(srcs []source, owners []int) []string {
	var dirs []string
	for _, i := range owners {
		dirs = append(dirs, srcs[i].dir)
	}
	return dirs
}

// loadLibrary checks the versions of l, listed in the catalog of the
// source dir, and returns l as served (refused versions left out), the
// versionDir of its latest version, if that version is served, and its
// topic tree if this load read it. A latest version's topics.json is read
// (and checked) once for its versionDir, by the first load that serves
// it: a tree is not kept, so that a catalog of 50,000 libraries does not
// hold 50,000 trees.
func (st *snapshot) loadLibrary(dir string, l artifacts.CatalogLib, prev *snapshot) (artifacts.CatalogLib, *versionDir, *topics.Tree) {
	lib := l
	lib.Versions = nil
	var latestTree *topics.Tree
	var latest *versionDir
	for _, v := range l.Versions {
		sl, err := st.versionDirFor(dir, &l, &v, prev)
		if err != nil {
			st.refuse(l.ID, v.Version, v.Path, err, filepath.Join(dir, filepath.FromSlash(v.Path)))
			st.retry = st.retry || transient(err)
			continue
		}
		// The manifest is the truth about what the directory holds: a
		// build may have republished it after this catalog was written.
		v.Commit, v.BuiltAt, v.Counts = sl.manifest.Commit, sl.manifest.BuiltAt, sl.manifest.Counts
		lib.Versions = append(lib.Versions, v)
		if v.Version != l.Latest {
			continue
		}
		// The tree prepareVersions read, if it read one; none needed when
		// an earlier load read it (the library index has its terms).
		tree := st.loadTrees[sl]
		if tree == nil {
			if sl.topicsRead.Load() {
				latest = sl
				continue
			}
			tree, err = sl.topics()
		}
		// A build republished the version since its manifest was
		// read: read the new one. That is no damage to refuse.
		deadline, wait := time.Now().Add(republishedWait), republishedBackoff
		for ; errors.Is(err, ErrStale) && time.Now().Before(deadline); wait = min(2*wait, 50*time.Millisecond) {
			time.Sleep(wait)
			delete(st.vdirs, v.Path)
			if sl, err = st.versionDirFor(dir, &l, &v, prev); err == nil {
				v.Commit, v.BuiltAt, v.Counts = sl.manifest.Commit, sl.manifest.BuiltAt, sl.manifest.Counts
				lib.Versions[len(lib.Versions)-1] = v
				tree, err = sl.topics()
			}
		}
		if err == nil {
			latestTree, latest = tree, sl
		} else {
			st.refuse(l.ID, v.Version, v.Path, err, filepath.Join(dir, filepath.FromSlash(v.Path)))
			st.retry = st.retry || transient(err) || errors.Is(err, ErrStale)
			lib.Versions = lib.Versions[:len(lib.Versions)-1]
		}
	}
	// The catalog as read is kept (loaded again when the source's next
	// catalog.json cannot be read): when its versions are served as
	// listed, the served entry shares them instead of holding a copy.
	if slices.Equal(lib.Versions, l.Versions) {
		lib.Versions = l.Versions
	}
	return lib, latest, latestTree
}

// latestTree reads the topic tree of library id's latest version, or
// returns nil when it cannot be read (the error is the version's to
// report when it is asked for).
func (st *snapshot) latestTree(id string) *topics.Tree {
	sl := st.latest[id]
	if sl == nil {
		return nil
	}
	t, err := sl.topics()
	if err != nil {
		return nil
	}
	return t
}

// refuse records a version refused at load because of err; vdir is its
// directory, left out of the reason.
func (st *snapshot) refuse(lib, version, path string, err error, vdir string) {
	st.refused = append(st.refused, Refused{Library: lib, Version: version, Path: path, Reason: reason(err, vdir), Cause: err})
}

func (st *snapshot) isRefused(path string) bool { return st.refusedAt[path] }

// lateRefusals are the versions of a snapshot refused since it was loaded,
// as found when the Loader had counted refusals refusals.
type lateRefusals struct {
	refusals int64
	refused  []Refused
}

// refusedSince returns the versions of st refused since it was loaded. It
// looks at every version only when a version of the Loader was refused
// since it last looked: Status, which /metrics and /readyz call, costs
// nothing per version of a large catalog.
func (st *snapshot) refusedSince() []Refused {
	var n int64
	if st.set != nil {
		n = st.set.refusals.Load()
	}
	if c := st.lateRefusals.Load(); c != nil && c.refusals == n {
		return c.refused
	}
	c := &lateRefusals{refusals: n}
	for _, path := range st.paths {
		sl := st.vdirs[path]
		if err := sl.refusal(); err != nil && !st.isRefused(path) {
			c.refused = append(c.refused, Refused{Library: sl.library, Version: sl.version, Path: path, Reason: reason(err, sl.dir), Cause: err})
		}
	}
	st.lateRefusals.Store(c)
	return c.refused
}

// versionDirFor checks one catalog version against its manifest and returns its
// versionDir, reused from prev when the manifest is unchanged. A reused versionDir
// that was refused is kept in st (so that its refusal lasts until the
// version is republished) and its refusal returned. The files were
// looked at by prepareVersions when it ran first; otherwise they are now.
func (st *snapshot) versionDirFor(dir string, l *artifacts.CatalogLib, v *artifacts.CatalogVersion, prev *snapshot) (*versionDir, error) {
	rel := v.Path
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	if st.vdirs[rel] != nil {
		return nil, fmt.Errorf("catalog lists %s twice", rel)
	}
	k := prepKey{dir, rel}
	p, ok := st.prepared[k]
	if ok {
		delete(st.prepared, k) // a retry after a republish looks again
	} else {
		p = prepareVersion(dir, rel, prev, &st.set.refusals)
	}
	if p.err != nil {
		return nil, p.err
	}
	sl := p.sl
	if m := sl.manifest; !strings.EqualFold(m.Library.ID, l.ID) || m.Version != v.Version {
		return nil, fmt.Errorf("manifest is for %s@%s, catalog says %s@%s", m.Library.ID, m.Version, l.ID, v.Version)
	}
	st.vdirs[rel] = sl
	if p.reused {
		if err := sl.refusal(); err != nil {
			return nil, err
		}
	}
	return sl, nil
}

// checkRel checks that a catalog's version path is org/project/version.
func checkRel(rel string) error {
	if segs := strings.Split(rel, "/"); len(segs) != 3 || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") || strings.Contains(rel, "..") || strings.HasPrefix(rel, ".") {
		return fmt.Errorf("catalog path %q is not org/project/version", rel)
	}
	return nil
}

// prepKey names a version directory of a source.
type prepKey struct{ dir, rel string }

// prepared is what prepareVersion found of one version directory.
type prepared struct {
	sl     *versionDir
	reused bool         // sl is prev's
	tree   *topics.Tree // sl's topic tree, read for a latest version
	err    error
}

// prepareVersion reads the manifest of the version directory rel of the
// source dir, and makes its versionDir, or reuses prev's when the
// manifest is unchanged: the same file (inode, size and modification time:
// a publish replaces the directory, so a manifest is never rewritten in
// place), or one with the same bytes. A new versionDir is checked to have
// every file its manifest lists. It only reads prev, and is safe to call
// concurrently.
func prepareVersion(dir, rel string, prev *snapshot, refusals *atomic.Int64) prepared {
	vdir := filepath.Join(dir, filepath.FromSlash(rel))
	var old *versionDir
	if prev != nil {
		if o := prev.vdirs[rel]; o != nil && o.dir == vdir {
			old = o
		}
	}
	if old != nil {
		if mid, err := statManifest(vdir); err == nil && old.mid == mid {
			return prepared{sl: old, reused: true}
		}
	}
	// The manifest's identity is taken from the file read (no stat
	// before: a first load of 50,000 versions has nothing to compare it
	// with, and the file read is the one the versionDir describes).
	m, sum, mid, err := readManifest(vdir)
	if err != nil {
		return prepared{err: err}
	}
	key := rel + "\x00" + sum
	if old != nil && old.key == key {
		return prepared{sl: old, reused: true}
	}
	if err := checkFilesPresent(vdir, m); err != nil {
		return prepared{err: err}
	}
	// Keep what serving needs: the list of skipped files, the repository
	// and the like are a manifest's larger part, and a catalog of 50,000
	// versions holds them all.
	files := newFileSums(m.Files)
	m = &artifacts.Manifest{Library: artifacts.Library{ID: m.Library.ID}, Version: m.Version, Commit: m.Commit,
		BuiltAt: m.BuiltAt, Counts: m.Counts}
	return prepared{sl: &versionDir{refusals: refusals, key: key, dir: vdir, sum: sum, mid: mid, library: m.Library.ID, version: m.Version, manifest: m, files: files}}
}

// statManifest identifies the manifest file of the version directory vdir.
func statManifest(vdir string) (catalogID, error) {
	p := filepath.Join(vdir, artifacts.ManifestFile)
	fi, err := os.Stat(p)
	if err != nil {
		return catalogID{}, err
	}
	return catalogID{ino: fileIndex(p, fi), size: fi.Size(), mtime: fi.ModTime()}, nil
}

// loadWorkers is how many version directories a load looks at at once:
// most of the work is waiting for the file system.
const loadWorkers = 8

// prepareVersions runs prepareVersion on every version the catalogs list,
// loadWorkers at a time, and reads the topic tree of each library's latest
// version, into st.prepared, for versionDirFor and loadLibrary to take up
// in catalog order. Nothing is decided here: it only does the I/O early.
func (st *snapshot) prepareVersions(srcs []source, cats []*artifacts.Catalog, prev *snapshot) {
	type job struct {
		k      prepKey
		latest bool
	}
	var jobs []job
	for i, cat := range cats {
		if cat == nil {
			continue
		}
		for _, l := range cat.Libraries {
			for _, v := range l.Versions {
				if checkRel(v.Path) == nil {
					jobs = append(jobs, job{prepKey{srcs[i].dir, v.Path}, v.Version == l.Latest})
				}
			}
		}
	}
	results := make([]prepared, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(loadWorkers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(jobs) {
					return
				}
				p := prepareVersion(jobs[j].k.dir, jobs[j].k.rel, prev, &st.set.refusals)
				if p.err == nil && jobs[j].latest && !p.sl.topicsRead.Load() {
					p.tree, _ = p.sl.topics() // an error is met again in order
				}
				results[j] = p
			}
		}()
	}
	wg.Wait()
	st.prepared = make(map[prepKey]prepared, len(jobs))
	st.loadTrees = map[*versionDir]*topics.Tree{}
	for j, jb := range jobs {
		if _, dup := st.prepared[jb.k]; !dup {
			st.prepared[jb.k] = results[j]
		}
		if t := results[j].tree; t != nil {
			st.loadTrees[results[j].sl] = t
		}
	}
}

// acquireVersionDirs counts st as a user of each of its vdirs; called once, just
// before st is swapped in.
func (st *snapshot) acquireVersionDirs() {
	for _, sl := range st.vdirs {
		sl.users.Add(1)
	}
}

func (st *snapshot) release() {
	if st.refs.Add(-1) == 0 && st.retired.Load() {
		st.close()
	}
}

// retire marks st replaced; it closes once no request holds it.
func (st *snapshot) retire() {
	st.retired.Store(true)
	if st.refs.Load() == 0 {
		st.close()
	}
}

// close releases st's vdirs; a versionDir no state uses any more closes its index.
func (st *snapshot) close() {
	st.cleanup.Do(func() {
		for _, sl := range st.vdirs {
			if sl.users.Add(-1) == 0 {
				sl.close(st.set)
			}
		}
	})
}

// resolve finds the library version id names in st's catalog.
func (st *snapshot) resolve(sc request.Scope, id string) (*Resolved, *versionDir, error) {
	key, err := request.ParseKey(id)
	if err != nil {
		return nil, nil, err
	}
	lib := findLibrary(st.libs, sc, key)
	if lib == nil && key.Name != "" {
		lib = st.libs.ByName(sc, key.Name)
	}
	if lib == nil {
		if r := st.refusedLibrary(sc, key); r != nil {
			return nil, nil, &VersionError{Library: r.Library, Version: r.Version, Reason: r.Reason, Cause: r.Cause}
		}
		return nil, nil, &LibraryError{Key: key.String(), Closest: closest(st.catalog, sc, key)}
	}
	name := key.Version
	if name == "" {
		name = lib.Latest
	}
	v := lib.Version(name)
	if v == nil {
		var names []string
		for _, x := range lib.Versions {
			names = append(names, x.Version)
		}
		verr := &VersionError{Library: lib.ID, Version: name, Available: names}
		for _, r := range st.refused {
			if strings.EqualFold(r.Library, lib.ID) && r.Version == name {
				verr.Reason, verr.Cause = r.Reason, r.Cause
			}
		}
		return nil, nil, verr
	}
	sl := st.vdirs[v.Path]
	return &Resolved{Library: lib, Version: v, Build: sl.sum}, sl, nil
}

// refusedLibrary returns a refusal of a library absent from the served
// catalog because every version of it was refused.
func (st *snapshot) refusedLibrary(sc request.Scope, key request.Key) *Refused {
	for i := range st.refused {
		r := &st.refused[i]
		if !request.Visible(sc, r.Library) {
			continue
		}
		if key.ID != "" && strings.EqualFold(r.Library, key.ID) {
			return r
		}
		if key.Name != "" && strings.EqualFold(r.Library[strings.LastIndex(r.Library, "/")+1:], key.Name) {
			return r
		}
	}
	return nil
}

// Resolve finds the library version id names, within sc, in st's catalog.
// An id without a version gets the library's latest; an explicit version
// that is not built is a *VersionError, never replaced by another.
func (st *snapshot) Resolve(sc request.Scope, id string) (*Resolved, error) {
	r, _, err := st.resolve(sc, id)
	return r, err
}

// Libraries returns the library index of st's catalog.
func (st *snapshot) Libraries() *libraries.Index { return st.libs }

// Open resolves id within sc and opens its version (verifying its files
// on first use). The version stays open until the request ends (the
// function given to Loader.With returns): it must not be used after. A
// version that cannot be opened is a *VersionError that says why, or
// ErrStale when it was republished meanwhile.
func (st *Snapshot) Open(sc request.Scope, id string) (*Resolved, *Version, error) {
	r, sl, err := st.resolve(sc, id)
	if err != nil {
		return nil, nil, err
	}
	v, err := sl.open(st.cache, st.set)
	if err != nil {
		return nil, nil, st.unavailable(r, sl, err)
	}
	st.lease.hold(sl)
	return r, v, nil
}

// unavailable is the error of a request that found r's version sl
// unusable because of err: ErrStale as it is (the request is retried), a
// *VersionError naming the other versions otherwise. When the version is
// now refused, st is marked outdated so that a catalog without it is
// loaded.
func (st *snapshot) unavailable(r *Resolved, sl *versionDir, err error) error {
	if errors.Is(err, ErrStale) {
		return err
	}
	if sl.refusal() != nil {
		st.outdated.Store(true)
	}
	var avail []string
	for _, x := range r.Library.Versions {
		if x.Version != r.Version.Version {
			avail = append(avail, x.Version)
		}
	}
	return &VersionError{Library: r.Library.ID, Version: r.Version.Version, Available: avail, Reason: reason(err, sl.dir), Cause: err}
}

// findLibrary finds the library key names exactly, by id, or by project
// name, title or alias, among those sc lets the request see, with the
// catalog's library index: no request looks at every library.
func findLibrary(libs *libraries.Index, sc request.Scope, key request.Key) *artifacts.CatalogLib {
	if key.ID != "" {
		if l := libs.ByID(key.ID); l != nil && request.Visible(sc, l.ID) {
			return l
		}
		return nil
	}
	return libs.Named(sc, key.Name)
}
