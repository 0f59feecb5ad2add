package index

import (
	"github.com/blugelabs/bluge/analysis"

	"github.com/codex7/codex7/lru"
)

// DefaultCacheBytes is the size of a Cache made by NewCache(0), and the
// server's unless told otherwise. Over every corpus at 4 clients, 16 MiB
// instead of 8 answers 8% more calls/s (the same blocks decoded less
// often) for no more peak RSS: the server's soft memory limit, not the
// cache, bounds its heap (docs/BENCHMARKS.md).
const DefaultCacheBytes = 16 << 20

// Cache keeps recently read text blocks of section stores, decoded, up to
// a total size in bytes, evicting the least recently used. One cache is
// shared by every index a process opens, so memory stays bounded however
// many library versions are open. It is safe for concurrent use.
type Cache struct {
	blocks *lru.Cache[cacheKey, []byte]
	// prose is the query analyzer every reader of the cache shares: it is
	// safe for concurrent use, and making one (its stop word map) was a
	// quarter of the cost of opening a small index again after eviction.
	prose *analysis.Analyzer
}

// cacheKey names a block by its store, so that a closing store can drop
// its own.
type cacheKey struct {
	s     *storeReader
	block uint32
}

// NewCache returns a cache of at most limit bytes (DefaultCacheBytes when
// limit <= 0).
func NewCache(limit int) *Cache {
	if limit <= 0 {
		limit = DefaultCacheBytes
	}
	return &Cache{blocks: lru.New[cacheKey](lru.Options[[]byte]{MaxBytes: int64(limit)}), prose: analyzer()}
}

// get returns block b of s, if kept; callers must not modify it.
func (c *Cache) get(s *storeReader, b uint32) ([]byte, bool) {
	return c.blocks.Get(cacheKey{s, b})
}

// put keeps block b of s, which must not be modified afterwards; one
// larger than the whole cache is not kept.
func (c *Cache) put(s *storeReader, b uint32, data []byte) {
	c.blocks.Put(cacheKey{s, b}, data, int64(len(data)))
}

// drop forgets every block of s (which is closing). It visits every
// block kept, which a close, far rarer than a read, can afford.
func (c *Cache) drop(s *storeReader) {
	c.blocks.RemoveFunc(func(k cacheKey, _ []byte) bool { return k.s == s })
}

// Size returns the bytes held.
func (c *Cache) Size() int {
	return int(c.blocks.Size())
}
