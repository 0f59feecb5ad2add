package search

import (
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
	"sync"
	"sync/atomic"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/topics"
)

// errStale means a version directory changed on disk after its manifest
// was loaded: a build republished it. The engine reloads and retries.
var errStale = errors.New("version directory republished since the catalog was loaded")

// slot is one library version directory as one manifest describes it. It
// verifies and opens lazily, once; a failure to verify is sticky (the
// version is refused) while a failure to open is retried by the next
// request. States share a slot while its manifest is unchanged.
type slot struct {
	key              string // path and manifest checksum
	dir              string
	sum              string // sha256 of manifest.json
	library, version string
	manifest         *artifacts.Manifest
	users            atomic.Int32 // states holding the slot

	mu       sync.Mutex
	tree     *topics.Tree
	verified map[string]bool // files checked against the manifest
	err      error           // why the version is refused, sticky
	v        *version
	closed   bool
	opened   atomic.Bool
}

// version is one opened library version.
type version struct {
	reader *index.Reader
	tree   *topics.Tree
	slugs  map[string]bool

	// documents.json is read on first use (paths, outlines, listings):
	// searches never need it, and it is the largest thing a version holds.
	dir      string
	docsSum  string      // its sha256, from the manifest
	stale    func() bool // whether the directory was republished since
	docsOnce sync.Once
	docs     []artifacts.DocumentInfo // sorted by path
	docsErr  error
}

// documents returns the version's documents, sorted by path. They are
// checked against the manifest as they are read: if the directory was
// republished since the version opened, the error wraps errStale.
func (v *version) documents() ([]artifacts.DocumentInfo, error) {
	v.docsOnce.Do(func() {
		data, err := os.ReadFile(filepath.Join(v.dir, artifacts.DocumentsFile))
		if err == nil {
			if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != v.docsSum {
				err = fmt.Errorf("%s: %w", artifacts.DocumentsFile, artifacts.ErrChecksum)
			}
		}
		if err != nil {
			if v.stale() {
				err = fmt.Errorf("%w: %v", errStale, err)
			}
			v.docsErr = err
			return
		}
		var d artifacts.Documents
		if err := json.Unmarshal(data, &d); err != nil {
			v.docsErr = fmt.Errorf("%s: %w: %v", artifacts.DocumentsFile, artifacts.ErrCorrupt, err)
			return
		}
		sort.Slice(d.Documents, func(i, j int) bool { return d.Documents[i].Path < d.Documents[j].Path })
		internDocuments(d.Documents)
		v.docs = d.Documents
	})
	return v.docs, v.docsErr
}

// readManifest reads dir's manifest and returns it with the sha256 of its
// bytes, which identifies the build.
func readManifest(dir string) (*artifacts.Manifest, string, error) {
	data, err := os.ReadFile(filepath.Join(dir, artifacts.ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("%s: %w", artifacts.ManifestFile, artifacts.ErrMissing)
		}
		return nil, "", err
	}
	var m artifacts.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("%s: %w: %v", artifacts.ManifestFile, artifacts.ErrCorrupt, err)
	}
	if m.FormatVersion != artifacts.FormatVersion {
		return nil, "", fmt.Errorf("%s: %w %d (this server reads %d): rebuild with this indexer", artifacts.ManifestFile, artifacts.ErrFormatVersion, m.FormatVersion, artifacts.FormatVersion)
	}
	for _, f := range []string{artifacts.TopicsFile, artifacts.DocumentsFile} {
		if m.Files[f] == "" {
			return nil, "", fmt.Errorf("%s: %w: %s not listed", artifacts.ManifestFile, artifacts.ErrCorrupt, f)
		}
	}
	sum := sha256.Sum256(data)
	return &m, hex.EncodeToString(sum[:]), nil
}

// checkFilesPresent is the cheap check done at load: every file the
// manifest lists exists.
func checkFilesPresent(dir string, m *artifacts.Manifest) error {
	for _, name := range sortedFiles(m) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("%s: %w", name, artifacts.ErrMissing)
		}
	}
	return nil
}

func sortedFiles(m *artifacts.Manifest) []string {
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// refusal returns why the slot is refused, or nil.
func (sl *slot) refusal() error {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.err
}

func (sl *slot) isOpen() bool { return sl.opened.Load() }

// topics returns the version's topic tree, verifying topics.json first.
func (sl *slot) topics() (*topics.Tree, error) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.err != nil {
		return nil, sl.err
	}
	if sl.tree != nil {
		return sl.tree, nil
	}
	if err := sl.verifyFile(artifacts.TopicsFile); err != nil {
		return nil, sl.fail(err)
	}
	tree, err := artifacts.ReadTopics(sl.dir)
	if err != nil {
		return nil, sl.fail(err)
	}
	sl.tree = tree
	return tree, nil
}

// verify checksums every file of the version once.
func (sl *slot) verify() error {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.verifyLocked()
}

func (sl *slot) verifyLocked() error {
	if sl.err != nil {
		return sl.err
	}
	for _, name := range sortedFiles(sl.manifest) {
		if err := sl.verifyFile(name); err != nil {
			return sl.fail(err)
		}
	}
	return nil
}

// fail records err as the slot's refusal, unless the directory was
// republished (then the new build deserves its own check). sl.mu is held.
func (sl *slot) fail(err error) error {
	if _, sum, merr := readManifest(sl.dir); merr == nil && sum != sl.sum {
		return fmt.Errorf("%w: %v", errStale, err)
	}
	sl.err = err
	return err
}

// verifyFile checks one file against the manifest; sl.mu is held.
func (sl *slot) verifyFile(name string) error {
	if sl.verified[name] {
		return nil
	}
	f, err := os.Open(filepath.Join(sl.dir, filepath.FromSlash(name)))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", name, artifacts.ErrMissing)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sl.manifest.Files[name] {
		return fmt.Errorf("%s: %w", name, artifacts.ErrChecksum)
	}
	if sl.verified == nil {
		sl.verified = map[string]bool{}
	}
	sl.verified[name] = true
	return nil
}

// open verifies and opens the version on first use. The manifest is read
// again before and after opening: if the directory was republished in
// between, nothing opened is kept and errStale says to retry on a fresh
// state, so an answer never mixes two builds.
func (sl *slot) open(cache *index.Cache) (*version, error) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.v != nil {
		return sl.v, nil
	}
	if sl.closed {
		return nil, errStale
	}
	if err := sl.verifyLocked(); err != nil {
		return nil, err
	}
	if _, sum, err := readManifest(sl.dir); err != nil || sum != sl.sum {
		return nil, errStale
	}
	tree := sl.tree
	if tree == nil {
		var err error
		if tree, err = artifacts.ReadTopics(sl.dir); err != nil {
			return nil, sl.fail(err)
		}
	}
	reader, err := index.OpenCached(filepath.Join(sl.dir, artifacts.IndexDir), cache)
	if err != nil {
		return nil, sl.fail(err)
	}
	if _, sum, err := readManifest(sl.dir); err != nil || sum != sl.sum {
		reader.Close()
		return nil, errStale
	}
	v := &version{reader: reader, tree: tree, slugs: map[string]bool{}, dir: sl.dir, docsSum: sl.manifest.Files[artifacts.DocumentsFile],
		stale: func() bool {
			_, sum, err := readManifest(sl.dir)
			return err != nil || sum != sl.sum
		}}
	for _, s := range tree.Slugs() {
		v.slugs[s] = true
	}
	sl.tree, sl.v = tree, v
	sl.opened.Store(true)
	return v, nil
}

// close closes the index; the slot cannot open again.
func (sl *slot) close() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.closed = true
	if sl.v != nil {
		sl.v.reader.Close()
		sl.v = nil
		sl.opened.Store(false)
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
		}
		d.Topics = slices.Clip(d.Topics)
		d.Outline = slices.Clip(d.Outline)
	}
}
