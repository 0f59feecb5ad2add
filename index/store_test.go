package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeStore(t testing.TB, n int, emptyTexts bool) (string, []*record) {
	t.Helper()
	p := filepath.Join(t.TempDir(), storeFile)
	w, err := newStoreWriter(p)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record
	for i := 0; i < n; i++ {
		r := &record{Meta: Meta{Path: fmt.Sprintf("docs/p%d.md", i/7), Anchor: fmt.Sprintf("a%d", i), Heading: "Section `x`", Title: "Section x",
			HeadingPath: []string{"T", fmt.Sprintf("h%d", i%3)}, Level: 2, Line: i + 1, Part: i % 2, Parts: 2, Tokens: i,
			Topics: []string{"t1", fmt.Sprintf("t%d", i%5)}, Kinds: []string{KindInfo}},
			Text: fmt.Sprintf("## Section %d\n\n%s", i, strings.Repeat("words of text ", i%300))}
		if emptyTexts {
			r.Text = ""
		}
		if i%4 == 0 {
			r.Kinds = []string{KindInfo, KindCode}
			r.Langs = []string{"go", "sh"}
		}
		if i%9 == 0 {
			r.Kinds = []string{KindCode}
			r.Topics = nil
		}
		r.Hash, r.SimHash = TextHash(r.Text), SimHash(r.Text)
		recs = append(recs, r)
		if err := w.add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	return p, recs
}

func TestStoreRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p, recs := writeStore(t, n, false)
			s, err := openStore(p, NewCache(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			if n == 5000 && len(s.blocks) < 50 {
				t.Errorf("%d blocks, want many small ones for %d records", len(s.blocks), n)
			}
			// Backwards, to defeat any sequential luck in the block cache.
			for i := n - 1; i >= 0; i-- {
				m, err := s.meta(uint32(i))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(m, recs[i].Meta) {
					t.Fatalf("meta %d = %+v, want %+v", i, m, recs[i].Meta)
				}
				text, err := s.text(uint32(i))
				if err != nil {
					t.Fatal(err)
				}
				if text != recs[i].Text {
					t.Fatalf("text %d = %.40q…, want %.40q…", i, text, recs[i].Text)
				}
			}
			if _, err := s.meta(uint32(n)); err == nil {
				t.Error("meta past the end: no error")
			}
			if _, err := s.text(uint32(n)); err == nil {
				t.Error("text past the end: no error")
			}
		})
	}
}

// TestStoreEmptyTexts checks a store whose sections all have empty text,
// so that no text block is ever written.
func TestStoreEmptyTexts(t *testing.T) {
	p, recs := writeStore(t, 3, true)
	s, err := openStore(p, NewCache(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for i := range recs {
		if text, err := s.text(uint32(i)); err != nil || text != "" {
			t.Errorf("text %d = %q, %v; want empty", i, text, err)
		}
	}
}

func TestStoreDamage(t *testing.T) {
	p, _ := writeStore(t, 2000, false)
	good, _ := os.ReadFile(p)
	tests := map[string]func([]byte) []byte{
		"truncated":     func(b []byte) []byte { return b[:len(b)/2] },
		"empty":         func(b []byte) []byte { return nil },
		"bad magic":     func(b []byte) []byte { b[0] ^= 0xff; return b },
		"bad trailer":   func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b },
		"table garbage": func(b []byte) []byte { b[len(b)-trailerSize-5] ^= 0xff; return b },
		"meta garbage": func(b []byte) []byte {
			metaOff := int(b[len(b)-trailerSize]) | int(b[len(b)-trailerSize+1])<<8 | int(b[len(b)-trailerSize+2])<<16
			for i := metaOff + 10; i < metaOff+200; i++ {
				b[i] ^= 0x5a
			}
			return b
		},
		"block garbage": func(b []byte) []byte {
			for i := 100; i < 400; i++ {
				b[i] ^= 0x5a
			}
			return b
		},
	}
	for name, damage := range tests {
		t.Run(name, func(t *testing.T) {
			bad := damage(append([]byte(nil), good...))
			q := filepath.Join(t.TempDir(), storeFile)
			os.WriteFile(q, bad, 0o644)
			s, err := openStore(q, NewCache(0))
			if err != nil {
				return // refused at open: fine
			}
			defer s.close()
			for i := uint32(0); i < 2000; i += 7 {
				if _, err := s.text(i); err != nil {
					return // refused at read: fine
				}
			}
			t.Error("damaged store read without an error")
		})
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := NewCache(300)
	a, b := &storeReader{}, &storeReader{}
	block := func(n int) []byte { return make([]byte, n) }
	c.put(a, 0, block(100))
	c.put(a, 1, block(100))
	c.put(b, 0, block(100))
	if _, ok := c.get(a, 0); !ok { // a/0 is now the most recent
		t.Fatal("a/0 missing before eviction")
	}
	c.put(b, 1, block(100)) // evicts a/1, the least recently used
	for _, tt := range []struct {
		s    *storeReader
		b    uint32
		want bool
	}{{a, 0, true}, {a, 1, false}, {b, 0, true}, {b, 1, true}} {
		if _, ok := c.get(tt.s, tt.b); ok != tt.want {
			t.Errorf("get(%p, %d) present = %v, want %v", tt.s, tt.b, ok, tt.want)
		}
	}
	if c.Size() != 300 {
		t.Errorf("size %d, want 300", c.Size())
	}
	c.put(a, 2, block(1000)) // larger than the cache: not kept, nothing evicted
	if _, ok := c.get(a, 2); ok || c.Size() != 300 {
		t.Errorf("oversized block kept (size %d)", c.Size())
	}
	c.drop(b)
	if _, ok := c.get(b, 0); ok || c.Size() != 100 {
		t.Errorf("after drop(b): size %d, want 100 and no b blocks", c.Size())
	}
}

func TestNearDuplicate(t *testing.T) {
	long := strings.Repeat("Configure the server with a file named config.yaml in the project root; every key is optional. ", 8)
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"identical", long, long, true},
		{"case and spacing", "## Install\n\nRun  `npm i x`.", "## install\nrun npm i X", true},
		{"one word changed in a long text", long, strings.Replace(long, "optional", "required", 1), true},
		{"a version number changed", long + " Since v4.", long + " Since v5.", true},
		{"short texts one word apart", "## Install\n\nnpm install foo", "## Install\n\nnpm install bar", false},
		{"different long texts", long, strings.Repeat("Routes are files under pages/ and each exports a component that renders the page. ", 8), false},
		{"half of the text", long, long[:len(long)/2], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens := func(s string) int { return len(s) / 4 }
			got := NearDuplicate(TextHash(tt.a), SimHash(tt.a), tokens(tt.a), TextHash(tt.b), SimHash(tt.b), tokens(tt.b))
			if got != tt.want {
				t.Errorf("NearDuplicate = %v, want %v", got, tt.want)
			}
		})
	}
}
