package cache

import (
	"container/list"
	"sync"
	"time"
)

// Memory is a Cache in the process's memory, lost when it exits. It is
// safe for concurrent use.
type Memory struct {
	opts Options

	mu    sync.Mutex
	lru   *list.List // of *memEntry, most recently used first
	byKey map[string]*list.Element
	bytes int64
}

type memEntry struct {
	key     string
	value   []byte
	written time.Time
}

// NewMemory returns an empty in-memory cache bounded by opts.
func NewMemory(opts Options) *Memory {
	return &Memory{opts: opts.withDefaults(), lru: list.New(), byKey: map[string]*list.Element{}}
}

// Get implements Cache.
func (m *Memory) Get(key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*memEntry)
	if !m.opts.Now().Before(e.written.Add(m.opts.TTL)) {
		m.remove(el)
		return nil, false
	}
	m.lru.MoveToFront(el)
	return append([]byte(nil), e.value...), true
}

// Put implements Cache.
func (m *Memory) Put(key string, value []byte) error {
	if int64(len(value)) > m.opts.MaxBytes {
		return ErrTooLarge
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[key]; ok {
		m.remove(el)
	}
	e := &memEntry{key: key, value: append([]byte(nil), value...), written: m.opts.Now()}
	m.byKey[key] = m.lru.PushFront(e)
	m.bytes += int64(len(e.value))
	for m.lru.Len() > m.opts.MaxEntries || m.bytes > m.opts.MaxBytes {
		m.remove(m.lru.Back())
	}
	return nil
}

// Delete implements Cache.
func (m *Memory) Delete(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[key]; ok {
		m.remove(el)
	}
}

// Len returns the number of entries held, expired ones included until
// they are next looked up or evicted.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lru.Len()
}

func (m *Memory) remove(el *list.Element) {
	e := m.lru.Remove(el).(*memEntry)
	delete(m.byKey, e.key)
	m.bytes -= int64(len(e.value))
}
