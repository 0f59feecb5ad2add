package index

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/klauspost/compress/s2"
)

// allocated returns the bytes allocated by the process so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// deflateBytes compresses data, quickly.
func deflateBytes(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var z bytes.Buffer
	zw, err := flate.NewWriter(&z, flate.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	zw.Write(data)
	zw.Close()
	return z.Bytes()
}

// textBlock compresses data as a text block of a store whose dictionary
// is too short to be one (under 16 bytes).
func textBlock(data []byte) []byte { return s2.Encode(nil, data) }

// assembleStore lays out a store file around already compressed blocks
// (the dictionary, then text) and a meta stream, which it compresses;
// records is the count the trailer claims.
func assembleStore(tb testing.TB, blocks [][]byte, meta []byte, records uint32) []byte {
	tb.Helper()
	file := []byte(storeMagic)
	var table []byte
	le := binary.LittleEndian
	for _, b := range blocks {
		table = le.AppendUint64(table, uint64(len(file)))
		table = le.AppendUint32(table, uint32(len(b)))
		file = append(file, b...)
	}
	metaOff := uint64(len(file))
	z := deflateBytes(tb, meta)
	file = append(file, z...)
	tableOff := uint64(len(file))
	file = append(file, table...)
	file = le.AppendUint64(file, metaOff)
	file = le.AppendUint32(file, uint32(len(z)))
	file = le.AppendUint64(file, tableOff)
	file = le.AppendUint32(file, uint32(len(blocks)))
	file = le.AppendUint32(file, records)
	return append(file, trailerMagic...)
}

// noDictionary is the blocks of a store with an empty dictionary and no
// text.
func noDictionary(tb testing.TB) [][]byte { return [][]byte{deflateBytes(tb, nil)} }

// oneRecordMeta is the meta stream of one record whose text is the first
// length bytes of block 1, the first after the dictionary.
func oneRecordMeta(length uint64) []byte {
	meta := binary.AppendUvarint(nil, 1) // one string
	meta = binary.AppendUvarint(meta, 1)
	meta = append(meta, 'p')
	meta = binary.AppendUvarint(meta, 1) // one record
	meta = append(meta, 0, 0, 0, 0)      // path, anchor, heading, title
	meta = append(meta, 0)               // heading path
	meta = append(meta, 0, 0, 0, 0, 0)   // level, line, part, parts, tokens
	meta = append(meta, 0, 0, 0)         // topics, kinds, langs
	meta = append(meta, 0, 0)            // source, within
	meta = append(meta, 1, 0)            // block, offset
	meta = binary.AppendUvarint(meta, length)
	return append(meta, make([]byte, 16)...) // hashes
}

// TestStoreHostile opens stores made to cost a reader time or memory:
// each must be refused with ErrCorruptStore, after allocating no more
// than the bound.
func TestStoreHostile(t *testing.T) {
	good := func(t *testing.T) []byte {
		p, _ := writeStore(t, 3, false)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tests := []struct {
		name  string
		store func(t *testing.T) []byte
		// read reads every record's text once the store opens.
		read  bool
		limit uint64 // bytes allocated at most
	}{
		{"meta offset and length wrap around", func(t *testing.T) []byte {
			data := good(t)
			tr := data[len(data)-trailerSize:]
			le := binary.LittleEndian
			metaLen := uint32(0xFFFFFFF0)
			le.PutUint64(tr[0:], le.Uint64(tr[12:])-uint64(metaLen)) // metaOff+metaLen == tableOff, mod 2^64
			le.PutUint32(tr[8:], metaLen)
			return data
		}, false, 1 << 20},
		{"more records than the metadata can hold", func(t *testing.T) []byte {
			const records = 1 << 20 // a byte each: 32 are needed
			meta := binary.AppendUvarint(nil, 0)
			meta = binary.AppendUvarint(meta, records)
			return assembleStore(t, noDictionary(t), append(meta, make([]byte, records)...), records)
		}, false, 8 << 20},
		{"a string count past the metadata", func(t *testing.T) []byte {
			const strs = 4 << 20
			meta := binary.AppendUvarint(nil, strs+1)
			return assembleStore(t, noDictionary(t), append(meta, make([]byte, strs)...), 0)
		}, false, 32 << 20},
		// The largest real meta stream (tldr's) inflates to 2.8 MB. The
		// limits leave room for the race detector, which makes the same
		// work allocate about twice as much.
		{"metadata inflating to 256 MiB", func(t *testing.T) []byte {
			return assembleStore(t, noDictionary(t), make([]byte, 256<<20), 0)
		}, false, 192 << 20},
		// A real block holds about 4 KiB of sections, or one section of a
		// source file of at most 4 MiB.
		// The block says what it decodes to: it is refused before any of
		// it is decoded.
		{"a text block decoding to 64 MiB", func(t *testing.T) []byte {
			bomb := textBlock(make([]byte, 64<<20))
			return assembleStore(t, [][]byte{deflateBytes(t, []byte("dictionary")), bomb}, oneRecordMeta(1), 1)
		}, true, 1 << 20},
		{"a text block saying it decodes to 4 GiB", func(t *testing.T) []byte {
			bomb := append(binary.AppendUvarint(nil, 4<<30), 0, 0, 0)
			return assembleStore(t, [][]byte{deflateBytes(t, []byte("dictionary")), bomb}, oneRecordMeta(1), 1)
		}, true, 1 << 20},
		// A dictionary is at most 32 KiB, read as the store opens.
		{"a dictionary inflating to 64 MiB", func(t *testing.T) []byte {
			bomb := deflateBytes(t, make([]byte, 64<<20))
			return assembleStore(t, [][]byte{bomb, textBlock([]byte("text"))}, oneRecordMeta(1), 1)
		}, false, 1 << 20},
		{"no dictionary", func(t *testing.T) []byte {
			return assembleStore(t, nil, oneRecordMeta(1), 1)
		}, false, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), storeFile)
			if err := os.WriteFile(p, tt.store(t), 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			before := allocated()
			s, err := openStore(p, NewCache(0), false)
			if err == nil {
				defer s.close()
				if !tt.read {
					t.Fatal("opened")
				}
				for i := range s.recs {
					if _, err = s.text(uint32(i)); err != nil {
						break
					}
				}
			}
			used := allocated() - before
			if !errors.Is(err, ErrCorruptStore) {
				t.Errorf("error %v, want ErrCorruptStore", err)
			}
			if used > tt.limit {
				t.Errorf("allocated %d MiB, want at most %d MiB", used>>20, tt.limit>>20)
			}
			t.Logf("%v; allocated %d KiB", err, used>>10)
		})
	}
}

// inflatedAtMost bounds what n bytes of DEFLATE can inflate to (the
// format's best ratio is 1032 to 1), capped at limit.
func inflatedAtMost(n int, limit uint64) uint64 {
	return min(1100*uint64(n), limit)
}

// FuzzStore opens arbitrary bytes as a section store, then reads every
// record: the reader must never panic, every error must wrap
// ErrCorruptStore, and it may allocate only a few times what the input
// can inflate to.
func FuzzStore(f *testing.F) {
	for _, n := range []int{0, 1, 40} {
		p, _ := writeStore(f, n, false)
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	p, _ := writeStore(f, 12, true)
	if data, err := os.ReadFile(p); err == nil {
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, storeFile)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before := allocated()
		s, err := openStore(p, NewCache(1<<20), false)
		if used, limit := allocated()-before, 8*inflatedAtMost(len(data), maxMetaBytes)+1<<20; used > limit {
			t.Fatalf("opening %d bytes allocated %d, more than %d", len(data), used, limit)
		}
		if err != nil {
			if !errors.Is(err, ErrCorruptStore) {
				t.Fatalf("error %v does not wrap ErrCorruptStore", err)
			}
			return
		}
		defer s.close()
		readAll(t, s)
	})
}

// FuzzStoreMeta decodes arbitrary bytes as the inflated meta stream of a
// store with real text blocks, reaching the decoder past DEFLATE.
func FuzzStoreMeta(f *testing.F) {
	p, _ := writeStore(f, 40, false)
	src, err := openStore(p, NewCache(0), false)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { src.close() })
	data, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	tr := data[len(data)-trailerSize:]
	le := binary.LittleEndian
	metaOff, metaLen, records := le.Uint64(tr), le.Uint32(tr[8:]), le.Uint32(tr[24:])
	meta, err := inflate(data[metaOff:metaOff+uint64(metaLen)], maxMetaBytes, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(meta, records)
	f.Add(oneRecordMeta(5), uint32(1))
	f.Fuzz(func(t *testing.T, meta []byte, records uint32) {
		s := &storeReader{f: src.f, blocks: src.blocks, cache: NewCache(1 << 20)}
		before := allocated()
		err := s.decodeMeta(meta, records)
		if used, limit := allocated()-before, 8*uint64(len(meta))+1<<20; used > limit {
			t.Fatalf("decoding %d bytes allocated %d, more than %d", len(meta), used, limit)
		}
		if err != nil {
			if !errors.Is(err, ErrCorruptStore) {
				t.Fatalf("error %v does not wrap ErrCorruptStore", err)
			}
			return
		}
		readAll(t, s)
		s.cache.drop(s)
	})
}

// readAll reads every record of s: errors must
// wrap ErrCorruptStore, and no record may cost more than decoding a
// block of it. A text block says what it decodes to, and one saying more
// than maxBlockBytes is refused before it is decoded: that, not the
// block's size, bounds what it costs.
func readAll(t *testing.T, s *storeReader) {
	t.Helper()
	paths := map[string]bool{}
	before := allocated()
	for i := range s.recs {
		m, err := s.meta(uint32(i))
		if err != nil {
			t.Fatalf("meta %d: %v", i, err)
		}
		paths[m.Path] = true
		if _, err := s.text(uint32(i)); err != nil && !errors.Is(err, ErrCorruptStore) {
			t.Fatalf("text %d: error %v does not wrap ErrCorruptStore", i, err)
		}
	}
	for p := range paths {
		s.recordsIn(p)
	}
	perRecord := 3*uint64(maxBlockBytes) + 64<<10
	if used, limit := allocated()-before, uint64(len(s.recs)+1)*perRecord; used > limit {
		t.Fatalf("reading %d records allocated %d, more than %d", len(s.recs), used, limit)
	}
}

// TestStoreCorruptBlockOnce checks that a damaged text block that says it
// decodes to the most a block may costs that allocation once: later reads
// of it fail at once.
func TestStoreCorruptBlockOnce(t *testing.T) {
	bad := append(binary.AppendUvarint(nil, maxBlockBytes), 0xff, 0xff, 0xff, 0xff)
	p := filepath.Join(t.TempDir(), storeFile)
	if err := os.WriteFile(p, assembleStore(t, [][]byte{deflateBytes(t, []byte("dictionary")), bad}, oneRecordMeta(1), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := openStore(p, NewCache(0), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for i, limit := range []uint64{maxBlockBytes + 1<<20, 64 << 10, 64 << 10} {
		runtime.GC()
		before := allocated()
		_, err := s.text(0)
		if used := allocated() - before; !errors.Is(err, ErrCorruptStore) || used > limit {
			t.Errorf("read %d: error %v, allocated %d KiB; want ErrCorruptStore within %d KiB", i+1, err, used>>10, limit>>10)
		}
	}
}
