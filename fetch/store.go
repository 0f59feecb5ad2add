package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Default limits of one clone (see Limits).
const (
	DefaultMaxBlobBytes  = 4 << 20
	DefaultMaxFetchBytes = 1 << 30
	DefaultMaxEntries    = 1_000_000
	DefaultMaxDepth      = 64
)

// Errors of a clone beyond its Limits.
var (
	// ErrTooLarge means a clone would hold more than Limits.MaxFetchBytes.
	ErrTooLarge = errors.New("repository too large")
	// ErrTooManyEntries means the pack has more objects, or the tree more
	// entries, than Limits.MaxEntries.
	ErrTooManyEntries = errors.New("too many files")
)

// Limits bound what one clone holds in memory, so a hostile or merely huge
// repository costs a bounded amount of memory and then a clear error or a
// skip, never the process. Zero fields take the defaults.
type Limits struct {
	// MaxBlobBytes is the largest file whose content is kept (default
	// DefaultMaxBlobBytes). A larger file is streamed through a hash and
	// dropped: the snapshot lists it with its size, and reading it fails
	// with ErrNotFetched.
	MaxBlobBytes int64
	// MaxFetchBytes bounds the bytes of all objects kept (default
	// DefaultMaxFetchBytes); a clone that needs more fails with ErrTooLarge.
	MaxFetchBytes int64
	// MaxEntries bounds the objects a clone receives and the tree entries
	// (files, directories, links, submodules) a snapshot indexes, shared
	// subtrees counted each time they appear (default DefaultMaxEntries);
	// more fails with ErrTooManyEntries.
	MaxEntries int
	// MaxDepth is the deepest directory level indexed (default
	// DefaultMaxDepth; the root's entries are level 1). Deeper directories
	// are left out and listed by Snapshot.Omitted.
	MaxDepth int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBlobBytes <= 0 {
		l.MaxBlobBytes = DefaultMaxBlobBytes
	}
	if l.MaxFetchBytes <= 0 {
		l.MaxFetchBytes = DefaultMaxFetchBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// store is go-git's in-memory storage with its own pack intake: go-git
// hands it the raw pack (storer.PackfileWriter) and ingest keeps each
// object whole in memory only when it is within the limits. Blobs larger
// than MaxBlobBytes are hashed as they stream by and dropped, so a file of
// a GiB (or a zlib bomb that inflates to one) costs a 32 KiB buffer, not a
// GiB. The store is written by one goroutine during the clone and only read
// afterwards.
type store struct {
	*memory.Storage
	limits Limits
	// large maps each blob not kept to its size.
	large map[plumbing.Hash]int64
	// kept is the bytes of the objects held (and of a delta being applied).
	kept int64
	// abort cancels the clone when ingest stops early.
	abort context.CancelFunc

	mu     sync.Mutex
	failed error // why ingest stopped early
}

func newStore(l Limits) *store {
	return &store{Storage: memory.NewStorage(), limits: l.withDefaults(), large: map[plumbing.Hash]int64{}}
}

// PackfileWriter implements storer.PackfileWriter: go-git copies the pack
// into the returned writer; Close returns ingest's verdict.
//
// When ingest stops early (a limit, a malformed pack) it cancels the
// clone's context rather than failing the write: go-git would otherwise
// wait for a git upload-pack process that is blocked writing the rest of
// the pack. The cancelled read makes go-git kill it; Clone then reports
// the ingest error (failure), not the cancellation.
func (s *store) PackfileWriter() (io.WriteCloser, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.ingest(pr)
		if err != nil {
			s.mu.Lock()
			s.failed = err
			s.mu.Unlock()
			if s.abort != nil {
				s.abort()
			}
		}
		io.Copy(io.Discard, pr) // the rest, until go-git stops writing
		done <- err
	}()
	return &packWriter{pw: pw, done: done}, nil
}

// failure returns the error that stopped ingest, or nil.
func (s *store) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

type packWriter struct {
	pw   *io.PipeWriter
	done chan error
}

func (w *packWriter) Write(p []byte) (int, error) { return w.pw.Write(p) }

func (w *packWriter) Close() error {
	w.pw.Close()
	return <-w.done
}

// charge counts n more bytes held, failing beyond MaxFetchBytes.
func (s *store) charge(n int64) error {
	if n < 0 || s.kept+n > s.limits.MaxFetchBytes {
		return fmt.Errorf("%w: its objects need more than %d MiB in memory (the limit of one clone); index a smaller repository or branch",
			ErrTooLarge, s.limits.MaxFetchBytes>>20)
	}
	s.kept += n
	return nil
}

// ingest reads a pack (without a seekable source: deltas are resolved as
// they arrive, against bases already read, which is the order git writes).
func (s *store) ingest(r io.Reader) error {
	sc := packfile.NewScanner(r)
	_, count, err := sc.Header()
	if errors.Is(err, packfile.ErrEmptyPackfile) {
		return fmt.Errorf("read pack: the remote sent no objects: its git upload-pack failed (is the repository corrupt? git fsck tells): %w", err)
	}
	if err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	if int64(count) > int64(s.limits.MaxEntries)+1 {
		return fmt.Errorf("%w: the pack holds %d objects, more than the %d files a version may have", ErrTooManyEntries, count, s.limits.MaxEntries)
	}
	// byOffset maps each object's pack offset to its hash, for deltas that
	// name their base by offset; the zero hash marks an object not resolved.
	byOffset := make(map[int64]plumbing.Hash, min(count, 1<<16))
	for range count {
		oh, err := sc.NextObjectHeader()
		if err != nil {
			return fmt.Errorf("read pack: %w", err)
		}
		var h plumbing.Hash
		switch oh.Type {
		case plumbing.OFSDeltaObject:
			base, ok := byOffset[oh.OffsetReference]
			if !ok {
				return fmt.Errorf("read pack: %w: delta base at offset %d not found", packfile.ErrMalformedPackFile, oh.OffsetReference)
			}
			h, err = s.delta(sc, oh, base)
		case plumbing.REFDeltaObject:
			h, err = s.delta(sc, oh, oh.Reference)
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			h, err = s.object(sc, oh)
		default:
			err = fmt.Errorf("%w: object type %v", packfile.ErrMalformedPackFile, oh.Type)
		}
		if err != nil {
			return fmt.Errorf("read pack: %w", err)
		}
		byOffset[oh.Offset] = h
	}
	if _, err := sc.Checksum(); err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	return nil
}

// object reads a whole (not deltified) object.
func (s *store) object(sc *packfile.Scanner, oh *packfile.ObjectHeader) (plumbing.Hash, error) {
	hasher := plumbing.NewHasher(oh.Type, oh.Length)
	if oh.Type == plumbing.BlobObject && oh.Length > s.limits.MaxBlobBytes {
		n, _, err := sc.NextObject(hasher) // the scanner stops at the declared length
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if n != oh.Length {
			return plumbing.ZeroHash, fmt.Errorf("%w: object inflates to %d bytes, not the %d declared", packfile.ErrMalformedPackFile, n, oh.Length)
		}
		h := hasher.Sum()
		s.large[h] = oh.Length
		return h, nil
	}
	if err := s.charge(oh.Length); err != nil {
		return plumbing.ZeroHash, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, oh.Length))
	if _, _, err := sc.NextObject(io.MultiWriter(buf, hasher)); err != nil {
		return plumbing.ZeroHash, err
	}
	if int64(buf.Len()) != oh.Length {
		return plumbing.ZeroHash, fmt.Errorf("%w: object inflates to %d bytes, not the %d declared", packfile.ErrMalformedPackFile, buf.Len(), oh.Length)
	}
	return s.put(oh.Type, hasher.Sum(), buf.Bytes())
}

// delta reads a deltified object and applies it to base. A delta whose
// base was a dropped large blob cannot be applied: its target is dropped
// too, unnamed, and the snapshot reports the file it was as not fetched.
func (s *store) delta(sc *packfile.Scanner, oh *packfile.ObjectHeader, base plumbing.Hash) (plumbing.Hash, error) {
	if err := s.charge(oh.Length); err != nil { // held while applied
		return plumbing.ZeroHash, err
	}
	defer func() { s.kept -= oh.Length }()
	buf := bytes.NewBuffer(make([]byte, 0, oh.Length))
	if _, _, err := sc.NextObject(buf); err != nil {
		return plumbing.ZeroHash, err
	}
	delta := buf.Bytes()
	if base.IsZero() {
		return plumbing.ZeroHash, nil // chained to an unresolved delta
	}
	if _, dropped := s.large[base]; dropped {
		return plumbing.ZeroHash, nil
	}
	b, err := s.Storage.EncodedObject(plumbing.AnyObject, base)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%w: delta base %s not in the pack", packfile.ErrMalformedPackFile, base)
	}
	target, err := deltaTargetSize(delta)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if b.Type() == plumbing.BlobObject && target > s.limits.MaxBlobBytes {
		rc, err := packfile.ReaderFromDelta(b, bytes.NewReader(delta))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		defer rc.Close()
		hasher := plumbing.NewHasher(plumbing.BlobObject, target)
		n, err := io.Copy(hasher, io.LimitReader(rc, target+1))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if n != target {
			return plumbing.ZeroHash, fmt.Errorf("%w: delta gives %d bytes, not the %d declared", packfile.ErrMalformedPackFile, n, target)
		}
		h := hasher.Sum()
		s.large[h] = target
		return h, nil
	}
	if err := s.charge(target); err != nil {
		return plumbing.ZeroHash, err
	}
	src, err := contentOf(b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	data, err := packfile.PatchDelta(src, delta)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if int64(len(data)) != target {
		return plumbing.ZeroHash, fmt.Errorf("%w: delta gives %d bytes, not the %d declared", packfile.ErrMalformedPackFile, len(data), target)
	}
	hasher := plumbing.NewHasher(b.Type(), target)
	hasher.Write(data)
	return s.put(b.Type(), hasher.Sum(), data)
}

// put stores a complete object whose hash is known.
func (s *store) put(t plumbing.ObjectType, h plumbing.Hash, data []byte) (plumbing.Hash, error) {
	if _, err := s.Storage.SetEncodedObject(&heldObject{t: t, h: h, data: data}); err != nil {
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// contentOf returns the content of a stored object.
func contentOf(o plumbing.EncodedObject) ([]byte, error) {
	if obj, ok := o.(*heldObject); ok {
		return obj.data, nil
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// deltaTargetSize reads the size of a delta's result from its header (two
// little-endian base-128 numbers: the base's size, then the target's).
func deltaTargetSize(delta []byte) (int64, error) {
	var sizes [2]uint64
	for i := range sizes {
		var shift uint
		for {
			if len(delta) == 0 || shift > 56 {
				return 0, fmt.Errorf("%w: truncated delta header", packfile.ErrMalformedPackFile)
			}
			c := delta[0]
			delta = delta[1:]
			sizes[i] |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				break
			}
		}
	}
	if sizes[1] > 1<<62 {
		return 0, fmt.Errorf("%w: delta target size out of range", packfile.ErrMalformedPackFile)
	}
	return int64(sizes[1]), nil
}

// heldObject is a complete object held in memory, exactly its size, with the
// hash computed as it was read. It is read-only.
type heldObject struct {
	t    plumbing.ObjectType
	h    plumbing.Hash
	data []byte
}

func (o *heldObject) Hash() plumbing.Hash         { return o.h }
func (o *heldObject) Type() plumbing.ObjectType   { return o.t }
func (o *heldObject) SetType(plumbing.ObjectType) {}
func (o *heldObject) Size() int64                 { return int64(len(o.data)) }
func (o *heldObject) SetSize(int64)               {}
func (o *heldObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *heldObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("fetch: stored objects are read-only")
}
