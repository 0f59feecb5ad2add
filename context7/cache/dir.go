package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The layout of a Dir: one file per entry, named for the SHA-256 of its
// key, plus temporary files being written.
const (
	entryExt  = ".entry"
	tmpPrefix = ".tmp-"
	// magic starts every entry file; bump its number when the format
	// changes, and old files are dropped as damaged. Files of magicV1,
	// which have no TTL line, are still read.
	magic   = "codex7-context7-cache 2\n"
	magicV1 = "codex7-context7-cache 1\n"
	// staleTemp is when a temporary file is taken for the leftover of a
	// crashed writer and removed. A live writer renames its file within
	// milliseconds.
	staleTemp = time.Hour
	// maxHeader bounds an entry's header: magic and five short lines.
	maxHeader = 256
)

// Dir is a Cache of one file per entry in a directory. Several Dirs, in
// one process or in several, may share the directory, each with its own
// TTL: an entry is served while it is younger than the reader's TTL, and
// removed only once it is older than both the reader's TTL and the one it
// was written under, so that a process reusing answers for an hour (a
// prompt hook, `indexer context`) never throws out those a server keeps
// for a day. It is safe for concurrent use.
type Dir struct {
	dir  string
	opts Options
	// evictMu keeps this process's goroutines from listing and evicting
	// at the same time; other processes may, which costs a few removals
	// of files already gone.
	evictMu sync.Mutex
}

// OpenDir opens, creating it if needed, the cache directory dir. It fails
// when the directory cannot be created or written, as in a read-only
// container: callers then fall back to NewMemory. It drops expired entries
// and stale temporary files, and evicts beyond the bounds, on the way.
func OpenDir(dir string, opts Options) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("cache: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"probe-*")
	if err != nil {
		return nil, fmt.Errorf("cache: directory %s is not writable: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	d := &Dir{dir: dir, opts: opts.withDefaults()}
	d.evict()
	return d, nil
}

// Path returns the directory the cache lives in.
func (d *Dir) Path() string { return d.dir }

func (d *Dir) entryPath(key string) (hash, path string) {
	sum := sha256.Sum256([]byte(key))
	hash = hex.EncodeToString(sum[:])
	return hash, filepath.Join(d.dir, hash+entryExt)
}

// Get implements Cache. A hit marks the entry as just used.
func (d *Dir) Get(key string) ([]byte, bool) {
	hash, path := d.entryPath(key)
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false
	}
	if fi.Size() > d.opts.MaxBytes+maxHeader {
		d.drop(path, fi, fmt.Errorf("%d bytes, more than the cache holds", fi.Size()))
		return nil, false
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, false
	}
	h, value, err := decodeEntry(data, hash)
	if err != nil {
		d.drop(path, fi, err)
		return nil, false
	}
	now := d.opts.Now()
	if !now.Before(h.written.Add(d.opts.TTL)) {
		if d.expired(now, h) {
			removeSame(path, fi)
		}
		return nil, false
	}
	// Recency lives in the modification time, where every process sees
	// it. Failing to set it (another user's file) only makes the entry
	// look older.
	os.Chtimes(path, now, now)
	return value, true
}

// Put implements Cache. The entry is written to a temporary file and
// renamed into place, so no reader ever sees part of it.
func (d *Dir) Put(key string, value []byte) (err error) {
	hash, path := d.entryPath(key)
	now := d.opts.Now()
	data := encodeEntry(hash, now, d.opts.TTL, value)
	if int64(len(data)) > d.opts.MaxBytes {
		return ErrTooLarge
	}
	f, err := os.CreateTemp(d.dir, tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("cache: write entry: %w", err)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	os.Chtimes(path, now, now)
	d.evict()
	return nil
}

// Delete implements Cache.
func (d *Dir) Delete(key string) {
	_, path := d.entryPath(key)
	os.Remove(path)
}

// Len returns the number of entry files in the directory, expired ones
// included until they are next looked up or evicted.
func (d *Dir) Len() int {
	entries, _ := os.ReadDir(d.dir)
	n := 0
	for _, e := range entries {
		if isEntryName(e.Name()) {
			n++
		}
	}
	return n
}

// drop removes a damaged entry, unless another process has replaced it
// with a new file since it was read.
func (d *Dir) drop(path string, read os.FileInfo, why error) {
	if removeSame(path, read) {
		d.opts.Logger.Warn("context7 cache: dropped a damaged entry", "file", filepath.Base(path), "error", why.Error())
	}
}

// removeSame removes path if it is still the file read was taken from.
func removeSame(path string, read os.FileInfo) bool {
	now, err := os.Stat(path)
	if err != nil || !os.SameFile(now, read) {
		return false
	}
	return os.Remove(path) == nil
}

// evict lists the directory and removes expired entries, temporary files
// left by crashed writers, and then the least recently used entries until
// the cache is within its bounds.
func (d *Dir) evict() {
	d.evictMu.Lock()
	defer d.evictMu.Unlock()
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return
	}
	type item struct {
		path  string
		size  int64
		mtime time.Time
	}
	now := d.opts.Now()
	var items []item
	var total int64
	for _, e := range entries {
		name := e.Name()
		info, err := e.Info()
		if err != nil { // removed since listed
			continue
		}
		path := filepath.Join(d.dir, name)
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			// Temporary files carry the real time: the injected clock
			// only sets entries' times.
			if time.Since(info.ModTime()) > staleTemp {
				os.Remove(path)
			}
		case isEntryName(name):
			// A hit only moves the time forward from when the entry was
			// written, so an entry unused for a whole TTL is at least that
			// old; its header says whether it has expired for its writer
			// too.
			if !now.Before(info.ModTime().Add(d.opts.TTL)) && d.expiredFile(path, now) {
				os.Remove(path)
				continue
			}
			items = append(items, item{path, info.Size(), info.ModTime()})
			total += info.Size()
		}
	}
	if len(items) <= d.opts.MaxEntries && total <= d.opts.MaxBytes {
		return
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := a.mtime.Compare(b.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	n := len(items)
	for _, it := range items {
		if n <= d.opts.MaxEntries && total <= d.opts.MaxBytes {
			break
		}
		os.Remove(it.path)
		n--
		total -= it.size
	}
}

// expired reports whether the entry h heads has expired for every
// process that shares the directory, as far as this one can tell: it is
// older than this Dir's TTL and than the TTL it was written under (that
// of an entry of the first format, 0, counts as this Dir's).
func (d *Dir) expired(now time.Time, h header) bool {
	return !now.Before(h.written.Add(max(d.opts.TTL, h.ttl)))
}

// expiredFile reads the header of the entry file at path and reports
// whether it has expired (expired); a header that cannot be read counts
// as expired, as the whole file would be dropped as damaged.
func (d *Dir) expiredFile(path string, now time.Time) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	buf := make([]byte, maxHeader)
	n, _ := io.ReadFull(f, buf)
	h, _, err := parseHeader(buf[:n])
	return err != nil || d.expired(now, h)
}

func isEntryName(name string) bool {
	return len(name) == sha256.Size*2+len(entryExt) && strings.HasSuffix(name, entryExt)
}

// encodeEntry lays out an entry file: the magic line, then the key's hash,
// the write time in Unix nanoseconds, the TTL it is written under in
// nanoseconds, the value's length and its SHA-256, one per line, then the
// value.
func encodeEntry(hash string, written time.Time, ttl time.Duration, value []byte) []byte {
	sum := sha256.Sum256(value)
	var b bytes.Buffer
	b.Grow(maxHeader + len(value))
	b.WriteString(magic)
	b.WriteString(hash + "\n")
	b.WriteString(strconv.FormatInt(written.UnixNano(), 10) + "\n")
	b.WriteString(strconv.FormatInt(int64(ttl), 10) + "\n")
	b.WriteString(strconv.Itoa(len(value)) + "\n")
	b.WriteString(hex.EncodeToString(sum[:]) + "\n")
	b.Write(value)
	return b.Bytes()
}

// header is what an entry file says of its value.
type header struct {
	hash    string
	written time.Time
	ttl     time.Duration // 0 in an entry of the first format
	size    int
	sum     string
}

// parseHeader reads the header at the start of data, an entry file or its
// first bytes, and returns it and the bytes after it.
func parseHeader(data []byte) (header, []byte, error) {
	n := 5 // lines after the magic
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		if rest, ok = bytes.CutPrefix(data, []byte(magicV1)); !ok {
			return header{}, nil, errors.New("not a cache entry of this version")
		}
		n = 4 // no TTL line
	}
	var fields [5]string
	for i := range n {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok || len(line) > 64 {
			return header{}, nil, errors.New("truncated or malformed header")
		}
		fields[i], rest = string(line), after
	}
	if n == 4 {
		fields[4], fields[3], fields[2] = fields[3], fields[2], "0"
	}
	nanos, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return header{}, nil, errors.New("malformed write time")
	}
	ttl, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || ttl < 0 {
		return header{}, nil, errors.New("malformed TTL")
	}
	size, err := strconv.Atoi(fields[3])
	if err != nil || size < 0 {
		return header{}, nil, errors.New("malformed length")
	}
	return header{hash: fields[0], written: time.Unix(0, nanos), ttl: time.Duration(ttl), size: size, sum: fields[4]}, rest, nil
}

// decodeEntry checks an entry file read for the key whose hash is
// wantHash and returns its header and value.
func decodeEntry(data []byte, wantHash string) (header, []byte, error) {
	h, rest, err := parseHeader(data)
	if err != nil {
		return header{}, nil, err
	}
	if h.hash != wantHash {
		return header{}, nil, errors.New("entry of another key")
	}
	if len(rest) != h.size {
		return header{}, nil, fmt.Errorf("value of %d bytes, header says %d", len(rest), h.size)
	}
	sum := sha256.Sum256(rest)
	if hex.EncodeToString(sum[:]) != h.sum {
		return header{}, nil, errors.New("checksum mismatch")
	}
	return h, rest, nil
}
