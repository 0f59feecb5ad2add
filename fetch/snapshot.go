package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Snapshot is a repository's tree at one commit. It implements fs.FS,
// fs.ReadFileFS, fs.ReadDirFS and fs.StatFS; it is immutable after Clone and
// safe for concurrent use. Symbolic links and submodules are not part of it:
// a link is never followed (in or out of the repo); Symlinks lists them so
// callers can say what they skipped.
type Snapshot struct {
	// Commit is the full SHA of the commit.
	Commit string
	// CommitTime is the committer time, in UTC.
	CommitTime time.Time

	objects  storer.EncodedObjectStorer
	entries  map[string]*entry // by path; "." is the root
	symlinks []string
}

type entry struct {
	name     string
	mode     fs.FileMode
	size     int64
	hash     plumbing.Hash
	children []*entry // directories only, sorted by name
}

// newSnapshot indexes the whole tree once so later reads never touch go-git's
// lazily built (and not concurrency-safe) tree maps.
func newSnapshot(objects storer.EncodedObjectStorer, commit string, when time.Time, tree *object.Tree) (*Snapshot, error) {
	s := &Snapshot{Commit: commit, CommitTime: when, objects: objects, entries: map[string]*entry{}}
	root := &entry{name: ".", mode: fs.ModeDir | 0o555}
	s.entries["."] = root
	if err := s.index(root, "", tree); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Snapshot) index(dir *entry, prefix string, tree *object.Tree) error {
	for _, te := range tree.Entries {
		p := te.Name
		if prefix != "" {
			p = prefix + "/" + te.Name
		}
		e := &entry{name: te.Name, hash: te.Hash}
		switch te.Mode {
		case filemode.Dir:
			e.mode = fs.ModeDir | 0o555
			sub, err := object.GetTree(s.objects, te.Hash)
			if err != nil {
				return fmt.Errorf("read tree %s: %w", p, err)
			}
			if err := s.index(e, p, sub); err != nil {
				return err
			}
		case filemode.Symlink:
			s.symlinks = append(s.symlinks, p)
			continue
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			e.mode = 0o444
			obj, err := s.objects.EncodedObject(plumbing.BlobObject, te.Hash)
			if err != nil {
				return fmt.Errorf("read blob %s: %w", p, err)
			}
			e.size = obj.Size()
		default: // submodules and anything unknown are not part of the docs
			continue
		}
		dir.children = append(dir.children, e)
		s.entries[p] = e
	}
	sort.Slice(dir.children, func(i, j int) bool { return dir.children[i].name < dir.children[j].name })
	return nil
}

func (s *Snapshot) lookup(op, name string) (*entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	e, ok := s.entries[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, nil
}

// Symlinks returns the paths of the symbolic links in the tree, sorted.
func (s *Snapshot) Symlinks() []string {
	out := append([]string(nil), s.symlinks...)
	sort.Strings(out)
	return out
}

// Stat implements fs.StatFS.
func (s *Snapshot) Stat(name string) (fs.FileInfo, error) {
	e, err := s.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return info{e, s.CommitTime}, nil
}

// ReadFile implements fs.ReadFileFS.
func (s *Snapshot) ReadFile(name string) ([]byte, error) {
	e, err := s.lookup("readfile", name)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsRegular() {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("not a regular file")}
	}
	obj, err := s.objects.EncodedObject(plumbing.BlobObject, e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	defer r.Close()
	buf := make([]byte, 0, e.size)
	b := bytes.NewBuffer(buf)
	if _, err := io.Copy(b, r); err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	return b.Bytes(), nil
}

// ReadDir implements fs.ReadDirFS; entries are sorted by name.
func (s *Snapshot) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := s.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, len(e.children))
	for i, c := range e.children {
		out[i] = fs.FileInfoToDirEntry(info{c, s.CommitTime})
	}
	return out, nil
}

// Open implements fs.FS.
func (s *Snapshot) Open(name string) (fs.File, error) {
	e, err := s.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		entries, _ := s.ReadDir(name)
		return &dirFile{info: info{e, s.CommitTime}, entries: entries}, nil
	}
	data, err := s.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &file{info: info{e, s.CommitTime}, Reader: bytes.NewReader(data)}, nil
}

// Files returns the paths of all regular files, sorted.
func (s *Snapshot) Files() []string {
	var out []string
	for p, e := range s.entries {
		if e.mode.IsRegular() {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

type info struct {
	e    *entry
	when time.Time
}

func (i info) Name() string       { return path.Base(i.e.name) }
func (i info) Size() int64        { return i.e.size }
func (i info) Mode() fs.FileMode  { return i.e.mode }
func (i info) ModTime() time.Time { return i.when }
func (i info) IsDir() bool        { return i.e.mode.IsDir() }
func (i info) Sys() any           { return nil }

type file struct {
	info info
	*bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

type dirFile struct {
	info    info
	entries []fs.DirEntry
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.e.name, Err: errors.New("is a directory")}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return rest[:n], nil
}

// IsURL reports whether repo is a URL (scheme:// or scp-like user@host:path)
// rather than a local path.
func IsURL(repo string) bool {
	if strings.Contains(repo, "://") {
		return true
	}
	at, colon := strings.Index(repo, "@"), strings.Index(repo, ":")
	return at > 0 && colon > at && !strings.Contains(repo[:colon], "/")
}
