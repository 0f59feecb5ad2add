package catalog

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unique"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/topics"
)

// versionDir is one library version directory as the catalog lists it. It
// reads its manifest, verifies and opens lazily, once: a catalog of 50,000
// versions loads without reading any of them. Only damage is sticky: a
// manifest missing or for another version, a file missing at
// verification, a checksum mismatch, an unknown format or a corrupt file
// refuses the version for as long as the versionDir lives. Any other
// failure (too many open files, an I/O error, a file briefly away after it
// was verified) is returned to the request that met it, and the next
// request tries again. States share a versionDir while the catalog lists
// the same build of it (see reusable).
//
// Nothing that hashes or opens files holds a lock that Status needs: the
// refusal and the opened flag are atomics.
type versionDir struct {
	dir, rel         string // rel as the catalog lists it
	library, version string // as the catalog lists them
	// expect is the sha256 of manifest.json the catalog lists, "" when it
	// lists none (a catalog written before it did).
	expect string
	users  atomic.Int32 // states holding the versionDir

	// desc is what the manifest says, read on first use under dmu. When
	// its sum is not expect, the directory was republished after the
	// catalog was written (a build publishes every version before it
	// writes the catalog): the manifest is the truth.
	dmu  sync.Mutex
	desc atomic.Pointer[description]
	// republished says a request found the directory republished since
	// desc was read: the next load makes a new versionDir for it.
	republished atomic.Bool
	// refusedManifest is the manifest file described refused (zero when
	// there was none); written before the refusal is recorded, read after
	// it is seen (see reusable).
	refusedManifest catalogID

	refused atomic.Pointer[error] // why the version is refused; set once, never cleared
	// refusals counts the refusals of every versionDir of the Loader
	// (nil in tests that make a versionDir alone), so that Status looks for
	// versions refused since a load only when there is one.
	refusals    *atomic.Int64
	opened      atomic.Bool
	manifests   atomic.Int32 // times manifest.json was read to describe it, for tests
	topicsReads atomic.Int32 // times topics.json was read, for tests

	// vmu guards the verification record; it is never held while hashing.
	vmu         sync.Mutex
	verified    []bool // by position in desc.files: those that matched the manifest (nil: none yet)
	verifiedAll bool
	verifying   *checksumPass // the checksum pass under way, or nil
	passes      atomic.Int32  // checksum passes run, for tests

	// mu serializes opening and closing the index. v, elem, pins and
	// closed are written with both mu and the Loader's openSet's mu held,
	// and read with either.
	mu     sync.Mutex
	v      *Version      // the open version, nil when closed or evicted
	elem   *list.Element // v's place in the openSet
	pins   int           // requests holding v
	closed bool          // no Snapshot serves the versionDir: it never opens again
}

// description is what a versionDir's manifest says, as far as serving
// needs it: the manifest's bytes' sha256, which identifies the build, the
// file read, and the files it lists with their checksums.
type description struct {
	sum   string    // sha256 of manifest.json
	mid   catalogID // manifest.json's file, as read (zero if it could not be looked at)
	files fileSums
	// entry is the catalog's entry for the version as the manifest says
	// it, made when the catalog the versionDir was made for lists another
	// build (nil otherwise: most versions, and 50,000 of them are kept).
	entry *artifacts.CatalogVersion
}

// served returns v, the entry the versionDir's catalog lists for the
// version, as the manifest d read says it is: v itself when v lists that
// manifest's sum, the manifest's own account otherwise (the directory was
// republished after the catalog was written). A catalog listing yet
// another build for the same manifest gets a versionDir of its own
// (reusable).
func (d *description) served(v *artifacts.CatalogVersion) *artifacts.CatalogVersion {
	if d == nil || v.Manifest == d.sum || d.entry == nil {
		return v
	}
	return d.entry
}

// newVersionDir is the versionDir of the version v of library l, listed
// in the catalog at vdir; nothing is read.
func newVersionDir(vdir string, l *artifacts.CatalogLib, v *artifacts.CatalogVersion, refusals *atomic.Int64) *versionDir {
	return &versionDir{dir: vdir, rel: v.Path, library: l.ID, version: v.Version, expect: v.Manifest, refusals: refusals}
}

// described returns what the manifest says, reading it on first use. A
// manifest missing, unreadable as one, or for another library version
// refuses the version; a failure of the operating system is returned and
// the next call reads again.
func (sl *versionDir) described() (*description, error) {
	if err := sl.refusal(); err != nil {
		return nil, err
	}
	if d := sl.desc.Load(); d != nil {
		return d, nil
	}
	sl.dmu.Lock()
	defer sl.dmu.Unlock()
	if d := sl.desc.Load(); d != nil {
		return d, nil
	}
	// Refused by the call that held dmu before: refusedManifest is
	// written only before the refusal, never after (reusable reads it).
	if err := sl.refusal(); err != nil {
		return nil, err
	}
	sl.manifests.Add(1)
	m, sum, mid, err := readManifest(sl.dir)
	if err == nil && (!strings.EqualFold(m.Library.ID, sl.library) || m.Version != sl.version) {
		err = fmt.Errorf("%w: manifest is for %s@%s, catalog says %s@%s", artifacts.ErrCorrupt, m.Library.ID, m.Version, sl.library, sl.version)
	}
	if err != nil {
		if permanent(err, true) {
			// The file refused (zero when there was none): a load
			// reuses the refusal only while it is still that file.
			sl.refusedManifest = mid
			sl.refuse(err)
			return nil, sl.refusal()
		}
		return nil, err
	}
	d := &description{sum: sum, mid: mid, files: newFileSums(m.Files)}
	if sum != sl.expect {
		e := artifacts.NewCatalogVersion(sl.rel, m, sum)
		d.entry = &e
	}
	sl.desc.Store(d)
	return d, nil
}

// listedBuild identifies the build for the library index, which must not
// read 50,000 manifests: the sha256 of the manifest read, or before it is
// read, the one the catalog lists (or, when it lists none, the manifest is
// read now). Answers name the build they come from: described's sum.
func (sl *versionDir) listedBuild() (string, error) {
	if d := sl.desc.Load(); d != nil {
		return d.sum, nil
	}
	if sl.expect != "" {
		return sl.expect, nil
	}
	d, err := sl.described()
	if err != nil {
		return "", err
	}
	return d.sum, nil
}

// reusable reports whether a load may serve the versionDir o, of an
// earlier catalog, for the version the catalog lists at vdir with manifest
// sum want ("" for none), unless a request found it republished. Once o
// read its manifest, that file must still be there (a publish replaces
// the directory, it never rewrites a manifest in place): what is on disk
// is the truth, and a versionDir refused for it stays refused, as long as
// the catalog lists that build or the one o was made for. Before, the
// catalog must list the same build.
func reusable(o *versionDir, vdir, want string) bool {
	if o == nil || o.dir != vdir || o.republished.Load() {
		return false
	}
	if d := o.desc.Load(); d != nil {
		// The catalog lists the build read, or the one o was made for
		// (whose entry o keeps when the two differ).
		if want != d.sum && want != o.expect {
			return false
		}
		mid, err := statManifest(vdir)
		return err == nil && d.mid != (catalogID{}) && mid == d.mid
	}
	if o.refusal() != nil {
		// Refused for its manifest: as long as it is the same file, or
		// still none (a pull that installs a good copy with the same
		// bytes replaces the file).
		mid, err := statManifest(vdir)
		if err != nil {
			return o.refusedManifest == (catalogID{})
		}
		return o.refusedManifest != (catalogID{}) && mid == o.refusedManifest
	}
	return o.expect == want
}

// checksumPass is one checksum pass of a versionDir; requests that need it meanwhile
// wait for its result instead of hashing the same files again.
type checksumPass struct {
	done chan struct{}
	err  error // set before done is closed
}

// Version is one opened library version: its index, topic tree and, read
// on first use, its documents. It is shared by the requests of every
// Snapshot that serves it, and safe for concurrent use.
type Version struct {
	sl     *versionDir // the directory it was opened from
	reader *index.Reader
	tree   *topics.Tree
	slugs  map[string]bool

	// documents.json is read on first use (paths, outlines, listings):
	// searches never need it, and it is the largest thing a version holds.
	dir      string
	docsSum  [sha256.Size]byte // its sha256, from the manifest
	stale    func() bool       // whether the directory was republished since
	docsMu   sync.Mutex
	docsRead bool
	docs     []artifacts.DocumentInfo // sorted by path
	docsErr  error                    // a lasting failure to read them
}

// Tree returns the version's topic tree; it is shared and must not be
// modified.
func (v *Version) Tree() *topics.Tree { return v.tree }

// HasTopic reports whether slug is a category or topic of the version's
// tree.
func (v *Version) HasTopic(slug string) bool { return v.slugs[slug] }

// Documents returns the version's documents, sorted by path. They are
// checked against the manifest as they are read: if the directory was
// republished since the version opened, the error wraps ErrStale. A
// damaged file fails every call; any other failure is retried by the next.
func (v *Version) Documents() ([]artifacts.DocumentInfo, error) {
	v.docsMu.Lock()
	defer v.docsMu.Unlock()
	if v.docsRead || v.docsErr != nil {
		return v.docs, v.docsErr
	}
	data, err := os.ReadFile(filepath.Join(v.dir, artifacts.DocumentsFile))
	if err == nil {
		if sha256.Sum256(data) != v.docsSum {
			err = fmt.Errorf("%s: %w", artifacts.DocumentsFile, artifacts.ErrChecksum)
		}
	}
	if err == nil {
		var d artifacts.Documents
		if jerr := json.Unmarshal(data, &d); jerr != nil {
			err = fmt.Errorf("%s: %w: %v", artifacts.DocumentsFile, artifacts.ErrCorrupt, jerr)
		} else {
			sort.Slice(d.Documents, func(i, j int) bool { return d.Documents[i].Path < d.Documents[j].Path })
			internDocuments(d.Documents)
			v.docs, v.docsRead = d.Documents, true
			return v.docs, nil
		}
	}
	err = v.check(err, artifacts.DocumentsFile)
	// Damage is kept: the version is refused. A republish and a passing
	// shortage (descriptors, memory) are not: the next call reads again.
	if d := (*damaged)(nil); !errors.Is(err, ErrStale) && !(errors.As(err, &d) && d.passing) {
		v.docsErr = err
	}
	return nil, err
}

// readManifest reads dir's manifest, checked against its own checksum,
// and returns it with the sha256 of its bytes, which identifies the build,
// and the identity of the file read (zero if it could not be looked at).
func readManifest(dir string) (*artifacts.Manifest, string, catalogID, error) {
	p := filepath.Join(dir, artifacts.ManifestFile)
	data, mid, err := readFileID(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", mid, fmt.Errorf("%s: %w", artifacts.ManifestFile, artifacts.ErrMissing)
		}
		return nil, "", mid, err
	}
	m, err := artifacts.ParseManifest(data)
	if err != nil {
		return nil, "", mid, fmt.Errorf("%s: %w", artifacts.ManifestFile, err)
	}
	for _, f := range []string{artifacts.TopicsFile, artifacts.DocumentsFile} {
		if m.Files[f] == "" {
			return nil, "", mid, fmt.Errorf("%s: %w: %s not listed", artifacts.ManifestFile, artifacts.ErrCorrupt, f)
		}
	}
	sum := sha256.Sum256(data)
	return m, hex.EncodeToString(sum[:]), mid, nil
}

// readFileID reads the file at p whole, as os.ReadFile does, and returns
// with it the identity of the file read (inode, size and modification
// time, from the open file: no second look up of p).
func readFileID(p string) ([]byte, catalogID, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, catalogID{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, catalogID{}, err
	}
	id := catalogID{ino: fileIndex(p, fi), size: fi.Size(), mtime: fi.ModTime()}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, id, nil
		}
		if err != nil {
			return nil, id, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // grown since the stat: read on
		}
	}
}

// manifestSum returns the sha256 of dir's manifest.json as it is now.
func manifestSum(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, artifacts.ManifestFile))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// fileSums are the files of a manifest and their sha256, sorted by name.
// A catalog of 50,000 versions holds one per version: names are interned
// (every version names the same few files) and sums kept as 32 bytes,
// not as the 64 hex digits (and a map entry) of the manifest.
type fileSums struct {
	names []string
	sums  [][sha256.Size]byte
}

// newFileSums compacts a manifest's files. A checksum that is not 64 hex
// digits is kept as zeros, which no file matches (a file whose sha256 is
// zero would be a preimage of sha256): the version is refused as damaged
// when that file is verified, as it was when sums were compared as text.
func newFileSums(files map[string]string) fileSums {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	fs := fileSums{names: names, sums: make([][sha256.Size]byte, len(names))}
	for i, name := range names {
		if b, err := hex.DecodeString(files[name]); err == nil && len(b) == sha256.Size {
			copy(fs.sums[i][:], b)
		}
		names[i] = unique.Make(name).Value()
	}
	return fs
}

// sumOf returns the manifest's sha256 of name, zeros when it lists none.
func (fs *fileSums) sumOf(name string) [sha256.Size]byte {
	if i := fs.find(name); i >= 0 {
		return fs.sums[i]
	}
	return [sha256.Size]byte{}
}

// find returns the position of name in fs, or -1.
func (fs *fileSums) find(name string) int {
	if i, ok := slices.BinarySearch(fs.names, name); ok {
		return i
	}
	return -1
}

// matches reports whether sum is the manifest's sha256 of name (false
// for a file the manifest does not list).
func (fs *fileSums) matches(name string, sum [sha256.Size]byte) bool {
	i := fs.find(name)
	return i >= 0 && sum != [sha256.Size]byte{} && fs.sums[i] == sum
}

// permanent reports whether err means the version's artifacts are damaged,
// so that trying again cannot help: a checksum mismatch, an unknown format,
// a corrupt file or store, or (when verifying is set, that is when the
// manifest's files are being checked) a file missing. A failure of the
// operating system (EMFILE, EIO, ENOENT on a file that passed verification)
// is not, even when a reader reports it as corruption.
func permanent(err error, verifying bool) bool {
	switch {
	case transient(err):
		return false
	case errors.Is(err, artifacts.ErrMissing):
		return verifying
	}
	return errors.Is(err, artifacts.ErrChecksum) || errors.Is(err, artifacts.ErrFormatVersion) ||
		errors.Is(err, artifacts.ErrCorrupt) || errors.Is(err, index.ErrCorruptStore) ||
		errors.Is(err, index.ErrUnrankable)
}

// transient reports whether err is a failure of the operating system
// (EMFILE, EIO, ENOENT…) rather than a fault of the artifacts, so that the
// same operation may succeed later.
func transient(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno)
}

// refusal returns why the versionDir is refused, or nil. It takes no lock.
func (sl *versionDir) refusal() error {
	if p := sl.refused.Load(); p != nil {
		return *p
	}
	return nil
}

func (sl *versionDir) isOpen() bool { return sl.opened.Load() }

// refuse records err as why the versionDir is refused, unless it already
// is.
func (sl *versionDir) refuse(err error) {
	if sl.refused.CompareAndSwap(nil, &err) && sl.refusals != nil {
		sl.refusals.Add(1)
	}
}

// fail returns err met using the versionDir's files, and records it as the
// versionDir's refusal when it is permanent (see permanent). If the directory
// was republished meanwhile, the error wraps ErrStale instead and nothing
// is recorded: the new build deserves its own check.
func (sl *versionDir) fail(err error, verifying bool) error {
	if d := sl.desc.Load(); d != nil {
		if sum, merr := manifestSum(sl.dir); merr == nil && sum != d.sum {
			sl.republished.Store(true)
			return fmt.Errorf("%w: %v", ErrStale, err)
		}
	}
	if permanent(err, verifying) {
		sl.refuse(err)
		return sl.refusal()
	}
	return err
}

// checkManifest reads the manifest again: ErrStale if it changed since d
// was read from it (a build republished the directory), the read error if
// it cannot be read now. The same file as read then (inode, size and
// modification time) is unchanged without being read: a publish replaces
// the directory, it never rewrites a manifest in place.
func (sl *versionDir) checkManifest(d *description) error {
	if d.mid != (catalogID{}) {
		if mid, err := statManifest(sl.dir); err == nil && mid == d.mid {
			return nil
		}
	}
	sum, err := manifestSum(sl.dir)
	if err != nil {
		return err
	}
	if sum != d.sum {
		sl.republished.Store(true)
		return ErrStale
	}
	return nil
}

// topics reads the version's topic tree, verifying topics.json the first
// time. The file is read once per call, for its checksum and its tree; the
// tree is not kept (an open Version keeps its own).
func (sl *versionDir) topics() (*topics.Tree, error) {
	d, err := sl.described()
	if err != nil {
		return nil, err
	}
	name := artifacts.TopicsFile
	sl.topicsReads.Add(1)
	data, err := os.ReadFile(filepath.Join(sl.dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, sl.fail(fmt.Errorf("%s: %w", name, artifacts.ErrMissing), true)
	} else if err != nil {
		return nil, sl.fail(fmt.Errorf("%s: %w", name, err), true)
	}
	sl.vmu.Lock()
	done := sl.isVerified(name)
	sl.vmu.Unlock()
	if !done {
		if !d.files.matches(name, sha256.Sum256(data)) {
			return nil, sl.fail(fmt.Errorf("%s: %w", name, artifacts.ErrChecksum), true)
		}
		sl.vmu.Lock()
		sl.markVerified(name)
		sl.vmu.Unlock()
	}
	tree := &topics.Tree{}
	if err := json.Unmarshal(data, tree); err != nil {
		return nil, sl.fail(fmt.Errorf("%s: %w: %v", filepath.Join(sl.dir, name), artifacts.ErrCorrupt, err), false)
	}
	// The file verified may not be the file read, if a build republished
	// the directory in between: then the manifest changed too.
	if err := sl.checkManifest(d); err != nil {
		return nil, err
	}
	return tree, nil
}

// verify checksums every file of the version once. It is safe to call
// concurrently: one caller hashes, the others wait for its result. No lock
// is held while hashing.
func (sl *versionDir) verify() error {
	d, err := sl.described()
	if err != nil {
		return err
	}
	sl.vmu.Lock()
	if sl.verifiedAll {
		sl.vmu.Unlock()
		return nil
	}
	if f := sl.verifying; f != nil {
		sl.vmu.Unlock()
		<-f.done
		return f.err
	}
	f := &checksumPass{done: make(chan struct{})}
	sl.verifying = f
	sl.passes.Add(1)
	var todo []string
	for _, name := range d.files.names {
		if !sl.isVerified(name) {
			todo = append(todo, name)
		}
	}
	sl.vmu.Unlock()

	var ok []string
	for _, name := range todo {
		if err = sl.hashFile(d, name); err != nil {
			err = sl.fail(err, true)
			break
		}
		ok = append(ok, name)
	}
	sl.vmu.Lock()
	sl.markVerified(ok...)
	if sl.verifiedAll = err == nil; sl.verifiedAll {
		sl.verified = nil // every file is: 50,000 versions need not say which
	}
	sl.verifying = nil
	sl.vmu.Unlock()
	f.err = err
	close(f.done)
	return err
}

// markVerified records files that matched the manifest; sl.vmu is held
// and sl described.
func (sl *versionDir) markVerified(names ...string) {
	if sl.verifiedAll || len(names) == 0 {
		return
	}
	files := &sl.desc.Load().files
	if sl.verified == nil {
		sl.verified = make([]bool, len(files.names))
	}
	for _, name := range names {
		if i := files.find(name); i >= 0 {
			sl.verified[i] = true
		}
	}
}

// isVerified reports whether the file name matched the manifest; sl.vmu
// is held and sl described.
func (sl *versionDir) isVerified(name string) bool {
	if sl.verifiedAll {
		return true
	}
	i := sl.desc.Load().files.find(name)
	return i >= 0 && sl.verified != nil && sl.verified[i]
}

// smallFile is the size below which hashFile reads a file whole.
const smallFile = 32 << 10

// hashFile checks one file against the manifest d describes, taking no
// lock. A file not there is artifacts.ErrMissing, one that differs
// artifacts.ErrChecksum; other errors are the operating system's.
func (sl *versionDir) hashFile(d *description, name string) error {
	f, err := os.Open(filepath.Join(sl.dir, filepath.FromSlash(name)))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", name, artifacts.ErrMissing)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	// A small file is read whole into a buffer of its size: io.Copy
	// would allocate 32 KB for each, and a load or checksum pass hashes
	// tens of thousands of small files.
	if fi, err := f.Stat(); err == nil && fi.Size() < smallFile {
		data, err := io.ReadAll(io.LimitReader(f, smallFile+1))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		h.Write(data)
	} else if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var got [sha256.Size]byte
	h.Sum(got[:0])
	if !d.files.matches(name, got) {
		return fmt.Errorf("%s: %w", name, artifacts.ErrChecksum)
	}
	return nil
}

// open verifies and opens the version, or finds it open, and returns it
// pinned in set: it stays open until set.release(sl). Concurrent callers
// share one opening. A version evicted from set opens again without being
// checksummed again: what was verified stays verified for as long as the
// versionDir (its manifest) lives. The manifest is read again before and
// after opening: if the directory was republished in between, nothing
// opened is kept and ErrStale says to retry on a fresh state, so an answer
// never mixes two builds. A failure that is not damage is returned without
// being recorded, and the next call tries again.
func (sl *versionDir) open(cache *index.Cache, set *openSet) (*Version, error) {
	if err := sl.refusal(); err != nil {
		return nil, err // damaged since it opened (see check)
	}
	if v, err, ok := set.pin(sl); ok {
		return v, err
	}
	if err := sl.verify(); err != nil {
		return nil, err
	}
	d := sl.desc.Load() // verified, so described
	tree, err := sl.topics()
	if err != nil {
		return nil, err
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if v, err, ok := set.pin(sl); ok {
		return v, err
	}
	if err := sl.checkManifest(d); err != nil {
		return nil, err
	}
	reader, err := index.OpenCached(filepath.Join(sl.dir, artifacts.IndexDir), cache)
	if err != nil {
		return nil, sl.fail(err, false)
	}
	if err := sl.checkManifest(d); err != nil {
		reader.Close()
		return nil, err
	}
	v := &Version{sl: sl, reader: reader, tree: tree, slugs: map[string]bool{}, dir: sl.dir, docsSum: d.files.sumOf(artifacts.DocumentsFile),
		stale: func() bool {
			sum, err := manifestSum(sl.dir)
			if err == nil && sum != d.sum {
				sl.republished.Store(true)
				return true
			}
			return false
		}}
	for _, s := range tree.Slugs() {
		v.slugs[s] = true
	}
	set.add(sl, v)
	return v, nil
}

// close closes the index for good: no Snapshot serves the versionDir, so
// no request holds it and it cannot open again.
func (sl *versionDir) close(set *openSet) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if v := set.remove(sl); v != nil {
		v.reader.Close()
	}
}

// internDocuments makes equal topic slugs and outline strings of docs
// share one copy: the JSON decoder gives every occurrence its own, and a
// library of 38,000 pages repeats the same few dozen topics throughout.
func internDocuments(docs []artifacts.DocumentInfo) {
	seen := map[string]string{}
	intern := func(s string) string {
		if t, ok := seen[s]; ok {
			return t
		}
		seen[s] = s
		return s
	}
	for i := range docs {
		d := &docs[i]
		for j, t := range d.Topics {
			d.Topics[j] = intern(t)
		}
		for j := range d.Outline {
			d.Outline[j].Anchor = intern(d.Outline[j].Anchor)
			d.Outline[j].Title = intern(d.Outline[j].Title)
			d.Outline[j].Source = intern(d.Outline[j].Source)
		}
		d.Topics = slices.Clip(d.Topics)
		d.Outline = slices.Clip(d.Outline)
	}
}

// reason is err's message for people: the version directory dir is left
// out of the paths in it, so that no server path reaches an agent.
func reason(err error, dir string) string {
	msg := err.Error()
	if dir == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
	return strings.ReplaceAll(msg, dir, ".")
}
