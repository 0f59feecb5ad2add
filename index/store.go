package index

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
)

// The section store, sections.bin, keeps every section's metadata and text
// beside the bluge index, in record order (the order Write was given, which
// is document order), compressed in blocks of about storeBlockSize bytes so
// one section is read by inflating one block. bluge's own stored fields
// compress markdown poorly and copy it through every segment merge.
//
//	magic | block... | table: (offset u64, length u32, first record u32) per block |
//	trailer: table offset u64, blocks u32, records u32, trailerMagic
//
// Integers are little-endian; a block is DEFLATE of records, each a uvarint
// length and the JSON of a record.
const (
	storeFile      = "sections.bin"
	storeMagic     = "codex7-sections\n"
	trailerMagic   = "C7S1"
	storeBlockSize = 64 << 10
	trailerSize    = 8 + 4 + 4 + len(trailerMagic)
	tableEntrySize = 8 + 4 + 4
	blockCacheSize = 64
)

// ErrCorruptStore means sections.bin is damaged.
var ErrCorruptStore = errors.New("corrupt section store")

// record is one section in the store.
type record struct {
	Meta
	Text string `json:"text"`
}

type blockEntry struct {
	offset uint64
	length uint32
	first  uint32
}

// storeWriter writes sections.bin sequentially.
type storeWriter struct {
	f       *os.File
	w       *bufio.Writer
	off     uint64
	raw     bytes.Buffer
	zbuf    bytes.Buffer
	zw      *flate.Writer
	first   uint32
	records uint32
	table   []blockEntry
}

func newStoreWriter(path string) (*storeWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	s := &storeWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}
	s.zw, _ = flate.NewWriter(&s.zbuf, flate.DefaultCompression) // level is valid: cannot fail
	if _, err := s.w.WriteString(storeMagic); err != nil {
		f.Close()
		return nil, err
	}
	s.off = uint64(len(storeMagic))
	return s, nil
}

func (s *storeWriter) add(r *record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.raw.Write(binary.AppendUvarint(nil, uint64(len(data))))
	s.raw.Write(data)
	s.records++
	if s.raw.Len() >= storeBlockSize {
		return s.flush()
	}
	return nil
}

func (s *storeWriter) flush() error {
	if s.raw.Len() == 0 {
		return nil
	}
	s.zbuf.Reset()
	s.zw.Reset(&s.zbuf)
	if _, err := s.zw.Write(s.raw.Bytes()); err != nil {
		return err
	}
	if err := s.zw.Close(); err != nil {
		return err
	}
	if _, err := s.w.Write(s.zbuf.Bytes()); err != nil {
		return err
	}
	s.table = append(s.table, blockEntry{offset: s.off, length: uint32(s.zbuf.Len()), first: s.first})
	s.off += uint64(s.zbuf.Len())
	s.first = s.records
	s.raw.Reset()
	return nil
}

func (s *storeWriter) close() error {
	err := s.flush()
	tableOff := s.off
	var buf []byte
	for _, b := range s.table {
		buf = binary.LittleEndian.AppendUint64(buf, b.offset)
		buf = binary.LittleEndian.AppendUint32(buf, b.length)
		buf = binary.LittleEndian.AppendUint32(buf, b.first)
	}
	buf = binary.LittleEndian.AppendUint64(buf, tableOff)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s.table)))
	buf = binary.LittleEndian.AppendUint32(buf, s.records)
	buf = append(buf, trailerMagic...)
	if err == nil {
		_, err = s.w.Write(buf)
	}
	if err == nil {
		err = s.w.Flush()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// storeReader reads sections.bin; it is safe for concurrent use and keeps a
// few inflated blocks cached.
type storeReader struct {
	f       *os.File
	table   []blockEntry
	records uint32

	mu    sync.Mutex
	cache map[int][][]byte // block → its records' JSON
	order []int            // cached blocks, oldest first
}

func openStore(path string) (*storeReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s, err := readStoreTable(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func readStoreTable(f *os.File) (*storeReader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < int64(len(storeMagic)+trailerSize) {
		return nil, ErrCorruptStore
	}
	head := make([]byte, len(storeMagic))
	trailer := make([]byte, trailerSize)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if _, err := f.ReadAt(trailer, size-int64(trailerSize)); err != nil {
		return nil, err
	}
	if string(head) != storeMagic || string(trailer[16:]) != trailerMagic {
		return nil, ErrCorruptStore
	}
	tableOff := binary.LittleEndian.Uint64(trailer)
	blocks := binary.LittleEndian.Uint32(trailer[8:])
	records := binary.LittleEndian.Uint32(trailer[12:])
	if tableOff+uint64(blocks)*tableEntrySize != uint64(size)-uint64(trailerSize) {
		return nil, ErrCorruptStore
	}
	raw := make([]byte, int(blocks)*tableEntrySize)
	if _, err := f.ReadAt(raw, int64(tableOff)); err != nil {
		return nil, err
	}
	s := &storeReader{f: f, records: records, cache: map[int][][]byte{}}
	for i := 0; i < int(blocks); i++ {
		e := raw[i*tableEntrySize:]
		b := blockEntry{offset: binary.LittleEndian.Uint64(e), length: binary.LittleEndian.Uint32(e[8:]), first: binary.LittleEndian.Uint32(e[12:])}
		if b.offset+uint64(b.length) > tableOff || b.first > records || (i > 0 && b.first < s.table[i-1].first) {
			return nil, ErrCorruptStore
		}
		s.table = append(s.table, b)
	}
	return s, nil
}

func (s *storeReader) close() error { return s.f.Close() }

// get returns record n.
func (s *storeReader) get(n uint32) (*record, error) {
	if n >= s.records {
		return nil, fmt.Errorf("%w: record %d of %d", ErrCorruptStore, n, s.records)
	}
	b := sort.Search(len(s.table), func(i int) bool { return s.table[i].first > n }) - 1
	recs, err := s.block(b)
	if err != nil {
		return nil, err
	}
	i := int(n - s.table[b].first)
	if i >= len(recs) {
		return nil, fmt.Errorf("%w: record %d missing from block %d", ErrCorruptStore, n, b)
	}
	var r record
	if err := json.Unmarshal(recs[i], &r); err != nil {
		return nil, fmt.Errorf("%w: record %d: %v", ErrCorruptStore, n, err)
	}
	return &r, nil
}

func (s *storeReader) block(b int) ([][]byte, error) {
	s.mu.Lock()
	if recs, ok := s.cache[b]; ok {
		s.mu.Unlock()
		return recs, nil
	}
	s.mu.Unlock()
	e := s.table[b]
	z := make([]byte, e.length)
	if _, err := s.f.ReadAt(z, int64(e.offset)); err != nil {
		return nil, fmt.Errorf("%w: block %d: %v", ErrCorruptStore, b, err)
	}
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
	if err != nil {
		return nil, fmt.Errorf("%w: block %d: %v", ErrCorruptStore, b, err)
	}
	var recs [][]byte
	for len(raw) > 0 {
		n, k := binary.Uvarint(raw)
		if k <= 0 || uint64(len(raw)-k) < n {
			return nil, fmt.Errorf("%w: block %d: bad record length", ErrCorruptStore, b)
		}
		recs = append(recs, raw[k:k+int(n)])
		raw = raw[k+int(n):]
	}
	s.mu.Lock()
	if _, ok := s.cache[b]; !ok {
		s.cache[b] = recs
		s.order = append(s.order, b)
		if len(s.order) > blockCacheSize {
			delete(s.cache, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.mu.Unlock()
	return recs, nil
}
