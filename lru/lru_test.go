package lru

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// order returns c's keys, most recently used first, after checking that
// the recency ring, the map and the size agree and the bounds hold.
func order[K comparable, V any](t *testing.T, c *Cache[K, V]) []K {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []K
	var size int64
	for e := c.root.next; e != &c.root; e = e.next {
		if e.next.prev != e {
			t.Fatalf("ring broken after %v", e.key)
		}
		if c.items[e.key] != e {
			t.Fatalf("entry %v in the ring is not the map's", e.key)
		}
		keys = append(keys, e.key)
		size += e.size
	}
	if len(keys) != len(c.items) {
		t.Fatalf("%d entries in the ring, %d in the map", len(keys), len(c.items))
	}
	if size != c.size {
		t.Fatalf("entries hold %d bytes, size says %d", size, c.size)
	}
	if c.size > c.maxBytes {
		t.Fatalf("size %d over the limit %d", c.size, c.maxBytes)
	}
	if c.maxEntries > 0 && len(keys) > c.maxEntries {
		t.Fatalf("%d entries over the limit %d", len(keys), c.maxEntries)
	}
	return keys
}

func TestEvictionOrder(t *testing.T) {
	type op struct {
		kind string // put, get, remove
		key  string
		size int64
	}
	tests := []struct {
		name string
		opts Options[int]
		ops  []op
		want []string // most recent first
	}{
		{
			name: "the least recently put goes first",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "c", 100}, {"put", "d", 100}},
			want: []string{"d", "c", "b"},
		},
		{
			name: "a get makes an entry the most recent",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "c", 100}, {"get", "a", 0}, {"put", "d", 100}},
			want: []string{"d", "a", "c"},
		},
		{
			name: "a put of a present key replaces it as the most recent",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "a", 150}, {"put", "c", 100}},
			want: []string{"c", "a"},
		},
		{
			name: "one large entry evicts as many as it needs",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "c", 100}, {"put", "d", 250}},
			want: []string{"d"},
		},
		{
			name: "an entry larger than the cache is not stored and evicts nothing",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "c", 301}},
			want: []string{"b", "a"},
		},
		{
			name: "an entry too large to replace a present one leaves it",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "a", 400}},
			want: []string{"b", "a"},
		},
		{
			name: "an entry of exactly the limit is stored",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 300}},
			want: []string{"b"},
		},
		{
			name: "at most MaxEntries",
			opts: Options[int]{MaxBytes: 1000, MaxEntries: 2},
			ops:  []op{{"put", "a", 1}, {"put", "b", 1}, {"get", "a", 0}, {"put", "c", 1}},
			want: []string{"c", "a"},
		},
		{
			name: "a removed entry frees its place",
			opts: Options[int]{MaxBytes: 300},
			ops:  []op{{"put", "a", 100}, {"put", "b", 100}, {"put", "c", 100}, {"remove", "b", 0}, {"put", "d", 100}},
			want: []string{"d", "c", "a"},
		},
		{
			name: "zero-sized entries cost nothing",
			opts: Options[int]{MaxBytes: 100},
			ops:  []op{{"put", "a", 0}, {"put", "b", 100}, {"put", "c", 0}},
			want: []string{"c", "b", "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[string](tt.opts)
			for i, o := range tt.ops {
				switch o.kind {
				case "put":
					stored := c.Put(o.key, i, o.size)
					if want := o.size <= tt.opts.MaxBytes; stored != want {
						t.Errorf("Put(%q, size %d) = %v, want %v", o.key, o.size, stored, want)
					}
				case "get":
					if _, ok := c.Get(o.key); !ok {
						t.Errorf("Get(%q) missed", o.key)
					}
				case "remove":
					if !c.Remove(o.key) {
						t.Errorf("Remove(%q) found nothing", o.key)
					}
				}
				order(t, c)
			}
			if got := order(t, c); !slices.Equal(got, tt.want) {
				t.Errorf("entries %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGetReturnsTheLatestValue(t *testing.T) {
	c := New[string](Options[string]{MaxBytes: 100})
	c.Put("k", "old", 10)
	c.Put("k", "new", 30)
	if v, ok := c.Get("k"); !ok || v != "new" {
		t.Errorf("Get = %q, %v; want new, true", v, ok)
	}
	if c.Size() != 30 || c.Len() != 1 {
		t.Errorf("size %d, len %d; want 30, 1", c.Size(), c.Len())
	}
	if !c.Remove("k") {
		t.Error("Remove(k) found nothing")
	}
	if c.Remove("other") {
		t.Error("Remove(other) found something")
	}
	if _, ok := c.Get("k"); ok || c.Size() != 0 || c.Len() != 0 {
		t.Errorf("after Remove: found %v, size %d, len %d; want nothing", ok, c.Size(), c.Len())
	}
}

func TestByteBoundNeverExceeded(t *testing.T) {
	for _, maxEntries := range []int{0, 7} {
		t.Run(fmt.Sprintf("max-entries-%d", maxEntries), func(t *testing.T) {
			const limit = 1000
			c := New[int](Options[int]{MaxBytes: limit, MaxEntries: maxEntries})
			r := rand.New(rand.NewPCG(1, uint64(maxEntries)))
			for i := range 5000 {
				k := r.IntN(40)
				switch r.IntN(10) {
				case 0:
					c.Remove(k)
				case 1, 2, 3:
					c.Get(k)
				default:
					size := r.Int64N(limit * 3 / 2) // a third too large
					if stored := c.Put(k, i, size); stored != (size <= limit) {
						t.Fatalf("Put(size %d) = %v", size, stored)
					}
					if size <= limit {
						if v, ok := c.Get(k); !ok || v != i {
							t.Fatalf("Get after Put = %d, %v; want %d, true", v, ok, i)
						}
					}
				}
				order(t, c) // fails on a size over the limit
			}
		})
	}
}

func TestStale(t *testing.T) {
	c := New[string](Options[int]{MaxBytes: 100, Stale: func(v int) bool { return v < 0 }})
	c.Put("fresh", 1, 10)
	c.Put("stale", -1, 10)
	if c.Len() != 2 {
		t.Fatalf("len %d, want 2: a stale entry stays until looked up", c.Len())
	}
	if _, ok := c.Get("stale"); ok {
		t.Error("a stale entry was served")
	}
	if v, ok := c.Get("fresh"); !ok || v != 1 {
		t.Errorf("Get(fresh) = %d, %v; want 1, true", v, ok)
	}
	if got := order(t, c); !slices.Equal(got, []string{"fresh"}) {
		t.Errorf("entries %q, want the stale one removed", got)
	}
}

func TestRemoveFuncByOwner(t *testing.T) {
	type key struct {
		owner *int
		block uint32
	}
	a, b := new(int), new(int)
	c := New[key](Options[[]byte]{MaxBytes: 1 << 20})
	for i := range uint32(5) {
		c.Put(key{a, i}, []byte("a"), 10)
		c.Put(key{b, i}, []byte("b"), 20)
	}
	if n := c.RemoveFunc(func(k key, _ []byte) bool { return k.owner == b }); n != 5 {
		t.Errorf("removed %d entries, want 5", n)
	}
	for _, k := range order(t, c) {
		if k.owner != a {
			t.Errorf("entry %v of the removed owner kept", k)
		}
	}
	if c.Len() != 5 || c.Size() != 50 {
		t.Errorf("len %d, size %d; want 5, 50", c.Len(), c.Size())
	}
	if n := c.RemoveFunc(func(key, []byte) bool { return true }); n != 5 || c.Len() != 0 || c.Size() != 0 {
		t.Errorf("removing all: %d removed, len %d, size %d; want 5, 0, 0", n, c.Len(), c.Size())
	}
	order(t, c)
}

func TestNilCacheKeepsNothing(t *testing.T) {
	var c *Cache[string, int]
	if c.Put("k", 1, 1) {
		t.Error("a nil cache stored a value")
	}
	if _, ok := c.Get("k"); ok {
		t.Error("a nil cache served a value")
	}
	if c.Remove("k") || c.RemoveFunc(func(string, int) bool { return true }) != 0 || c.Len() != 0 || c.Size() != 0 {
		t.Error("a nil cache holds something")
	}
}

func TestNegativeSizePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Put with a negative size did not panic")
		}
	}()
	New[string](Options[int]{MaxBytes: 100}).Put("k", 1, -1)
}

// TestConcurrentUse runs every operation from several goroutines at once;
// under -race it fails on any unsynchronized access, and it checks the
// bounds and the cache's structure at the end.
func TestConcurrentUse(t *testing.T) {
	type key struct {
		owner, n int
	}
	const limit = 4096
	c := New[key](Options[[]byte]{MaxBytes: limit, MaxEntries: 100, Stale: func(v []byte) bool { return len(v) == 0 }})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 0))
			for i := range 2000 {
				k := key{r.IntN(4), r.IntN(50)}
				switch r.IntN(20) {
				case 0:
					c.RemoveFunc(func(k key, _ []byte) bool { return k.owner == g%4 })
				case 1:
					c.Remove(k)
				case 2, 3:
					c.Len()
					if c.Size() > limit {
						t.Errorf("size %d over %d", c.Size(), limit)
					}
				case 4, 5, 6, 7, 8, 9, 10, 11:
					if v, ok := c.Get(k); ok && len(v) == 0 {
						t.Error("a stale value was served")
					}
				default:
					c.Put(k, make([]byte, i%3), int64(r.IntN(200)))
				}
			}
		})
	}
	wg.Wait()
	order(t, c)
}
