package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
)

// TestBlugeInternalsPinned fails when go.mod moves bluge, ice or the
// segment API away from the releases segment.go's type assertions and
// norm decoding were checked against. Read the new releases' source for
// each dependency segment.go's doc comment lists (the snapshot's Segments
// method, the segment snapshot's Segment method, the default segment
// format and its postings iterator, the norm encoding), run
// TestRankerMatchesBluge, then update segment.go's comment and the
// versions here. (A test binary's build information lists no
// dependencies, so go.mod is read.)
func TestBlugeInternalsPinned(t *testing.T) {
	checked := map[string]string{
		"github.com/blugelabs/bluge":             "v0.2.2",
		"github.com/blugelabs/ice":               "v1.0.0",
		"github.com/blugelabs/bluge_segment_api": "v0.2.0",
	}
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require"))
		if len(f) < 2 {
			continue
		}
		want, ok := checked[f[0]]
		if !ok {
			continue
		}
		found[f[0]] = true
		if f[1] != want {
			t.Errorf("go.mod requires %s %s, segment.go was checked against %s: re-check it (see its doc comment), then update it and this test", f[0], f[1], want)
		}
	}
	for mod := range checked {
		if !found[mod] {
			t.Errorf("go.mod does not require %s: segment.go was checked against it", mod)
		}
	}
}

// TestOpenUnrankable checks that Open refuses, with ErrUnrankable and a
// reason, an index whose segment the ranker cannot read, rather than
// serving it some other way.
func TestOpenUnrankable(t *testing.T) {
	entries := testEntries()
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		reason string
	}{
		{"a second segment", func(t *testing.T, dir string) {
			w := openWriter(t, dir)
			e := entries[0]
			if err := w.Insert(document(len(entries), &e, Kinds(e.Section), writeAnalyzer())); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}, "2 segments"},
		{"a deleted section", func(t *testing.T, dir string) {
			w := openWriter(t, dir)
			if err := w.Delete(bluge.Identifier("0")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}, "1 sections deleted"},
		{"another segment format", func(t *testing.T, dir string) {
			// The same sections, in ice's version 2 format.
			names, err := filepath.Glob(filepath.Join(dir, "*"))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range names {
				if filepath.Base(name) != storeFile {
					if err := os.Remove(name); err != nil {
						t.Fatal(err)
					}
				}
			}
			w, err := bluge.OpenOfflineWriter(config(dir, false).WithSegmentVersion(2), batchSize, 10)
			if err != nil {
				t.Fatal(err)
			}
			for i := range entries {
				if err := w.Insert(document(i, &entries[i], Kinds(entries[i].Section), writeAnalyzer())); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}, "segment format ice 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeIndex(t, entries)
			tt.change(t, dir)
			r, err := Open(dir)
			if err == nil {
				r.Close()
				t.Fatal("Open succeeded, want ErrUnrankable")
			}
			if !errors.Is(err, ErrUnrankable) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("Open: error %q, want ErrUnrankable saying %q", err, tt.reason)
			}
		})
	}
}

// openWriter opens bluge's online writer on the index in dir, to change it
// as Write never does.
func openWriter(t *testing.T, dir string) *bluge.Writer {
	t.Helper()
	w, err := bluge.OpenWriter(config(dir, false))
	if err != nil {
		t.Fatal(err)
	}
	return w
}
