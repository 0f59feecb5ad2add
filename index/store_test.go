package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeStore(t *testing.T, n int) (string, []*record) {
	t.Helper()
	p := filepath.Join(t.TempDir(), storeFile)
	w, err := newStoreWriter(p)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record
	for i := 0; i < n; i++ {
		r := &record{Meta: Meta{Path: fmt.Sprintf("docs/p%d.md", i/7), Anchor: fmt.Sprintf("a%d", i), HeadingPath: []string{"T", "h"}, Tokens: i},
			Text: fmt.Sprintf("## Section %d\n\n%s", i, strings.Repeat("words of text ", i%300))}
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
			p, recs := writeStore(t, n)
			s, err := openStore(p)
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			if n == 5000 && len(s.table) < 10 {
				t.Errorf("%d blocks, want many for %d records", len(s.table), n)
			}
			// Backwards, to defeat any sequential luck in the block cache.
			for i := n - 1; i >= 0; i-- {
				got, err := s.get(uint32(i))
				if err != nil {
					t.Fatal(err)
				}
				if got.Text != recs[i].Text || got.Anchor != recs[i].Anchor || got.Tokens != i {
					t.Fatalf("record %d = %+v, want %+v", i, got.Meta, recs[i].Meta)
				}
			}
			if _, err := s.get(uint32(n)); !errors.Is(err, ErrCorruptStore) {
				t.Errorf("get past the end: %v, want ErrCorruptStore", err)
			}
		})
	}
}

func TestStoreDamage(t *testing.T) {
	p, _ := writeStore(t, 2000)
	good, _ := os.ReadFile(p)
	tests := map[string]func([]byte) []byte{
		"truncated":     func(b []byte) []byte { return b[:len(b)/2] },
		"empty":         func(b []byte) []byte { return nil },
		"bad magic":     func(b []byte) []byte { b[0] ^= 0xff; return b },
		"bad trailer":   func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b },
		"table garbage": func(b []byte) []byte { b[len(b)-trailerSize-5] ^= 0xff; return b },
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
			s, err := openStore(q)
			if err != nil {
				return // refused at open: fine
			}
			defer s.close()
			for i := uint32(0); i < 2000; i += 97 {
				if _, err := s.get(i); err != nil {
					return // refused at read: fine
				}
			}
			t.Error("damaged store read without an error")
		})
	}
}
