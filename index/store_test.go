package index

import (
	"bytes"
	"errors"
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
	w, err := newStoreWriter(p, []byte("## Section 0\n\nwords of text words of text"))
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
		if i%6 == 0 {
			r.Source = fmt.Sprintf("docs/partials/p%d.adoc", i%4)
		}
		if i%10 == 3 {
			r.Within = fmt.Sprintf("Values {#values-%d}", i%3)
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
			s, err := openStore(p, NewCache(64<<10), false)
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
	s, err := openStore(p, NewCache(0), false)
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
			s, err := openStore(q, NewCache(0), false)
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

func TestTextDictionary(t *testing.T) {
	page := func(i int) string {
		return fmt.Sprintf("## Page %d\n\nThe command `tool-%d` does this. More information: <https://example.org/%d>.\n\n%s", i, i, i, strings.Repeat("x", i%700))
	}
	var texts []string
	for i := range 5000 {
		texts = append(texts, page(i))
	}
	dict := textDictionary(texts)
	if len(dict) == 0 || len(dict) > maxDictBytes {
		t.Fatalf("dictionary of %d bytes, want 1 to %d", len(dict), maxDictBytes)
	}
	if len(dict) < maxDictBytes*9/10 {
		t.Errorf("dictionary of %d bytes, want it nearly full (%d)", len(dict), maxDictBytes)
	}
	// Sampled through all of the texts, not only from their start: from
	// their first, middle and last tenth.
	for _, i := range []int{0, 2250, 4500} {
		var near bool
		for j := i; j < i+500 && !near; j++ {
			near = bytes.Contains(dict, []byte(fmt.Sprintf("## Page %d\n", j)))
		}
		if !near {
			t.Errorf("no sample near page %d", i)
		}
	}
	if again := textDictionary(texts); !bytes.Equal(again, dict) {
		t.Error("two dictionaries of the same texts differ")
	}
	if small := textDictionary(texts[:20]); len(small) > 0 {
		t.Errorf("dictionary of %d bytes for 20 short pages, want none", len(small))
	}
	if none := textDictionary(nil); none != nil {
		t.Errorf("dictionary of no texts = %q, want nil", none)
	}
	// A store of such pages is smaller with the dictionary, and reads back.
	size := func(dict []byte) int64 {
		p := filepath.Join(t.TempDir(), storeFile)
		w, err := newStoreWriter(p, dict)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range texts {
			if err := w.add(&record{Text: tx}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.close(); err != nil {
			t.Fatal(err)
		}
		s, err := openStore(p, NewCache(0), false)
		if err != nil {
			t.Fatal(err)
		}
		defer s.close()
		for _, i := range []uint32{0, 1234, 4999} {
			if got, err := s.text(i); err != nil || got != texts[i] {
				t.Fatalf("text %d = %.30q, %v; want %.30q", i, got, err, texts[i])
			}
		}
		fi, _ := os.Stat(p)
		return fi.Size()
	}
	with, without := size(dict), size(nil)
	if with >= without*9/10 {
		t.Errorf("store of %d bytes with the dictionary, %d without: want at least 10%% smaller", with, without)
	}
	if _, err := newStoreWriter(filepath.Join(t.TempDir(), storeFile), make([]byte, maxDictBytes+1)); err == nil {
		t.Error("a dictionary over 32 KiB: no error")
	}
}

// TestStoreDictionaryIsNoText checks that a record cannot read the
// dictionary block as its text.
func TestStoreDictionaryIsNoText(t *testing.T) {
	meta := oneRecordMeta(4)
	meta[len(meta)-16-3] = 0 // block 0
	p := filepath.Join(t.TempDir(), storeFile)
	os.WriteFile(p, assembleStore(t, [][]byte{deflateBytes(t, []byte("dictionary")), textBlock([]byte("text"))}, meta, 1), 0o644)
	s, err := openStore(p, NewCache(0), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if text, err := s.text(0); !errors.Is(err, ErrCorruptStore) {
		t.Errorf("text in block 0 = %q, %v; want ErrCorruptStore", text, err)
	}
	meta[len(meta)-16-3] = 1
	os.WriteFile(p, assembleStore(t, [][]byte{deflateBytes(t, []byte("dictionary")), textBlock([]byte("text"))}, meta, 1), 0o644)
	s2, err := openStore(p, NewCache(0), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.close()
	if text, err := s2.text(0); err != nil || text != "text" {
		t.Errorf("text in block 1 = %q, %v; want \"text\"", text, err)
	}
}

// TestStoreOldVersionRefused checks that stores of previous versions
// (artifact formats 3 to 8) are refused with a message saying to rebuild,
// not misread.
func TestStoreOldVersionRefused(t *testing.T) {
	for magic, trailer := range map[string]string{"codex7-sections2\n": "C7S2", "codex7-sections3\n": "C7S3", "codex7-sections4\n": "C7S4", "codex7-sections5\n": "C7S5"} {
		p, _ := writeStore(t, 3, false)
		data, _ := os.ReadFile(p)
		copy(data, magic)
		copy(data[len(data)-len(trailerMagic):], trailer)
		os.WriteFile(p, data, 0o644)
		_, err := openStore(p, NewCache(0), false)
		if !errors.Is(err, ErrCorruptStore) || !strings.Contains(err.Error(), "rebuild the artifacts") || !strings.Contains(err.Error(), "version "+magic[15:16]) {
			t.Errorf("opening a %q store: %v; want ErrCorruptStore naming the version and saying to rebuild", magic, err)
		}
	}
}

// TestStoreMetaIn checks metadata read into a shared buffer: the same as
// read alone, and each list capped so that appending to it leaves the
// others alone.
func TestStoreMetaIn(t *testing.T) {
	p, recs := writeStore(t, 40, false)
	s, err := openStore(p, NewCache(0), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	var buf []string
	var metas []Meta
	for i := range recs {
		m, err := s.metaIn(uint32(i), &buf)
		if err != nil {
			t.Fatal(err)
		}
		metas = append(metas, m)
	}
	for i, m := range metas {
		_ = append(m.HeadingPath, "appended")
		_ = append(m.Topics, "appended")
		_ = append(m.Kinds, "appended")
		_ = append(m.Langs, "appended")
		metas[i] = m
	}
	for i, m := range metas {
		if !reflect.DeepEqual(m, recs[i].Meta) {
			t.Errorf("meta %d = %+v, want %+v", i, m, recs[i].Meta)
		}
	}
}
