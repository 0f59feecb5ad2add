// Package cache keeps answers of the hosted Context7 API for a while, on
// disk or in memory, so that an agent asking the same question twice, or
// several server processes asking the same question, cost one remote call.
//
// Entries expire after a time to live counted from when they were written,
// and the least recently used ones are evicted when the cache holds more
// entries or bytes than allowed. Values are opaque bytes; callers store
// only answers they have checked, never failures.
//
// A Dir keeps one file per entry in a directory that several processes may
// share. Writes go to a temporary file renamed into place, so a reader sees
// a whole old entry, a whole new one, or none. Each file carries its key's
// hash, its write time, its length and a SHA-256 of its value; a file that
// fails any check (truncated, overwritten, half written by a crashed
// machine) is deleted and reported as a miss, never served. There is no
// index file to corrupt or lock: recency is the file's modification time,
// which a hit refreshes, and eviction lists the directory to rebuild the
// picture from the files themselves.
//
// A Memory cache has the same behaviour within one process, for read-only
// containers and tests.
package cache

import (
	"errors"
	"log/slog"
	"time"
)

// Defaults of Options.
const (
	DefaultTTL        = time.Hour
	DefaultMaxEntries = 1000
	DefaultMaxBytes   = 64 << 20
)

// ErrTooLarge means a value larger than the whole cache may hold; it is
// not stored.
var ErrTooLarge = errors.New("cache: value larger than the cache")

// Cache stores values by key. Implementations are safe for concurrent use.
type Cache interface {
	// Get returns the value stored under key, or false when there is none,
	// it has expired or it was damaged. The caller owns the returned slice.
	Get(key string) ([]byte, bool)
	// Put stores value under key, replacing any previous value, and evicts
	// the least recently used entries beyond the cache's bounds. An error
	// means the value was not stored; the cache stays usable.
	Put(key string, value []byte) error
	// Delete removes the entry under key, if any.
	Delete(key string)
}

// Options bound a cache. The zero value gives the defaults.
type Options struct {
	// TTL is how long an entry is served after it was written; 0 means
	// DefaultTTL.
	TTL time.Duration
	// MaxEntries is the most entries kept; 0 means DefaultMaxEntries.
	MaxEntries int
	// MaxBytes is the most bytes kept, counted as the size of each entry
	// (its value, plus its header on disk); 0 means DefaultMaxBytes.
	MaxBytes int64
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
	// Logger receives a warning for each damaged entry dropped; nil
	// discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
