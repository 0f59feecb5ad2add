package cache

import (
	"time"

	"github.com/codex7/codex7/lru"
)

// Memory is a Cache in the process's memory, lost when it exits. It is
// safe for concurrent use.
type Memory struct {
	now     func() time.Time
	entries *lru.Cache[string, memEntry]
}

type memEntry struct {
	value   []byte // the cache's own copy
	written time.Time
}

// NewMemory returns an empty in-memory cache bounded by opts.
func NewMemory(opts Options) *Memory {
	opts = opts.withDefaults()
	return &Memory{now: opts.Now, entries: lru.New[string](lru.Options[memEntry]{
		MaxBytes:   opts.MaxBytes,
		MaxEntries: opts.MaxEntries,
		Stale:      func(e memEntry) bool { return !opts.Now().Before(e.written.Add(opts.TTL)) },
	})}
}

// Get implements Cache.
func (m *Memory) Get(key string) ([]byte, bool) {
	e, ok := m.entries.Get(key)
	if !ok {
		return nil, false
	}
	return append([]byte(nil), e.value...), true
}

// Put implements Cache. An entry costs its value's length.
func (m *Memory) Put(key string, value []byte) error {
	e := memEntry{value: append([]byte(nil), value...), written: m.now()}
	if !m.entries.Put(key, e, int64(len(e.value))) {
		return ErrTooLarge
	}
	return nil
}

// Delete implements Cache.
func (m *Memory) Delete(key string) {
	m.entries.Remove(key)
}

// Len returns the number of entries held, expired ones included until
// they are next looked up or evicted.
func (m *Memory) Len() int {
	return m.entries.Len()
}
