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
	// changes, and old files are dropped as damaged.
	magic = "codex7-context7-cache 1\n"
	// staleTemp is when a temporary file is taken for the leftover of a
	// crashed writer and removed. A live writer renames its file within
	// milliseconds.
	staleTemp = time.Hour
	// maxHeader bounds an entry's header: magic and four short lines.
	maxHeader = 256
)

// Dir is a Cache of one file per entry in a directory. Several Dirs, in
// one process or in several, may share the directory. It is safe for
// concurrent use.
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
	written, value, err := decodeEntry(data, hash)
	if err != nil {
		d.drop(path, fi, err)
		return nil, false
	}
	now := d.opts.Now()
	if !now.Before(written.Add(d.opts.TTL)) {
		removeSame(path, fi)
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
	data := encodeEntry(hash, now, value)
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
			// written, so an entry unused for a whole TTL has expired.
			if !now.Before(info.ModTime().Add(d.opts.TTL)) {
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

func isEntryName(name string) bool {
	return len(name) == sha256.Size*2+len(entryExt) && strings.HasSuffix(name, entryExt)
}

// encodeEntry lays out an entry file: the magic line, then the key's hash,
// the write time in Unix nanoseconds, the value's length and its SHA-256,
// one per line, then the value.
func encodeEntry(hash string, written time.Time, value []byte) []byte {
	sum := sha256.Sum256(value)
	var b bytes.Buffer
	b.Grow(maxHeader + len(value))
	b.WriteString(magic)
	b.WriteString(hash + "\n")
	b.WriteString(strconv.FormatInt(written.UnixNano(), 10) + "\n")
	b.WriteString(strconv.Itoa(len(value)) + "\n")
	b.WriteString(hex.EncodeToString(sum[:]) + "\n")
	b.Write(value)
	return b.Bytes()
}

// decodeEntry checks an entry file read for the key whose hash is
// wantHash and returns its write time and value.
func decodeEntry(data []byte, wantHash string) (time.Time, []byte, error) {
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return time.Time{}, nil, errors.New("not a cache entry of this version")
	}
	var fields [4]string
	for i := range fields {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok || len(line) > 64 {
			return time.Time{}, nil, errors.New("truncated or malformed header")
		}
		fields[i], rest = string(line), after
	}
	if fields[0] != wantHash {
		return time.Time{}, nil, errors.New("entry of another key")
	}
	nanos, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return time.Time{}, nil, errors.New("malformed write time")
	}
	n, err := strconv.Atoi(fields[2])
	if err != nil || n < 0 {
		return time.Time{}, nil, errors.New("malformed length")
	}
	if len(rest) != n {
		return time.Time{}, nil, fmt.Errorf("value of %d bytes, header says %d", len(rest), n)
	}
	sum := sha256.Sum256(rest)
	if hex.EncodeToString(sum[:]) != fields[3] {
		return time.Time{}, nil, errors.New("checksum mismatch")
	}
	return time.Unix(0, nanos), rest, nil
}
