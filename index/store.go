package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/s2"
)

// The section store, sections.bin, keeps every section's metadata and text
// beside the bluge index, in record order (the order Write was given, which
// is document order). Metadata is one DEFLATE stream decoded into memory
// when the store opens (a few bytes a section, strings interned), so ranking
// and packing never touch the disk; text is S2 blocks (klauspost/compress's
// extension of Snappy) of about textBlockSize bytes, decoded only for the
// sections an answer returns.
//
// Block 0 is not text but the dictionary of the others: up to 32 KiB
// sampled from the sections' text (see textDictionary), DEFLATE-compressed
// and inflated when the store opens. An answer returns about ten sections,
// each from its own block, so decoding them was a large part of an
// answer's CPU: small blocks decode little beyond the section wanted, and
// the dictionary gives them back much of the compression that larger
// blocks had from their own earlier text. S2 with the dictionary decodes a
// block 2.5 to 3 times as fast as DEFLATE with it (whose every block
// builds its Huffman tables and loads the dictionary anew), for blocks a
// quarter larger. A dictionary under 16 bytes (a tiny library) is not used.
//
//	magic | dictionary block | text block... | meta stream | table: (offset u64, length u32) per block |
//	trailer: meta offset u64, meta length u32, table offset u64, blocks u32, records u32, trailerMagic
//
// Integers in the table and trailer are little-endian. The meta stream
// inflates to: uvarint string count, then each string as a uvarint length
// and bytes; uvarint record count, then each record as uvarints: path,
// anchor, heading, title (string ids), heading path (count, ids), level,
// line, part, parts, tokens, topics (count, ids), kinds (bit 0 info, bit 1
// code), langs (count, ids), source (string id), within (string id), text block, offset and
// length in the decoded block; then its text's exact and similarity hashes, 8 bytes each.
const (
	storeFile     = "sections.bin"
	storeMagic    = "codex7-sections6\n"
	trailerMagic  = "C7S6"
	textBlockSize = 4 << 10
	// maxDictBytes bounds the dictionary, read whole when the store
	// opens (S2 takes up to 64 KiB).
	maxDictBytes = 32 << 10
	trailerSize  = 8 + 4 + 8 + 4 + 4 + len(trailerMagic)
	tableEntry   = 8 + 4
)

// Bounds on what a reader decodes, so that a damaged or hostile file
// cannot make it allocate without limit. A reader allocates at most a few
// times what it decodes: every string, list entry and record it keeps
// takes at least one, one and minRecordBytes bytes of the meta stream.
const (
	// maxMetaBytes bounds the inflated meta stream. tldr, the largest
	// corpus (38,000 sections), inflates to 2.8 MB: this is ten times that
	// with room to spare.
	maxMetaBytes = 32 << 20
	// maxBlockBytes bounds one decoded text block: about textBlockSize of
	// sections, plus at most one larger section, from a source file of at
	// most 4 MiB (larger ones are never indexed).
	maxBlockBytes = 8 << 20
	// minRecordBytes is the smallest encoding of a record in the meta
	// stream: 6 string ids, 3 list counts, level, line, part, parts,
	// tokens, kinds, block, offset and length of a byte each, and the two
	// 8-byte hashes.
	minRecordBytes = 6 + 3 + 5 + 1 + 3 + 16
)

// ErrCorruptStore means sections.bin is damaged.
var ErrCorruptStore = errors.New("corrupt section store")

// record is one section as the writer receives it.
type record struct {
	Meta
	Text string
}

// metaRec is one section's metadata in memory: string ids (see
// storeReader.str) and spans of storeReader.lists.
type metaRec struct {
	path, anchor, heading, title uint32
	source                       uint32
	headingPath, topics, langs   span
	line, tokens                 uint32
	part, parts                  uint16
	level, kinds                 uint8
	block, off, length           uint32
	hash, sim                    uint64
}

// span is a slice of storeReader.lists.
type span struct{ start, n uint32 }

const (
	kindInfoBit = 1 << iota
	kindCodeBit
)

// storeReader reads sections.bin. Metadata is in memory; text blocks are
// read from the file and kept in the shared cache. It is safe for
// concurrent use.
type storeReader struct {
	f      io.ReaderAt // the file, or its bytes (see releaseFiles)
	closer io.Closer
	blocks []blockEntry
	dict   []byte   // block 0 inflated: the text blocks' dictionary
	s2dict *s2.Dict // dict for decoding; nil when too short to be one
	// bad holds the text blocks that failed to decode (uint32 block ->
	// error), so that a damaged block costs its allocation once, not at
	// every read: a block says what it decodes to (up to maxBlockBytes)
	// before it can be checked.
	bad sync.Map
	// The interned strings, one after the other in strData: string i is
	// strData[strEnd[i-1]:strEnd[i]] (from 0 for the first). Offsets cost
	// 4 bytes a string where string headers would cost 16.
	strData string
	strEnd  []uint32
	lists   []uint32
	recs    []metaRec
	// within maps the records of the few sections that are entries of
	// another (Meta.Within: Sphinx's object descriptions) to that string's
	// id. A field of metaRec would cost every record 8 bytes.
	within map[uint32]uint32
	cache  *Cache
}

type blockEntry struct {
	offset uint64
	length uint32
}

// openStore opens the store at path: read in place, or into memory when
// release is set (see releaseFiles), keeping no handle on the file.
func openStore(path string, cache *Cache, release bool) (*storeReader, error) {
	if release {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		s, err := readStore(bytes.NewReader(b), int64(len(b)), cache)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s.closer = io.NopCloser(nil)
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w: %w", path, ErrCorruptStore, err)
	}
	s, err := readStore(f, fi.Size(), cache)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.closer = f
	return s, nil
}

// readStore decodes the store in f, of size bytes. Every error wraps
// ErrCorruptStore; one that came from reading the file also wraps the
// operating system's error, so that callers can tell a failing disk from
// a damaged file.
func readStore(f io.ReaderAt, size int64, cache *Cache) (*storeReader, error) {
	var err error
	if size < int64(len(storeMagic)+trailerSize) {
		return nil, fmt.Errorf("%w: too short", ErrCorruptStore)
	}
	head := make([]byte, len(storeMagic))
	trailer := make([]byte, trailerSize)
	if err := readAt(f, head, 0, "magic"); err != nil {
		return nil, err
	}
	if err := readAt(f, trailer, uint64(size)-uint64(trailerSize), "trailer"); err != nil {
		return nil, err
	}
	if old, ok := oldStore(string(head)); ok {
		return nil, fmt.Errorf("%w: %s: rebuild the artifacts with this indexer", ErrCorruptStore, old)
	}
	if string(head) != storeMagic || string(trailer[trailerSize-len(trailerMagic):]) != trailerMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorruptStore)
	}
	le := binary.LittleEndian
	metaOff, metaLen := le.Uint64(trailer), le.Uint32(trailer[8:])
	tableOff, nblocks, records := le.Uint64(trailer[12:]), le.Uint32(trailer[20:]), le.Uint32(trailer[24:])
	end := uint64(size) - uint64(trailerSize)
	// Subtractions only, of smaller from larger: a sum could wrap.
	if tableOff > end || uint64(nblocks)*tableEntry != end-tableOff ||
		metaOff < uint64(len(storeMagic)) || metaOff > tableOff || tableOff-metaOff != uint64(metaLen) {
		return nil, fmt.Errorf("%w: bad trailer", ErrCorruptStore)
	}
	// Both reads below are within the file: their sizes are bounded by it.
	raw := make([]byte, int(nblocks)*tableEntry)
	if err := readAt(f, raw, tableOff, "block table"); err != nil {
		return nil, err
	}
	s := &storeReader{f: f, cache: cache, blocks: make([]blockEntry, 0, nblocks)}
	for i := 0; i < int(nblocks); i++ {
		b := blockEntry{offset: le.Uint64(raw[i*tableEntry:]), length: le.Uint32(raw[i*tableEntry+8:])}
		if b.offset < uint64(len(storeMagic)) || b.offset > metaOff || metaOff-b.offset < uint64(b.length) {
			return nil, fmt.Errorf("%w: bad block table", ErrCorruptStore)
		}
		s.blocks = append(s.blocks, b)
	}
	if nblocks == 0 {
		return nil, fmt.Errorf("%w: no dictionary block", ErrCorruptStore)
	}
	z := make([]byte, s.blocks[0].length)
	if err := readAt(f, z, s.blocks[0].offset, "dictionary"); err != nil {
		return nil, err
	}
	if s.dict, err = inflate(z, maxDictBytes, nil); err != nil {
		return nil, fmt.Errorf("%w: dictionary: %w", ErrCorruptStore, err)
	}
	s.s2dict = s2.MakeDict(s.dict, nil)
	z = make([]byte, metaLen)
	if err := readAt(f, z, metaOff, "metadata"); err != nil {
		return nil, err
	}
	meta, err := inflate(z, maxMetaBytes, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", ErrCorruptStore, err)
	}
	if err := s.decodeMeta(meta, records); err != nil {
		return nil, err
	}
	return s, nil
}

// oldStore describes an earlier version of sections.bin by its magic.
func oldStore(magic string) (string, bool) {
	switch magic {
	case "codex7-sections2\n":
		return "sections.bin version 2 (artifact format 3, 16 KiB DEFLATE blocks without a dictionary)", true
	case "codex7-sections3\n":
		return "sections.bin version 3 (artifact formats 4 and 5, DEFLATE text blocks)", true
	case "codex7-sections4\n":
		return "sections.bin version 4 (artifact formats 6 and 7, without sections' source files)", true
	case "codex7-sections5\n":
		return "sections.bin version 5 (artifact format 8, without the sections that object descriptions are entries of)", true
	}
	return "", false
}

// readAt fills buf from f at off, which the caller checked is within the
// file; what names the part read, for the error.
func readAt(f io.ReaderAt, buf []byte, off uint64, what string) error {
	if _, err := f.ReadAt(buf, int64(off)); err != nil {
		return fmt.Errorf("%w: read %s: %w", ErrCorruptStore, what, err)
	}
	return nil
}

// errTooLarge means a block or stream decodes past its bound.
var errTooLarge = errors.New("decodes past its bound")

// inflate decompresses the DEFLATE stream z, compressed with the preset
// dictionary dict (none when nil), refusing to produce more than limit
// bytes.
func inflate(z []byte, limit int64, dict []byte) ([]byte, error) {
	r := inflaters.Get().(*inflater)
	defer inflaters.Put(r)
	return r.inflate(z, limit, dict)
}

// inflater is a reusable DEFLATE reader, for the dictionary and metadata,
// with a buffer for reading text blocks: making one allocates tens of
// kilobytes of tables. The pool of them is the package's one global,
// stateless between uses. It is klauspost/compress's reader, faster than
// compress/flate's; the writer's compress/flate output is the same format.
type inflater struct {
	src bytes.Reader
	fr  io.ReadCloser
	z   []byte // a text block read from the file, kept for the next
}

// maxPooledBlock bounds the compressed block an inflater keeps its buffer
// for: a few times a real block's size.
const maxPooledBlock = 64 << 10

// inflate is the package's inflate, with r.
func (r *inflater) inflate(z []byte, limit int64, dict []byte) ([]byte, error) {
	r.src.Reset(z)
	defer r.src.Reset(nil) // keep no compressed block alive in the pool
	if err := r.fr.(kflate.Resetter).Reset(&r.src, dict); err != nil {
		return nil, err
	}
	// DEFLATE rarely shrinks markdown more than fourfold: start there, and
	// double as needed up to the limit (and a byte, to see it passed).
	out := make([]byte, 0, min(int64(4*len(z))+512, limit+1))
	for {
		if len(out) == cap(out) {
			if int64(len(out)) > limit {
				break
			}
			out = slices.Grow(out, int(min(int64(cap(out)), limit+1-int64(len(out)))))
		}
		n, err := r.fr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("%w of %d bytes", errTooLarge, limit)
	}
	return out, nil
}

// readBlock reads block e of f into r's buffer, which is valid until r's
// next use.
func (r *inflater) readBlock(f io.ReaderAt, e blockEntry) ([]byte, error) {
	if cap(r.z) < int(e.length) {
		r.z = make([]byte, e.length)
	}
	z := r.z[:e.length]
	if len(z) > maxPooledBlock {
		r.z = nil
	}
	_, err := f.ReadAt(z, int64(e.offset))
	return z, err
}

var inflaters = sync.Pool{New: func() any {
	r := &inflater{}
	r.fr = kflate.NewReader(&r.src)
	return r
}}

// metaDecoder reads the meta stream, remembering the first error.
type metaDecoder struct {
	b   []byte
	err error
}

func (d *metaDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: truncated metadata", ErrCorruptStore)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *metaDecoder) u32(limit uint64) uint32 {
	v := d.uvarint()
	if d.err == nil && v >= limit {
		d.err = fmt.Errorf("%w: value %d out of range", ErrCorruptStore, v)
		return 0
	}
	return uint32(v)
}

func (d *metaDecoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.err = fmt.Errorf("%w: truncated metadata", ErrCorruptStore)
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (s *storeReader) decodeMeta(meta []byte, records uint32) error {
	if uint64(records)*minRecordBytes > uint64(len(meta)) {
		return fmt.Errorf("%w: %d records cannot fit %d bytes of metadata", ErrCorruptStore, records, len(meta))
	}
	d := &metaDecoder{b: meta}
	// Every string takes at least its length's byte.
	nstr := d.uvarint()
	if nstr > uint64(len(d.b)) {
		return fmt.Errorf("%w: string count", ErrCorruptStore)
	}
	s.strEnd = make([]uint32, 0, nstr)
	var data strings.Builder
	for range nstr {
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			return fmt.Errorf("%w: string length", ErrCorruptStore)
		}
		data.Write(d.bytes(int(n)))
		s.strEnd = append(s.strEnd, uint32(data.Len()))
	}
	if d.err != nil {
		return d.err
	}
	s.strData = data.String()
	if n := d.uvarint(); d.err == nil && n != uint64(records) {
		return fmt.Errorf("%w: %d records in metadata, %d in trailer", ErrCorruptStore, n, records)
	}
	if uint64(records)*minRecordBytes > uint64(len(d.b)) {
		return fmt.Errorf("%w: record count", ErrCorruptStore)
	}
	nstrs := uint64(len(s.strEnd))
	list := func() span {
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			d.err = fmt.Errorf("%w: list length", ErrCorruptStore)
			return span{}
		}
		sp := span{start: uint32(len(s.lists)), n: uint32(n)}
		for range n {
			s.lists = append(s.lists, d.u32(nstrs))
		}
		return sp
	}
	s.recs = make([]metaRec, records)
	for i := range s.recs {
		r := &s.recs[i]
		r.path, r.anchor, r.heading, r.title = d.u32(nstrs), d.u32(nstrs), d.u32(nstrs), d.u32(nstrs)
		r.headingPath = list()
		r.level = uint8(d.u32(256))
		r.line = d.u32(1 << 32)
		r.part, r.parts = uint16(d.u32(1<<16)), uint16(d.u32(1<<16))
		r.tokens = d.u32(1 << 32)
		r.topics = list()
		if k := d.bytes(1); k != nil {
			r.kinds = k[0]
		}
		r.langs = list()
		r.source = d.u32(nstrs)
		if w := d.u32(nstrs); d.err == nil && s.str(w) != "" {
			if s.within == nil {
				s.within = map[uint32]uint32{}
			}
			s.within[uint32(i)] = w
		}
		// An empty text may name the block after the last (none was
		// flushed for it); text never reads it.
		r.block = d.u32(uint64(len(s.blocks)) + 1)
		r.off, r.length = d.u32(1<<32), d.u32(1<<32)
		if h := d.bytes(16); h != nil {
			r.hash, r.sim = binary.LittleEndian.Uint64(h), binary.LittleEndian.Uint64(h[8:])
		}
		if d.err != nil {
			return d.err
		}
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing metadata bytes", ErrCorruptStore, len(d.b))
	}
	return nil
}

func (s *storeReader) close() error {
	s.cache.drop(s)
	return s.closer.Close()
}

func (s *storeReader) strings(sp span) []string {
	if sp.n == 0 {
		return nil
	}
	out := make([]string, sp.n)
	for i, id := range s.lists[sp.start : sp.start+sp.n] {
		out[i] = s.str(id)
	}
	return out
}

// str returns interned string id (decodeMeta checked it is in range).
func (s *storeReader) str(id uint32) string {
	start := uint32(0)
	if id > 0 {
		start = s.strEnd[id-1]
	}
	return s.strData[start:s.strEnd[id]]
}

// place returns where record n's section is (its document, line and
// part) without the rest of its metadata: what tieOrder needs of the
// sections a search ranks past its limit.
func (s *storeReader) place(n uint32) (tiePlace, error) {
	if n >= uint32(len(s.recs)) {
		return tiePlace{}, fmt.Errorf("%w: record %d of %d", ErrCorruptStore, n, len(s.recs))
	}
	r := &s.recs[n]
	return tiePlace{page: s.str(r.path), line: int(r.line), part: int(r.part)}, nil
}

// meta returns record n's metadata. The caller owns the slices.
func (s *storeReader) meta(n uint32) (Meta, error) { return s.metaIn(n, nil) }

// metaIn is meta with the metadata's string lists appended to *buf, when
// buf is not nil, so that the hits of a search take one allocation for
// them rather than four each. Each list is capped: appending to one never
// writes into the next.
func (s *storeReader) metaIn(n uint32, buf *[]string) (Meta, error) {
	if n >= uint32(len(s.recs)) {
		return Meta{}, fmt.Errorf("%w: record %d of %d", ErrCorruptStore, n, len(s.recs))
	}
	r := &s.recs[n]
	list := func(sp span) []string {
		if buf == nil || sp.n == 0 {
			return s.strings(sp)
		}
		start := len(*buf)
		for _, id := range s.lists[sp.start : sp.start+sp.n] {
			*buf = append(*buf, s.str(id))
		}
		return (*buf)[start:len(*buf):len(*buf)]
	}
	m := Meta{
		Path: s.str(r.path), Anchor: s.str(r.anchor), Heading: s.str(r.heading), Title: s.str(r.title),
		HeadingPath: list(r.headingPath), Level: int(r.level), Line: int(r.line),
		Part: int(r.part), Parts: int(r.parts), Tokens: int(r.tokens),
		Topics: list(r.topics), Langs: list(r.langs), Source: s.str(r.source),
		Hash: r.hash, SimHash: r.sim,
	}
	if w, ok := s.within[n]; ok {
		m.Within = s.str(w)
	}
	var kinds [2]string
	k := 0
	if r.kinds&kindInfoBit != 0 {
		kinds[k] = KindInfo
		k++
	}
	if r.kinds&kindCodeBit != 0 {
		kinds[k] = KindCode
		k++
	}
	switch {
	case k == 0:
	case buf == nil:
		m.Kinds = append([]string(nil), kinds[:k]...)
	default:
		start := len(*buf)
		*buf = append(*buf, kinds[:k]...)
		m.Kinds = (*buf)[start:len(*buf):len(*buf)]
	}
	return m, nil
}

// text returns record n's text.
func (s *storeReader) text(n uint32) (string, error) {
	if n >= uint32(len(s.recs)) {
		return "", fmt.Errorf("%w: record %d of %d", ErrCorruptStore, n, len(s.recs))
	}
	r := &s.recs[n]
	if r.length == 0 {
		return "", nil
	}
	if r.block == 0 || int(r.block) >= len(s.blocks) {
		return "", fmt.Errorf("%w: record %d in block %d of %d (block 0 is the dictionary)", ErrCorruptStore, n, r.block, len(s.blocks))
	}
	block, err := s.block(r.block)
	if err != nil {
		return "", err
	}
	if uint64(r.off)+uint64(r.length) > uint64(len(block)) {
		return "", fmt.Errorf("%w: record %d outside block %d", ErrCorruptStore, n, r.block)
	}
	return string(block[r.off : r.off+r.length]), nil
}

func (s *storeReader) block(b uint32) ([]byte, error) {
	if data, ok := s.cache.get(s, b); ok {
		return data, nil
	}
	if err, ok := s.bad.Load(b); ok {
		return nil, err.(error)
	}
	r := inflaters.Get().(*inflater)
	defer inflaters.Put(r)
	z, err := r.readBlock(s.f, s.blocks[b])
	if err != nil {
		return nil, fmt.Errorf("%w: read block %d: %w", ErrCorruptStore, b, err)
	}
	data, err := s.decode(z)
	if err != nil {
		err = fmt.Errorf("%w: block %d: %w", ErrCorruptStore, b, err)
		s.bad.Store(b, err)
		return nil, err
	}
	s.cache.put(s, b, data)
	return data, nil
}

// decode decodes the text block z, refusing one that says it decodes to
// more than maxBlockBytes before allocating for it.
func (s *storeReader) decode(z []byte) ([]byte, error) {
	n, err := s2.DecodedLen(z)
	if err != nil {
		return nil, err
	}
	if n > maxBlockBytes {
		return nil, fmt.Errorf("%w of %d bytes", errTooLarge, maxBlockBytes)
	}
	if s.s2dict == nil {
		return s2.Decode(make([]byte, n), z)
	}
	return s.s2dict.Decode(make([]byte, n), z)
}

// recordsIn returns the record numbers of path's sections in document
// order (record order).
func (s *storeReader) recordsIn(path string) []uint32 {
	var out []uint32
	for i := range s.recs {
		if s.str(s.recs[i].path) == path {
			out = append(out, uint32(i))
		}
	}
	return out
}
