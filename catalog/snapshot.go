package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

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
	// retry says the load met a failure that may pass (too many open
	// files, an I/O error) reading what it needed: the next poll loads
	// the catalog again even if catalog.json is unchanged.
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

// source is one artifact directory as a load finds it.
type source struct {
	dir string
	id  catalogID
	err error // from statCatalog
}

// load reads each source's catalog and makes a versionDir for every
// version it lists, reusing prev's for the same builds: no version's file
// is read (a catalog lists each version's manifest sum and its latest
// version's topic names), except for catalogs written before they did,
// whose latest versions' manifests and trees are read for the library
// index. A source whose catalog cannot be read keeps the catalog prev had
// of it, if any, with the error recorded. Versions listed wrongly (a bad
// path, twice) are refused (listed, left out of the served catalog), and
// so is a library that two sources both hold, in both; a version found
// damaged later is refused when it is. When no source has a catalog the
// state is not ready and the error is the first source's.
func load(srcs []source, prev *snapshot, cache *index.Cache, set *openSet) (*snapshot, error) {
	st := &snapshot{vdirs: map[string]*versionDir{}, cache: cache, set: set, loadedAt: time.Now()}
	cats := make([]*artifacts.Catalog, len(srcs))
	listed := map[string]listedTopics{}
	var firstErr error
	for i, src := range srcs {
		ls := loadedSource{dir: src.dir, id: src.id, err: src.err, seen: src.id}
		if src.err != nil {
			ls.seenErr = src.err.Error()
		}
		if ls.err == nil {
			if ls.catalog, ls.err = artifacts.ReadCatalog(src.dir); ls.err == nil {
				takeTopics(ls.catalog, listed)
			} else if transient(ls.err) {
				// Found but not read for a reason that may pass (no
				// descriptor free, EIO): the file stays the same, so
				// only retry makes the next poll read it again.
				st.retry = true
			}
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
	served := &artifacts.Catalog{FormatVersion: artifacts.FormatVersion, Libraries: []artifacts.CatalogLib{}}
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
			if lib, latest := st.loadLibrary(dir, l, prev); len(lib.Versions) > 0 {
				served.Libraries = append(served.Libraries, lib)
				if latest != nil {
					st.latest[l.ID] = latest
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
	builds := st.latestBuilds()
	var unreadable atomic.Bool // a tree that may read later could not
	st.libs = libraries.NewIndexFrom(prevLibs, served, builds, func(id string) ([]string, bool) {
		if t, ok := listed[id]; ok && t.build == builds[id] {
			return t.names, true
		}
		sl := st.latest[id]
		if sl == nil {
			return nil, true
		}
		tree, err := sl.topics()
		if err != nil && transient(err) {
			unreadable.Store(true)
			return nil, false
		}
		return tree.Names(), true // none when damaged: the version is refused when asked
	}, st.latestTree)
	st.retry = st.retry || unreadable.Load()
	return st, firstErr
}

// listedTopics are the topic names a catalog lists for a library's latest
// version, and the build (manifest sum) they describe.
type listedTopics struct {
	build string
	names []string
}

// takeTopics moves the topic names cat lists into listed, by library id:
// the library index takes them, and a catalog of 50,000 libraries kept
// in memory need not hold them too.
func takeTopics(cat *artifacts.Catalog, listed map[string]listedTopics) {
	for i := range cat.Libraries {
		l := &cat.Libraries[i]
		for j := range l.Versions {
			v := &l.Versions[j]
			if v.Topics != nil && v.Manifest != "" && v.Version == l.Latest {
				listed[l.ID] = listedTopics{build: v.Manifest, names: v.Topics}
			}
			v.Topics = nil
		}
	}
}

// latestBuilds identifies each library's latest build for the library
// index. A catalog lists them; for one written before it did, the
// manifests are read, loadWorkers at a time (most of that is waiting for
// the file system). A latest version whose manifest cannot be read has
// none: the index knows it by its catalog entry alone.
func (st *snapshot) latestBuilds() map[string]string {
	ids := make([]string, 0, len(st.latest))
	var unread []*versionDir
	for id, sl := range st.latest {
		ids = append(ids, id)
		if sl.expect == "" && sl.desc.Load() == nil {
			unread = append(unread, sl)
		}
	}
	var g errgroup.Group
	g.SetLimit(loadWorkers)
	for _, sl := range unread {
		g.Go(func() error {
			sl.described() // an error is the version's to report when asked
			return nil
		})
	}
	g.Wait()
	builds := make(map[string]string, len(ids))
	for _, id := range ids {
		b, err := st.latest[id].listedBuild()
		if err != nil {
			st.retry = st.retry || transient(err)
			continue
		}
		builds[id] = b
	}
	return builds
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

// loadLibrary makes the versionDirs of l, listed in the catalog of the
// source dir, and returns l as served (versions refused left out) and the
// versionDir of its latest version, if that version is served. It reads
// nothing.
func (st *snapshot) loadLibrary(dir string, l artifacts.CatalogLib, prev *snapshot) (artifacts.CatalogLib, *versionDir) {
	lib := l
	lib.Versions = nil
	var latest *versionDir
	for i := range l.Versions {
		v := &l.Versions[i]
		sl, err := st.versionDirFor(dir, &l, v, prev)
		if err != nil {
			st.refuse(l.ID, v.Version, v.Path, err, filepath.Join(dir, filepath.FromSlash(v.Path)))
			continue
		}
		lib.Versions = append(lib.Versions, *v)
		if v.Version == l.Latest {
			latest = sl
		}
	}
	// The catalog as read is kept (loaded again when the source's next
	// catalog.json cannot be read): when its versions are all served,
	// the served entry shares them instead of holding a copy.
	if len(lib.Versions) == len(l.Versions) {
		lib.Versions = l.Versions
	}
	return lib, latest
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

// versionDirFor returns the versionDir of one catalog version, reused from
// prev when it is the same build (see reusable). A reused versionDir that
// was refused is kept in st (so that its refusal lasts until the version
// is republished) and its refusal returned. Nothing is read; the
// manifest file of a versionDir of prev that read or refused one is
// looked at (stat), to reuse it only while it is the same file.
func (st *snapshot) versionDirFor(dir string, l *artifacts.CatalogLib, v *artifacts.CatalogVersion, prev *snapshot) (*versionDir, error) {
	rel := v.Path
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	if st.vdirs[rel] != nil {
		return nil, fmt.Errorf("catalog lists %s twice", rel)
	}
	vdir := filepath.Join(dir, filepath.FromSlash(rel))
	if prev != nil {
		if o := prev.vdirs[rel]; reusable(o, vdir, v.Manifest) && strings.EqualFold(o.library, l.ID) && o.version == v.Version {
			st.vdirs[rel] = o
			return o, o.refusal()
		}
	}
	sl := newVersionDir(vdir, l, v, &st.set.refusals)
	st.vdirs[rel] = sl
	return sl, nil
}

// checkRel checks that a catalog's version path is org/project/version.
func checkRel(rel string) error {
	if segs := strings.Split(rel, "/"); len(segs) != 3 || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") || strings.Contains(rel, "..") || strings.HasPrefix(rel, ".") {
		return fmt.Errorf("catalog path %q is not org/project/version", rel)
	}
	return nil
}

// loadWorkers is how many version directories a load looks at at once,
// when it looks at any: most of the work is waiting for the file system.
const loadWorkers = 8

// statManifest identifies the manifest file of the version directory vdir.
func statManifest(vdir string) (catalogID, error) {
	p := filepath.Join(vdir, artifacts.ManifestFile)
	fi, err := os.Stat(p)
	if err != nil {
		return catalogID{}, err
	}
	return catalogID{ino: fileIndex(p, fi), size: fi.Size(), mtime: fi.ModTime()}, nil
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
			why := r.Reason
			if errors.Is(r.Cause, ErrConflict) {
				// The reason names the sources, server paths, for the
				// operator (Status, the log): the agent is told why
				// without them.
				why = ErrConflict.Error()
			}
			return nil, nil, &VersionError{Library: r.Library, Version: r.Version, Reason: why, Cause: r.Cause}
		}
		return nil, nil, &LibraryError{Key: key.String(), Closest: st.libs.Closest(sc, strings.ToLower(key.ID+" "+key.Name), 3)}
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
	r := &Resolved{Library: lib, Version: v}
	// The build the answer comes from, which answers are cached by: the
	// manifest's (read now on a version's first use), not what the
	// catalog lists.
	if _, err := sl.described(); err != nil {
		return nil, nil, st.unavailable(r, sl, err)
	}
	r.served(sl)
	return r, sl, nil
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
	return r, v, nil // r names the build resolve described, the one opened
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
	if st.removed(sl) {
		return fmt.Errorf("%w: %s was removed: %v", ErrStale, sl.rel, err)
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
	// Not refused: the next request tries again (see permanent).
	passing := sl.refusal() == nil
	return &VersionError{Library: r.Library.ID, Version: r.Version.Version, Available: avail, Reason: reason(err, sl.dir), Cause: err, Passing: passing}
}

// removed reports whether sl's directory is gone because a build or pull
// removed the version after writing a catalog without it (they write the
// catalog first, then remove), between two polls of st's source: the
// request is then retried on the new catalog rather than told the
// version is damaged. A directory gone while catalog.json is still the
// one st loaded is damage, as before.
func (st *snapshot) removed(sl *versionDir) bool {
	if _, err := os.Stat(sl.dir); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	for _, src := range st.sources {
		if filepath.Join(src.dir, filepath.FromSlash(sl.rel)) == sl.dir {
			id, err := statCatalog(src.dir)
			return err == nil && id != src.id
		}
	}
	return false
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
