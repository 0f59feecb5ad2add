package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Snapshot is a repository's tree at one commit. It implements fs.FS,
// fs.ReadFileFS, fs.ReadDirFS and fs.StatFS; it is immutable after Clone and
// safe for concurrent use.
//
// What the tree holds but the snapshot leaves out is listed by Omitted:
// symbolic links (never followed, in or out of the repo), submodules (never
// fetched), entries whose names are unsafe or unusable as paths ("..", a
// slash, invalid UTF-8, control characters, over 255 bytes), a second entry
// of a name already seen in its directory, directories deeper than
// Limits.MaxDepth, subtrees that cannot be read, and Git LFS pointer files
// (their content is not in the repository, and their text is not it).
// Files larger than Limits.MaxBlobBytes are listed with their size, but
// their content was never kept: reading them fails with ErrNotFetched.
type Snapshot struct {
	// Commit is the full SHA of the commit.
	Commit string
	// CommitTime is the committer time, in UTC.
	CommitTime time.Time

	objects  storer.EncodedObjectStorer
	large    map[plumbing.Hash]int64
	limits   Limits
	root     *entry // the tree; paths are looked up through it
	symlinks []string
	omitted  []Omitted
	count    int // entries visited, for Limits.MaxEntries
}

// Omitted is a tree entry a Snapshot leaves out, and why.
type Omitted struct {
	// Path is slash-separated. A name that is not printable UTF-8 is shown
	// as a Go-quoted string, so Path is safe to log but may not be a path
	// of the snapshot.
	Path string
	// Reason says why, for a user: "symbolic link (not followed)".
	Reason string
	// Dir is true for entries that would have held files: directories and
	// submodules.
	Dir bool
}

// ErrNotFetched is returned when reading a file whose content was not kept
// because it is larger than Limits.MaxBlobBytes.
var ErrNotFetched = errors.New("content not fetched: the file is larger than the size limit")

// maxNameBytes and maxPathBytes bound a name and a path, as common file
// systems do.
const (
	maxNameBytes = 255
	maxPathBytes = 4096
)

type entry struct {
	name       string
	mode       fs.FileMode
	size       int64
	hash       plumbing.Hash
	notFetched bool     // a blob larger than MaxBlobBytes
	children   []*entry // directories only, sorted by name
}

// newSnapshot indexes the whole tree once so later reads never touch go-git's
// lazily built (and not concurrency-safe) tree maps.
func newSnapshot(st *store, commit string, when time.Time, tree *object.Tree, limits Limits) (*Snapshot, error) {
	s := &Snapshot{Commit: commit, CommitTime: when, objects: st, large: st.large, limits: limits.withDefaults()}
	root := &entry{name: ".", mode: fs.ModeDir | 0o555}
	s.root = root
	if err := s.index(root, "", tree, 1); err != nil {
		return nil, err
	}
	sort.Slice(s.omitted, func(i, j int) bool { return s.omitted[i].Path < s.omitted[j].Path })
	return s, nil
}

// index adds the entries of tree, whose own entries are at level depth,
// under dir (at path prefix).
func (s *Snapshot) index(dir *entry, prefix string, tree *object.Tree, depth int) error {
	seen := make(map[string]bool, len(tree.Entries))
	for _, te := range tree.Entries {
		s.count++
		if s.count > s.limits.MaxEntries {
			return fmt.Errorf("%w: the tree has more than %d entries (files, directories and links), the limit of one version; index a repository or branch that holds the docs rather than everything",
				ErrTooManyEntries, s.limits.MaxEntries)
		}
		isDir := te.Mode == filemode.Dir || te.Mode == filemode.Submodule
		p := shownName(te.Name)
		if prefix != "" {
			p = prefix + "/" + p
		}
		omit := func(reason string) { s.omitted = append(s.omitted, Omitted{Path: p, Reason: reason, Dir: isDir}) }
		if reason := badName(te.Name); reason != "" {
			omit(reason)
			continue
		}
		if seen[te.Name] {
			omit("a second entry of the same name in its directory")
			continue
		}
		seen[te.Name] = true
		if len(p) > maxPathBytes {
			omit(fmt.Sprintf("path longer than %d bytes", maxPathBytes))
			continue
		}
		e := &entry{name: te.Name, hash: te.Hash}
		switch te.Mode {
		case filemode.Dir:
			if depth >= s.limits.MaxDepth {
				omit(fmt.Sprintf("directory deeper than %d levels", s.limits.MaxDepth))
				continue
			}
			sub, err := object.GetTree(s.objects, te.Hash)
			if err != nil {
				omit("unreadable directory: " + err.Error())
				continue
			}
			e.mode = fs.ModeDir | 0o555
			if err := s.index(e, p, sub, depth+1); err != nil {
				return err
			}
		case filemode.Symlink:
			s.symlinks = append(s.symlinks, p)
			omit("symbolic link (not followed)")
			continue
		case filemode.Submodule:
			omit("submodule (not followed)")
			continue
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			e.mode = 0o444
			if size, ok := s.large[te.Hash]; ok {
				e.size, e.notFetched = size, true
				break
			}
			obj, err := s.objects.EncodedObject(plumbing.BlobObject, te.Hash)
			if err != nil {
				omit(fmt.Sprintf("content not fetched (a change to a file larger than %d bytes, or missing from the pack)", s.limits.MaxBlobBytes))
				continue
			}
			if lfsPointer(obj) {
				omit("Git LFS pointer (its content is in LFS storage, which is not fetched)")
				continue
			}
			e.size = obj.Size()
		default:
			omit(fmt.Sprintf("unknown entry mode %o", uint32(te.Mode)))
			continue
		}
		dir.children = append(dir.children, e)
	}
	sort.Slice(dir.children, func(i, j int) bool { return dir.children[i].name < dir.children[j].name })
	return nil
}

// maxLFSPointerBytes bounds a Git LFS pointer file (the spec's limit).
const maxLFSPointerBytes = 1024

// lfsPrefixes are the first lines a Git LFS pointer file starts with (the
// current spec and the one before it).
var lfsPrefixes = []string{"version https://git-lfs.github.com/spec/", "version https://hawser.github.com/spec/"}

// lfsPointer reports whether obj, a blob, is a Git LFS pointer: a small
// file that stands for content kept outside the repository (git-lfs
// smudges it on checkout, a clone without it holds the pointer). Its text
// ("version https://git-lfs..., oid sha256:..., size ...") is not the
// file's content and must not be read as such.
func lfsPointer(obj plumbing.EncodedObject) bool {
	if obj.Size() >= maxLFSPointerBytes {
		return false
	}
	data, err := contentOf(obj) // the bytes held, not a copy
	if err != nil {
		return false
	}
	return slices.ContainsFunc(lfsPrefixes, func(p string) bool { return bytes.HasPrefix(data, []byte(p)) }) &&
		bytes.Contains(data, []byte("\noid ")) && bytes.Contains(data, []byte("\nsize "))
}

// badName says why a tree entry's name cannot be a path element of the
// snapshot, or "". Git stores names as bytes; these would escape their
// directory, mean a different path, or garble logs and terminals.
func badName(name string) string {
	switch {
	case name == "":
		return "empty name"
	case name == "." || name == "..":
		return fmt.Sprintf("name %q would leave its directory", name)
	case strings.ContainsRune(name, '/'):
		return "name contains a slash"
	case strings.ContainsRune(name, 0):
		return "name contains a NUL byte"
	case !utf8.ValidString(name):
		return "name is not valid UTF-8"
	case strings.ContainsFunc(name, unprintable):
		return "name contains control characters"
	case len(name) > maxNameBytes:
		return fmt.Sprintf("name longer than %d bytes", maxNameBytes)
	}
	return ""
}

// unprintable reports control characters, and the format characters that
// reorder or break displayed text (bidirectional overrides, line and
// paragraph separators).
func unprintable(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029
}

// shownName returns name as is when it is safe to show, else Go-quoted.
func shownName(name string) string {
	if utf8.ValidString(name) && !strings.ContainsFunc(name, unprintable) && !strings.ContainsRune(name, '/') {
		return name
	}
	return strconv.Quote(name)
}

// Omitted returns the tree entries the snapshot leaves out, sorted by path.
// The caller owns the returned slice.
func (s *Snapshot) Omitted() []Omitted {
	return append([]Omitted(nil), s.omitted...)
}

func (s *Snapshot) lookup(op, name string) (*entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if e := s.find(name); e != nil {
		return e, nil
	}
	return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// find walks from the root to the entry at name (a valid path), by binary
// search in each directory's sorted children; nil if there is none. The
// snapshot keeps no map of paths: with a million entries that map would
// cost more than the entries.
func (s *Snapshot) find(name string) *entry {
	e := s.root
	if name == "." {
		return e
	}
	for rest := name; ; {
		part, more, _ := strings.Cut(rest, "/")
		if !e.mode.IsDir() {
			return nil
		}
		i := sort.Search(len(e.children), func(i int) bool { return e.children[i].name >= part })
		if i == len(e.children) || e.children[i].name != part {
			return nil
		}
		e = e.children[i]
		if more == "" {
			return e
		}
		rest = more
	}
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
	if e.notFetched {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: ErrNotFetched}
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
	var walk func(dir *entry, prefix string)
	walk = func(dir *entry, prefix string) {
		for _, c := range dir.children {
			p := prefix + c.name
			switch {
			case c.mode.IsDir():
				walk(c, p+"/")
			case c.mode.IsRegular():
				out = append(out, p)
			}
		}
	}
	walk(s.root, "")
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

// IsURL reports whether repo is a URL rather than a local path, as git
// reads it: scheme://…, or scp-like [user@]host:path (a ':' before any '/',
// after more than a drive letter).
func IsURL(repo string) bool {
	if strings.Contains(repo, "://") {
		return true
	}
	colon := strings.Index(repo, ":")
	return colon > 1 && !strings.Contains(repo[:colon], "/")
}
