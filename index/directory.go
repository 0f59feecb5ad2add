package index

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blugelabs/bluge"
	blugeindex "github.com/blugelabs/bluge/index"
	segment "github.com/blugelabs/bluge_segment_api"
)

// directory is bluge's file system directory without its per-file flock
// locks. Those locks break when another goroutine forks a process (go-git
// runs git-upload-pack): the child briefly shares a just-written segment's
// exclusively locked descriptor and bluge's next shared lock fails with
// EAGAIN. Codex7 needs none of them: an index is written once, privately,
// in a staging directory under the build's own lock, and never modified
// after it is published.
//
// With release set, Load reads each item into memory and keeps no handle
// on its file (see releaseFiles).
type directory struct {
	*blugeindex.FileSystemDirectory
	path    string
	release bool
}

func config(dir string, release bool) bluge.Config {
	return bluge.DefaultConfigWithDirectory(func() blugeindex.Directory {
		return &directory{FileSystemDirectory: blugeindex.NewFileSystemDirectory(dir), path: dir, release: release}
	})
}

func (d *directory) name(kind string, id uint64) string {
	return filepath.Join(d.path, fmt.Sprintf("%012x", id)+kind)
}

// Load maps the item read-only, or reads it into memory when d.release
// is set.
func (d *directory) Load(kind string, id uint64) (*segment.Data, io.Closer, error) {
	if d.release {
		b, err := os.ReadFile(d.name(kind, id))
		if err != nil {
			return nil, nil, err
		}
		return segment.NewDataBytes(b), io.NopCloser(nil), nil
	}
	f, err := os.Open(d.name(kind, id))
	if err != nil {
		return nil, nil, err
	}
	return blugeindex.LoadMMapAlways(plainFile{f})
}

// Persist writes a new item and syncs it.
func (d *directory) Persist(kind string, id uint64, w blugeindex.WriterTo, closeCh chan struct{}) error {
	path := d.name(kind, id)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if _, err = w.WriteTo(f, closeCh); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// Lock and Unlock are no-ops: see directory.
func (d *directory) Lock() error   { return nil }
func (d *directory) Unlock() error { return nil }

// plainFile is an unlocked lock.LockedFile.
type plainFile struct{ f *os.File }

func (p plainFile) File() *os.File  { return p.f }
func (p plainFile) Exclusive() bool { return false }
func (p plainFile) Close() error    { return p.f.Close() }
