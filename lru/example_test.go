package lru_test

import (
	"fmt"

	"github.com/codex7/codex7/lru"
)

// A cache of answers by request, each costing what it holds; nil when
// caching is off, which keeps nothing.
func ExampleCache() {
	type answer struct{ text string }
	newAnswers := func(limit int64) *lru.Cache[string, *answer] {
		if limit <= 0 {
			return nil
		}
		return lru.New[string](lru.Options[*answer]{MaxBytes: limit})
	}
	answers := newAnswers(64)
	for _, q := range []string{"install", "configure", "deploy"} {
		a := &answer{text: "how to " + q}
		answers.Put(q, a, int64(len(q)+len(a.text)))
	}
	_, kept := answers.Get("install") // evicted: the three cost 65 bytes
	a, ok := answers.Get("deploy")
	fmt.Println(kept, a.text, ok, answers.Size())

	off := newAnswers(0)
	off.Put("install", &answer{"how to install"}, 21)
	_, ok = off.Get("install")
	fmt.Println(ok)
	// Output:
	// false how to deploy true 44
	// false
}

// Keys that name their owner let an owner that goes away take its entries
// with it.
func ExampleCache_RemoveFunc() {
	type block struct {
		file string
		n    int
	}
	blocks := lru.New[block](lru.Options[[]byte]{MaxBytes: 1 << 20})
	for _, f := range []string{"a.bin", "b.bin"} {
		for n := range 3 {
			blocks.Put(block{f, n}, make([]byte, 100), 100)
		}
	}
	removed := blocks.RemoveFunc(func(k block, _ []byte) bool { return k.file == "a.bin" })
	fmt.Println(removed, blocks.Len(), blocks.Size())
	// Output: 3 3 300
}
