package index

import (
	"strconv"
	"testing"
)

// The cache benchmarks measure the text block cache alone, as the serving
// path uses it: 4 KiB blocks (textBlockSize) in a cache of the default
// size, so about 4,000 blocks held.

// BenchmarkCacheGetHit is one hit, from every CPU at once: the path of
// every section text a served answer reads.
func BenchmarkCacheGetHit(b *testing.B) {
	c := NewCache(0)
	readers := make([]*storeReader, 16)
	for i := range readers {
		readers[i] = &storeReader{}
	}
	const blocks = 128 // per reader: 2,048 blocks, 8 MiB, all held
	for _, s := range readers {
		for j := range uint32(blocks) {
			c.put(s, j, make([]byte, textBlockSize))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if _, ok := c.get(readers[i%len(readers)], uint32(i/len(readers))%blocks); !ok {
				b.Fatal("miss")
			}
		}
	})
}

// BenchmarkCacheMissPut is one miss and the put of the block decoded for
// it, each put evicting the least recently used block.
func BenchmarkCacheMissPut(b *testing.B) {
	c := NewCache(0)
	s := &storeReader{}
	data := make([]byte, textBlockSize)
	for i := range uint32(DefaultCacheBytes / textBlockSize) {
		c.put(s, i, data)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range uint32(b.N) {
		k := DefaultCacheBytes/textBlockSize + i
		if _, ok := c.get(s, k); ok {
			b.Fatal("hit")
		}
		c.put(s, k, data)
	}
}

// BenchmarkCacheDrop is closing one of 32 readers whose blocks fill the
// cache, then reading its blocks back in, as a reload does.
func BenchmarkCacheDrop(b *testing.B) {
	for _, n := range []int{1, 32} {
		b.Run(strconv.Itoa(n)+"-readers", func(b *testing.B) {
			c := NewCache(0)
			readers := make([]*storeReader, n)
			for i := range readers {
				readers[i] = &storeReader{}
			}
			per := uint32(DefaultCacheBytes / textBlockSize / n)
			data := make([]byte, textBlockSize)
			for _, s := range readers {
				for j := range per {
					c.put(s, j, data)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				s := readers[i%n]
				c.drop(s)
				for j := range per {
					c.put(s, j, data)
				}
			}
		})
	}
}
