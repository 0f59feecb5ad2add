// Package lru provides an in-memory cache bounded by the bytes its entries
// hold, evicting the least recently used first. It is the project's one
// cache of this kind: keep recent things in memory with it rather than
// with another list and map.
//
// Sizes are what the caller says an entry costs (its value's bytes, or an
// estimate of the memory it holds), given once at Put; the cache never
// measures values itself.
package lru

import "sync"

// Options bound a Cache and say when a value goes stale.
type Options[V any] struct {
	// MaxBytes is the most bytes the entries may hold, counted as the
	// sizes given to Put. An entry of more is not stored.
	MaxBytes int64
	// MaxEntries, when positive, is also the most entries kept.
	MaxEntries int
	// Stale, when not nil, reports whether a value may no longer be
	// served: Get removes such an entry and reports a miss. It is called
	// with the cache locked and must not use the cache.
	Stale func(V) bool
}

// Cache maps keys to values within a total size in bytes, evicting the
// least recently used entries (those least recently put or got) to make
// room. Make one with New. It is safe for concurrent use. A nil *Cache
// keeps nothing: Get misses and Put stores nothing, so callers may turn
// caching off with nil.
//
// Values are kept and returned as they are, never copied: callers that
// may modify a value, or one they got, copy it themselves.
type Cache[K comparable, V any] struct {
	maxBytes   int64
	maxEntries int
	stale      func(V) bool

	mu    sync.Mutex
	size  int64
	root  entry[K, V] // sentinel of the recency ring: root.next is the most recent, root.prev the least
	items map[K]*entry[K, V]
}

// entry is one key and value, linked into the recency ring. The ring is
// built into the entries (and not a container/list) so that each entry
// costs one allocation and reading one needs no type assertion.
type entry[K comparable, V any] struct {
	prev, next *entry[K, V]
	key        K
	value      V
	size       int64
}

// New returns an empty cache bounded by o.
func New[K comparable, V any](o Options[V]) *Cache[K, V] {
	c := &Cache[K, V]{maxBytes: o.MaxBytes, maxEntries: o.MaxEntries, stale: o.Stale, items: map[K]*entry[K, V]{}}
	c.root.prev, c.root.next = &c.root, &c.root
	return c
}

// Get returns the value under k and marks it the most recently used, or
// reports false when there is none or it is stale (and then removes it).
func (c *Cache[K, V]) Get(k K) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return zero, false
	}
	if c.stale != nil && c.stale(e.value) {
		c.remove(e)
		return zero, false
	}
	if c.root.next != e {
		c.unlink(e)
		c.pushFront(e)
	}
	return e.value, true
}

// Put stores v under k as the most recently used entry, costing size
// bytes, replacing any entry under k, then evicts the least recently used
// entries beyond the bounds. An entry larger than MaxBytes is not stored,
// and then nothing changes (an entry already under k stays); Put reports
// whether it stored v. A negative size panics.
func (c *Cache[K, V]) Put(k K, v V, size int64) bool {
	if size < 0 {
		panic("lru: negative size")
	}
	if c == nil || size > c.maxBytes {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.size += size - e.size
		e.value, e.size = v, size
		c.unlink(e)
		c.pushFront(e)
	} else {
		e := &entry[K, V]{key: k, value: v, size: size}
		c.items[k] = e
		c.pushFront(e)
		c.size += size
	}
	// The entry just put is the most recent, and alone it is within
	// both bounds, so it is never the one evicted.
	for c.size > c.maxBytes || (c.maxEntries > 0 && len(c.items) > c.maxEntries) {
		c.remove(c.root.prev)
	}
	return true
}

// Remove removes the entry under k, reporting whether there was one.
func (c *Cache[K, V]) Remove(k K) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if ok {
		c.remove(e)
	}
	return ok
}

// RemoveFunc removes every entry for which f returns true and returns how
// many it removed: a way to forget all the entries of an owner that goes
// away, when keys name their owner. It visits every entry, with the cache
// locked; f must not use the cache.
func (c *Cache[K, V]) RemoveFunc(f func(K, V) bool) int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for e := c.root.next; e != &c.root; {
		next := e.next
		if f(e.key, e.value) {
			c.remove(e)
			n++
		}
		e = next
	}
	return n
}

// Len returns the number of entries held, stale ones included until Get
// finds them or they are evicted.
func (c *Cache[K, V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Size returns the bytes held: the sum of the sizes of the entries held.
func (c *Cache[K, V]) Size() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = &c.root, c.root.next
	e.prev.next, e.next.prev = e, e
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
}

// remove unlinks e and forgets it.
func (c *Cache[K, V]) remove(e *entry[K, V]) {
	c.unlink(e)
	delete(c.items, e.key)
	c.size -= e.size
}
