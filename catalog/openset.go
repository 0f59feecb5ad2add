package catalog

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// DefaultMaxOpen is how many library versions a Loader keeps open at once
// unless told otherwise (Options.MaxOpen). An open version of a library of
// 20 pages costs about 200 KB of RSS (its index's mapped pages, the section
// store's metadata, its topic tree and, once read, its documents), a large
// one a few MB: 128 of them keep a server of 1,000 to 50,000 such libraries
// asked at random near the 100 MiB soft memory limit beside the section
// cache, the answer cache and the catalog itself (docs/BENCHMARKS.md,
// "Catalog scale"). Re-opening an evicted version costs well under a
// millisecond, as its files are not checksummed again.
const DefaultMaxOpen = 128

// openSet bounds the versions open at once, across every Snapshot of a
// Loader: when more than max are open, the least recently used that no
// request holds is closed. A version a request holds (pinned, between
// Snapshot.Open and the end of the request) is never closed, so the bound
// is soft: while more than max versions are in use, more are open, and the
// surplus closes as requests end. It is safe for concurrent use.
//
// Lock order: a versionDir's mu before the set's mu; the set's mu is never
// held while a file is opened or closed.
type openSet struct {
	max int // <= 0: no bound

	mu  sync.Mutex
	lru list.List // of *versionDir, most recently used first
	// Counts since the Loader opened, under mu.
	opens, evictions, hits int64
	// refusals counts the versions refused since the Loader opened, by
	// any snapshot (see versionDir.refuse): the openSet is the one thing
	// every versionDir of a Loader shares.
	refusals atomic.Int64
}

func newOpenSet(max int) *openSet {
	s := &openSet{max: max}
	s.lru.Init()
	return s
}

// OpenStats counts the opening and closing of versions by a Loader.
type OpenStats struct {
	// Open is how many versions are open now; MaxOpen the bound (0: none).
	Open, MaxOpen int
	// Opens counts versions opened (re-openings included), Evictions those
	// closed to stay within MaxOpen, and Hits the requests that found
	// their version open.
	Opens, Evictions, Hits int64
}

func (s *openSet) stats() OpenStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return OpenStats{Open: s.lru.Len(), MaxOpen: max(s.max, 0), Opens: s.opens, Evictions: s.evictions, Hits: s.hits}
}

// pin returns sl's open version, pinned, and true; or ErrStale and true
// when sl was closed for good; or false when sl is not open.
func (s *openSet) pin(sl *versionDir) (*Version, error, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case sl.v != nil:
		sl.pins++
		s.lru.MoveToFront(sl.elem)
		s.hits++
		return sl.v, nil, true
	case sl.closed:
		return nil, ErrStale, true
	}
	return nil, nil, false
}

// add records v, just opened from sl, as sl's open version, pinned once,
// and closes what the bound then evicts. sl.mu is held by the caller.
func (s *openSet) add(sl *versionDir, v *Version) {
	s.mu.Lock()
	sl.v = v
	sl.pins++
	sl.elem = s.lru.PushFront(sl)
	sl.opened.Store(true)
	s.opens++
	victims := s.overflow()
	s.mu.Unlock()
	closeVersions(victims)
}

// release unpins sl's version once, and closes what the bound evicts.
func (s *openSet) release(sl *versionDir) {
	s.mu.Lock()
	sl.pins--
	victims := s.overflow()
	s.mu.Unlock()
	closeVersions(victims)
}

// remove closes sl's version for good (no Snapshot serves sl any more);
// sl.mu is held by the caller and nothing pins sl.
func (s *openSet) remove(sl *versionDir) *Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl.closed = true
	return s.detach(sl)
}

// detach takes sl's version out of the set and returns it, to be closed
// by the caller once s.mu is released; s.mu is held.
func (s *openSet) detach(sl *versionDir) *Version {
	v := sl.v
	if v == nil {
		return nil
	}
	s.lru.Remove(sl.elem)
	sl.v, sl.elem = nil, nil
	sl.opened.Store(false)
	return v
}

// overflow takes out of the set, least recently used first, the unpinned
// versions beyond the bound, and returns them to be closed once s.mu is
// released; s.mu is held. Once detached, a version cannot be pinned again:
// the next request opens sl anew.
func (s *openSet) overflow() []*Version {
	if s.max <= 0 || s.lru.Len() <= s.max {
		return nil
	}
	var victims []*Version
	for e := s.lru.Back(); e != nil && s.lru.Len() > s.max; {
		prev := e.Prev()
		if sl := e.Value.(*versionDir); sl.pins == 0 {
			victims = append(victims, s.detach(sl))
			s.evictions++
		}
		e = prev
	}
	return victims
}

// closeVersions closes the indexes of versions no request holds.
func closeVersions(vs []*Version) {
	for _, v := range vs {
		v.reader.Close()
	}
}

// lease is what one request (one call of Loader.With's function) holds
// open: each version it opened, pinned until the request ends.
type lease struct {
	set    *openSet
	mu     sync.Mutex // a request may open versions from several goroutines
	pinned []*versionDir
}

func (l *lease) hold(sl *versionDir) {
	l.mu.Lock()
	l.pinned = append(l.pinned, sl)
	l.mu.Unlock()
}

// end unpins what the request opened.
func (l *lease) end() {
	l.mu.Lock()
	pinned := l.pinned
	l.pinned = nil
	l.mu.Unlock()
	for _, sl := range pinned {
		l.set.release(sl)
	}
}
