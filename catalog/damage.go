package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
)

// damaged is an error met reading an opened version's files after they
// were verified: a byte flipped on disk, a file truncated or removed, a
// read that failed. The version is refused from then on, with a reason,
// as damage found before opening is; Loader.With turns damaged into the
// *VersionError requests get, naming the versions still served, and loads
// a catalog without it.
type damaged struct {
	sl  *versionDir
	err error
	// passing says the failure may pass (the process ran out of file
	// descriptors or memory): the version is not refused, and the next
	// request tries again.
	passing bool
}

func (d *damaged) Error() string { return d.err.Error() }
func (d *damaged) Unwrap() error { return d.err }

// check is what every read of an opened version's files returns: err as it
// is when it is the request's own (cancelled, no query) or nil; ErrStale
// when the directory was republished since the version opened (the
// request is retried on a fresh catalog); otherwise, named after file, the version is refused
// and the error is *damaged (also, without refusing it, for a failure of
// the process that may pass).
func (v *Version) check(err error, file string) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, index.ErrEmptyQuery), errors.Is(err, ErrStale):
		return err
	case v.stale():
		return fmt.Errorf("%w: %v", ErrStale, err)
	}
	if !strings.Contains(err.Error(), file) {
		err = fmt.Errorf("%s: %w", file, err)
	}
	if resources(err) {
		return &damaged{sl: v.sl, err: err, passing: true}
	}
	if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, artifacts.ErrMissing) {
		err = fmt.Errorf("%w: %w", artifacts.ErrMissing, err)
	}
	v.sl.refuse(err)
	return &damaged{sl: v.sl, err: *v.sl.refused.Load()}
}

// resources reports whether err is the process running short of file
// descriptors or memory, or an interrupted call: no fault of the files.
func resources(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOMEM) ||
		errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR)
}

// Search is index.Reader.Search on the version, its failures checked.
func (v *Version) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	hits, err := v.reader.Search(ctx, q)
	return hits, v.check(err, artifacts.IndexDir)
}

// SearchCount is index.Reader.SearchCount on the version, its failures
// checked.
func (v *Version) SearchCount(ctx context.Context, q index.Query) ([]index.Hit, int, error) {
	hits, n, err := v.reader.SearchCount(ctx, q)
	return hits, n, v.check(err, artifacts.IndexDir)
}

// Text is index.Reader.Text on the version, its failures checked.
func (v *Version) Text(record uint32) (string, error) {
	text, err := v.reader.Text(record)
	return text, v.check(err, artifacts.IndexDir)
}

// Document is index.Reader.Document on the version, its failures checked.
func (v *Version) Document(path string, withText bool) ([]index.Hit, error) {
	hits, err := v.reader.Document(path, withText)
	return hits, v.check(err, artifacts.IndexDir)
}

// damagedError is the *VersionError of a request that met d on st: the
// version is refused, so st is outdated, and the error names the versions
// st still serves.
// Unusable returns err, met reading a version that st opened outside a
// request's own answer (a library's documents listed beside a match), as
// Loader.With would give it to the request: a *VersionError saying why,
// with paths relative to the version, and, when the version is now
// refused, st marked so that a catalog without it is loaded. Any other
// error is returned as it is.
func (st *Snapshot) Unusable(err error) error {
	if d := (*damaged)(nil); errors.As(err, &d) {
		return st.damagedError(d)
	}
	return err
}

func (st *snapshot) damagedError(d *damaged) error {
	if !d.passing {
		st.outdated.Store(true)
	}
	verr := &VersionError{Library: d.sl.library, Version: d.sl.version, Reason: reason(d.err, d.sl.dir), Cause: d.err, Passing: d.passing}
	if l := st.libs.ByID(d.sl.library); l != nil {
		verr.Library = l.ID
		for _, x := range l.Versions {
			if x.Version != d.sl.version {
				verr.Available = append(verr.Available, x.Version)
			}
		}
	}
	return verr
}
