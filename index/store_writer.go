package index

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"os"

	"github.com/klauspost/compress/s2"
)

// storeWriter writes sections.bin (store.go describes the format):
// records in order, their text in S2 blocks of about textBlockSize with
// the dictionary, their metadata gathered and written by close as one
// DEFLATE stream, then the block table and the trailer.
type storeWriter struct {
	f     *os.File
	w     *bufio.Writer
	off   uint64
	raw   bytes.Buffer
	zbuf  bytes.Buffer
	text  *s2.Dict      // the text blocks' dictionary; nil: none
	enc   []byte        // a text block's encoding, reused
	plain *flate.Writer // for the dictionary and metadata
	table []uint64      // offset, length pairs flattened: offsets at even indexes

	strs    map[string]uint32
	strList []string
	meta    []byte
	records uint32
}

// newStoreWriter creates a store at path whose text blocks are compressed
// with dict (at most maxDictBytes; see textDictionary).
func newStoreWriter(path string, dict []byte) (*storeWriter, error) {
	if len(dict) > maxDictBytes {
		return nil, fmt.Errorf("text dictionary of %d bytes, at most %d", len(dict), maxDictBytes)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	s := &storeWriter{f: f, w: bufio.NewWriterSize(f, 256<<10), strs: map[string]uint32{}}
	// The level is valid: this cannot fail.
	s.plain, _ = flate.NewWriter(&s.zbuf, flate.DefaultCompression)
	s.text = s2.MakeDict(dict, nil)
	if _, err := s.w.WriteString(storeMagic); err != nil {
		f.Close()
		return nil, err
	}
	s.off = uint64(len(storeMagic))
	if err := s.writeBlock(s.plain, dict); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func (s *storeWriter) str(v string) uint64 {
	id, ok := s.strs[v]
	if !ok {
		id = uint32(len(s.strList))
		s.strs[v] = id
		s.strList = append(s.strList, v)
	}
	return uint64(id)
}

func (s *storeWriter) strs64(list []string) {
	s.meta = binary.AppendUvarint(s.meta, uint64(len(list)))
	for _, v := range list {
		s.meta = binary.AppendUvarint(s.meta, s.str(v))
	}
}

func (s *storeWriter) add(r *record) error {
	m := &r.Meta
	for _, v := range []uint64{s.str(m.Path), s.str(m.Anchor), s.str(m.Heading), s.str(m.Title)} {
		s.meta = binary.AppendUvarint(s.meta, v)
	}
	s.strs64(m.HeadingPath)
	for _, v := range []int{m.Level, m.Line, m.Part, m.Parts, m.Tokens} {
		s.meta = binary.AppendUvarint(s.meta, uint64(max(v, 0)))
	}
	s.strs64(m.Topics)
	var kinds byte
	for _, k := range m.Kinds {
		switch k {
		case KindInfo:
			kinds |= kindInfoBit
		case KindCode:
			kinds |= kindCodeBit
		}
	}
	s.meta = append(s.meta, kinds)
	s.strs64(m.Langs)
	s.meta = binary.AppendUvarint(s.meta, s.str(m.Source))
	s.meta = binary.AppendUvarint(s.meta, s.str(m.Within))
	s.meta = binary.AppendUvarint(s.meta, uint64(len(s.table)/2))
	s.meta = binary.AppendUvarint(s.meta, uint64(s.raw.Len()))
	s.meta = binary.AppendUvarint(s.meta, uint64(len(r.Text)))
	s.meta = binary.LittleEndian.AppendUint64(s.meta, TextHash(r.Text))
	s.meta = binary.LittleEndian.AppendUint64(s.meta, SimHash(r.Text))
	s.raw.WriteString(r.Text)
	s.records++
	if s.raw.Len() >= textBlockSize {
		return s.flush()
	}
	return nil
}

// deflate compresses data with zw (which writes to s.zbuf) into s.zbuf.
// Resetting a writer made with a dictionary keeps the dictionary.
func (s *storeWriter) deflate(zw *flate.Writer, data []byte) error {
	s.zbuf.Reset()
	zw.Reset(&s.zbuf)
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// writeBlock deflates data with zw and adds it as the next block.
func (s *storeWriter) writeBlock(zw *flate.Writer, data []byte) error {
	if err := s.deflate(zw, data); err != nil {
		return err
	}
	return s.appendBlock(s.zbuf.Bytes())
}

// appendBlock adds the compressed block z.
func (s *storeWriter) appendBlock(z []byte) error {
	if _, err := s.w.Write(z); err != nil {
		return err
	}
	s.table = append(s.table, s.off, uint64(len(z)))
	s.off += uint64(len(z))
	return nil
}

// flush writes the text gathered as the next text block.
func (s *storeWriter) flush() error {
	if s.raw.Len() == 0 {
		return nil
	}
	// The encoders write into dst only if its length is enough.
	n := s2.MaxEncodedLen(s.raw.Len())
	if cap(s.enc) < n {
		s.enc = make([]byte, n)
	}
	var z []byte
	if s.text != nil {
		z = s.text.EncodeBetter(s.enc[:n], s.raw.Bytes())
	} else {
		z = s2.EncodeBetter(s.enc[:n], s.raw.Bytes())
	}
	if err := s.appendBlock(z); err != nil {
		return err
	}
	s.raw.Reset()
	return nil
}

func (s *storeWriter) close() error {
	err := s.flush()
	var head []byte
	head = binary.AppendUvarint(head, uint64(len(s.strList)))
	for _, v := range s.strList {
		head = binary.AppendUvarint(head, uint64(len(v)))
		head = append(head, v...)
	}
	head = binary.AppendUvarint(head, uint64(s.records))
	metaOff := s.off
	var metaLen int
	if err == nil {
		err = s.deflate(s.plain, append(head, s.meta...))
	}
	if err == nil {
		metaLen = s.zbuf.Len()
		_, err = s.w.Write(s.zbuf.Bytes())
	}
	tableOff := metaOff + uint64(metaLen)
	var buf []byte
	for i := 0; i < len(s.table); i += 2 {
		buf = binary.LittleEndian.AppendUint64(buf, s.table[i])
		buf = binary.LittleEndian.AppendUint32(buf, uint32(s.table[i+1]))
	}
	buf = binary.LittleEndian.AppendUint64(buf, metaOff)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(metaLen))
	buf = binary.LittleEndian.AppendUint64(buf, tableOff)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s.table)/2))
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
