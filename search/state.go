package search

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/topics"
)

// state is one loaded catalog: immutable once swapped in, except for the
// reference count and the slots' lazily opened indexes. A slot whose
// manifest did not change is shared with the previous state, so a reload
// keeps open indexes open.
type state struct {
	ready      bool
	id         catalogID
	catalog    *artifacts.Catalog // served view: refused versions left out
	slots      map[string]*slot   // by version path, every version listed on disk
	paths      []string           // the keys of slots, sorted
	refused    []Refused          // found at load, sorted by path
	libs       *libraryIndex
	cache      *index.Cache
	answers    *answerCache // nil: no caching
	loadedAt   time.Time
	generation int64
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

func emptyState() *state {
	return &state{catalog: &artifacts.Catalog{FormatVersion: artifacts.FormatVersion, Libraries: []artifacts.CatalogLib{}}, slots: map[string]*slot{},
		libs: newLibraryIndex(&artifacts.Catalog{}, nil)}
}

// maxRepublishedRetries bounds how often load reads a version's manifest
// again after finding the version republished under it, so that a
// directory republished without end cannot hold a load forever.
const maxRepublishedRetries = 10

// load reads dir's catalog and every listed version's manifest, reusing
// prev's slots whose manifest is byte-identical. Versions that fail their
// checks are refused (listed, left out of the served catalog); only an
// unreadable catalog is an error.
func load(dir string, id catalogID, prev *state, cache *index.Cache) (*state, error) {
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		return nil, err
	}
	st := &state{ready: true, id: id, slots: map[string]*slot{}, cache: cache, loadedAt: time.Now()}
	served := &artifacts.Catalog{FormatVersion: cat.FormatVersion, Libraries: []artifacts.CatalogLib{}}
	trees := map[string]*topics.Tree{}
	seen := map[string]bool{}
	for _, l := range cat.Libraries {
		if seen[strings.ToLower(l.ID)] {
			st.refuse(l.ID, "", "", errors.New("listed twice in the catalog"), "")
			continue
		}
		seen[strings.ToLower(l.ID)] = true
		lib := l
		lib.Versions = nil
		for _, v := range l.Versions {
			sl, err := st.slotFor(dir, &l, &v, prev)
			if err != nil {
				st.refuse(l.ID, v.Version, v.Path, err, filepath.Join(dir, filepath.FromSlash(v.Path)))
				st.retry = st.retry || transient(err)
				continue
			}
			// The manifest is the truth about what the directory holds: a
			// build may have republished it after this catalog was written.
			v.Commit, v.BuiltAt, v.Counts = sl.manifest.Commit, sl.manifest.BuiltAt, sl.manifest.Counts
			lib.Versions = append(lib.Versions, v)
			if v.Version == l.Latest {
				tree, err := sl.topics()
				// A build republished the version since its manifest was
				// read: read the new one. That is no damage to refuse.
				for try := 0; errors.Is(err, errStale) && try < maxRepublishedRetries; try++ {
					delete(st.slots, v.Path)
					if sl, err = st.slotFor(dir, &l, &v, prev); err == nil {
						v.Commit, v.BuiltAt, v.Counts = sl.manifest.Commit, sl.manifest.BuiltAt, sl.manifest.Counts
						lib.Versions[len(lib.Versions)-1] = v
						tree, err = sl.topics()
					}
				}
				if err == nil {
					trees[l.ID] = tree
				} else {
					st.refuse(l.ID, v.Version, v.Path, err, filepath.Join(dir, filepath.FromSlash(v.Path)))
					st.retry = st.retry || transient(err) || errors.Is(err, errStale)
					lib.Versions = lib.Versions[:len(lib.Versions)-1]
				}
			}
		}
		if len(lib.Versions) > 0 {
			served.Libraries = append(served.Libraries, lib)
		}
	}
	for p := range st.slots {
		st.paths = append(st.paths, p)
	}
	sort.Strings(st.paths)
	sort.Slice(st.refused, func(i, j int) bool { return st.refused[i].Path < st.refused[j].Path })
	st.catalog = served
	st.libs = newLibraryIndex(served, trees)
	return st, nil
}

// refuse records a version refused at load because of err; vdir is its
// directory, left out of the reason.
func (st *state) refuse(lib, version, path string, err error, vdir string) {
	st.refused = append(st.refused, Refused{Library: lib, Version: version, Path: path, Reason: reason(err, vdir), Cause: err})
}

func (st *state) isRefused(path string) bool {
	for _, r := range st.refused {
		if r.Path == path {
			return true
		}
	}
	return false
}

// slotFor checks one catalog version against its manifest and returns its
// slot, reused from prev when the manifest is unchanged. A reused slot
// that was refused is kept in st (so that its refusal lasts until the
// version is republished) and its refusal returned.
func (st *state) slotFor(dir string, l *artifacts.CatalogLib, v *artifacts.CatalogVersion, prev *state) (*slot, error) {
	rel := v.Path
	if segs := strings.Split(rel, "/"); len(segs) != 3 || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") || strings.Contains(rel, "..") || strings.HasPrefix(rel, ".") {
		return nil, fmt.Errorf("catalog path %q is not org/project/version", rel)
	}
	if st.slots[rel] != nil {
		return nil, fmt.Errorf("catalog lists %s twice", rel)
	}
	vdir := filepath.Join(dir, filepath.FromSlash(rel))
	m, sum, err := readManifest(vdir)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(m.Library.ID, l.ID) || m.Version != v.Version {
		return nil, fmt.Errorf("manifest is for %s@%s, catalog says %s@%s", m.Library.ID, m.Version, l.ID, v.Version)
	}
	key := rel + "\x00" + sum
	if prev != nil {
		if old := prev.slots[rel]; old != nil && old.key == key {
			st.slots[rel] = old
			if err := old.refusal(); err != nil {
				return nil, err
			}
			return old, nil
		}
	}
	if err := checkFilesPresent(vdir, m); err != nil {
		return nil, err
	}
	sl := &slot{key: key, dir: vdir, sum: sum, library: l.ID, version: v.Version, manifest: m}
	st.slots[rel] = sl
	return sl, nil
}

// acquireSlots counts st as a user of each of its slots; called once, just
// before st is swapped in.
func (st *state) acquireSlots() {
	for _, sl := range st.slots {
		sl.users.Add(1)
	}
}

func (st *state) release() {
	if st.refs.Add(-1) == 0 && st.retired.Load() {
		st.close()
	}
}

// retire marks st replaced; it closes once no request holds it.
func (st *state) retire() {
	st.retired.Store(true)
	if st.refs.Load() == 0 {
		st.close()
	}
}

// close releases st's slots; a slot no state uses any more closes its index.
func (st *state) close() {
	st.cleanup.Do(func() {
		for _, sl := range st.slots {
			if sl.users.Add(-1) == 0 {
				sl.close()
			}
		}
	})
}

// resolve finds the library version id names in st's catalog.
func (st *state) resolve(sc Scope, id string) (*Resolved, *slot, error) {
	key, err := ParseKey(id)
	if err != nil {
		return nil, nil, err
	}
	lib := findLibrary(st.catalog, sc, key)
	if lib == nil && key.Name != "" {
		lib = st.libs.byName(sc, key.Name)
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
	return &Resolved{Library: lib, Version: v}, st.slots[v.Path], nil
}

// refusedLibrary returns a refusal of a library absent from the served
// catalog because every version of it was refused.
func (st *state) refusedLibrary(sc Scope, key Key) *Refused {
	for i := range st.refused {
		r := &st.refused[i]
		if !visible(sc, r.Library) {
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

// open resolves id within sc and opens its version.
func (st *state) open(sc Scope, id string) (*Resolved, *version, error) {
	r, sl, err := st.resolve(sc, id)
	if err != nil {
		return nil, nil, err
	}
	v, err := sl.open(st.cache)
	if err != nil {
		return nil, nil, st.unavailable(r, sl, err)
	}
	return r, v, nil
}

// unavailable is the error of a request that found r's version sl
// unusable because of err: errStale as it is (the request is retried), a
// *VersionError naming the other versions otherwise. When the version is
// now refused, st is marked outdated so that a catalog without it is
// loaded.
func (st *state) unavailable(r *Resolved, sl *slot, err error) error {
	if errors.Is(err, errStale) {
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
// name, title or alias, among those sc lets the request see.
func findLibrary(cat *artifacts.Catalog, sc Scope, key Key) *artifacts.CatalogLib {
	if key.ID != "" {
		if l := cat.Library(key.ID); l != nil && visible(sc, l.ID) {
			return l
		}
		return nil
	}
	want := strings.ToLower(key.Name)
	for i := range cat.Libraries {
		l := &cat.Libraries[i]
		if !visible(sc, l.ID) {
			continue
		}
		if strings.ToLower(l.ID[strings.LastIndex(l.ID, "/")+1:]) == want || strings.ToLower(l.Title) == want {
			return l
		}
		for _, a := range l.Aliases {
			if strings.ToLower(a) == want {
				return l
			}
		}
	}
	return nil
}
