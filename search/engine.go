// Package search is Codex7's search engine over published artifacts: it
// resolves what agents send as a library id (normalized, with an explicit
// version honoured or refused, never silently replaced), checks topics
// against the version's topic tree, and ranks sections through the
// version's index. The CLI, the MCP tools and the HTTP API all use it.
package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/topics"
)

// Errors callers branch on (errors.Is); the errors returned also say what
// exists, for messages to agents.
var (
	// ErrLibraryNotFound means no built library matches the id.
	ErrLibraryNotFound = errors.New("library not found")
	// ErrVersionNotFound means the library exists but not at that version.
	ErrVersionNotFound = errors.New("version not found")
	// ErrTopicNotFound means a topic names nothing in the version's tree.
	ErrTopicNotFound = errors.New("topic not found")
	// ErrInvalidPath means a path that could leave the library: absolute,
	// with "..", backslashes or control characters.
	ErrInvalidPath = errors.New("invalid path")
	// ErrDocumentNotFound means no document or folder has that path.
	ErrDocumentNotFound = errors.New("document not found")
	// ErrInvalidMode means a mode other than "info" or "code".
	ErrInvalidMode = errors.New(`invalid mode: use "info" (prose) or "code" (examples)`)
)

// Modes of a search: prose sections or code examples.
const (
	ModeInfo = index.KindInfo
	ModeCode = index.KindCode
)

// LibraryError is ErrLibraryNotFound with the closest ids that exist.
type LibraryError struct {
	Key     string
	Closest []string
}

func (e *LibraryError) Error() string {
	msg := fmt.Sprintf("%s: %q", ErrLibraryNotFound, e.Key)
	if len(e.Closest) > 0 {
		msg += "; closest: " + strings.Join(e.Closest, ", ")
	}
	return msg
}

func (e *LibraryError) Unwrap() error { return ErrLibraryNotFound }

// VersionError is ErrVersionNotFound with the versions that are built.
type VersionError struct {
	Library, Version string
	Available        []string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s: %s has no version %q; built versions: %s", ErrVersionNotFound, e.Library, e.Version, strings.Join(e.Available, ", "))
}

func (e *VersionError) Unwrap() error { return ErrVersionNotFound }

// TopicError is ErrTopicNotFound with the topics that exist.
type TopicError struct {
	Topics    []string
	Available []string
}

func (e *TopicError) Error() string {
	return fmt.Sprintf("%s: %s; this version has: %s", ErrTopicNotFound, strings.Join(e.Topics, ", "), strings.Join(e.Available, ", "))
}

func (e *TopicError) Unwrap() error { return ErrTopicNotFound }

// Engine searches one artifact directory read-only. It is safe for
// concurrent use; indexes open on first use and stay open until Close.
type Engine struct {
	dir     string
	catalog *artifacts.Catalog

	mu       sync.Mutex
	versions map[string]*slot // by path

	libsOnce sync.Once
	libs     *libraryIndex
}

// slot holds one library version, opened once; its own lock keeps a slow
// first open (documents.json, the index) from stalling other versions.
type slot struct {
	mu sync.Mutex
	v  *version
}

// version is one opened library version.
type version struct {
	reader *index.Reader
	tree   *topics.Tree
	slugs  map[string]bool
	docs   []artifacts.DocumentInfo // sorted by path
}

// Open reads the catalog of the artifact directory dir.
func Open(dir string) (*Engine, error) {
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		return nil, err
	}
	return &Engine{dir: dir, catalog: cat, versions: map[string]*slot{}}, nil
}

// Close closes every open index.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for _, sl := range e.versions {
		sl.mu.Lock()
		if sl.v != nil {
			errs = append(errs, sl.v.reader.Close())
			sl.v = nil
		}
		sl.mu.Unlock()
	}
	e.versions = map[string]*slot{}
	return errors.Join(errs...)
}

// Catalog returns the catalog the engine serves; callers must not modify it.
func (e *Engine) Catalog() *artifacts.Catalog { return e.catalog }

// Resolved is a library version an id resolved to.
type Resolved struct {
	Library *artifacts.CatalogLib
	Version *artifacts.CatalogVersion
}

// Resolve finds the library version an agent's id names. An id without a
// version gets the library's latest; an explicit version that is not built
// is a *VersionError, never replaced by another. A bare name ("fastapi")
// matches a library's project name, title or alias.
func (e *Engine) Resolve(id string) (*Resolved, error) {
	key, err := ParseKey(id)
	if err != nil {
		return nil, err
	}
	lib := e.findLibrary(key)
	if lib == nil {
		return nil, &LibraryError{Key: key.String(), Closest: e.closest(key)}
	}
	name := key.Version
	if name == "" {
		name = lib.Latest
	}
	v := lib.Version(name)
	if v == nil {
		var names []string
		for _, x := range lib.Versions {
			names = append(names, x.Version)
		}
		return nil, &VersionError{Library: lib.ID, Version: name, Available: names}
	}
	return &Resolved{Library: lib, Version: v}, nil
}

func (e *Engine) findLibrary(key Key) *artifacts.CatalogLib {
	if key.ID != "" {
		return e.catalog.Library(key.ID)
	}
	want := strings.ToLower(key.Name)
	for i := range e.catalog.Libraries {
		l := &e.catalog.Libraries[i]
		if strings.ToLower(l.ID[strings.LastIndex(l.ID, "/")+1:]) == want || strings.ToLower(l.Title) == want {
			return l
		}
		for _, a := range l.Aliases {
			if strings.ToLower(a) == want {
				return l
			}
		}
	}
	return nil
}

// closest suggests up to three library ids sharing the most with key.
func (e *Engine) closest(key Key) []string {
	want := strings.ToLower(key.ID + " " + key.Name)
	type scored struct {
		id    string
		score int
	}
	var all []scored
	for _, l := range e.catalog.Libraries {
		s := 0
		for _, part := range strings.FieldsFunc(strings.ToLower(l.ID+" "+l.Title+" "+strings.Join(l.Aliases, " ")), func(r rune) bool { return r == '/' || r == ' ' || r == '-' || r == '.' }) {
			if len(part) > 1 && strings.Contains(want, part) {
				s += len(part)
			}
		}
		all = append(all, scored{l.ID, s})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var out []string
	for _, s := range all {
		if len(out) == 3 || (s.score == 0 && len(out) > 0) {
			break
		}
		out = append(out, s.id)
	}
	return out
}

// open returns the opened library version, opening it on first use. A
// failed open is not remembered: the next request tries again.
func (e *Engine) open(r *Resolved) (*version, error) {
	e.mu.Lock()
	sl := e.versions[r.Version.Path]
	if sl == nil {
		sl = &slot{}
		e.versions[r.Version.Path] = sl
	}
	e.mu.Unlock()
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.v != nil {
		return sl.v, nil
	}
	dir := filepath.Join(e.dir, filepath.FromSlash(r.Version.Path))
	tree, err := artifacts.ReadTopics(dir)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", r.Library.ID, r.Version.Version, err)
	}
	reader, err := index.Open(filepath.Join(dir, artifacts.IndexDir))
	if err != nil {
		return nil, fmt.Errorf("%s@%s: %w", r.Library.ID, r.Version.Version, err)
	}
	docs, err := artifacts.ReadDocuments(dir)
	if err != nil {
		reader.Close()
		return nil, fmt.Errorf("%s@%s: %w", r.Library.ID, r.Version.Version, err)
	}
	v := &version{reader: reader, tree: tree, slugs: map[string]bool{}, docs: docs}
	for _, s := range tree.Slugs() {
		v.slugs[s] = true
	}
	sl.v = v
	return v, nil
}

// Request is one search.
type Request struct {
	// Library is an agent's library id ("/org/project", "org/project@v1", a URL…).
	Library string
	Query   string
	// Topics keeps sections tagged with any of them (names or slugs).
	Topics []string
	// Limit is the number of hits (default 10).
	Limit int
	// WithText fills each hit's Text.
	WithText bool
	// Mode keeps only prose ("info") or only sections with code examples
	// ("code"); empty keeps both.
	Mode string
}

// Result is a search's answer, with the provenance of every hit.
type Result struct {
	Library string
	Version string
	Commit  string
	Hits    []index.Hit
	// TopicsCapped says the request named more topics than are used.
	TopicsCapped bool
}

// Search resolves req.Library and ranks the version's sections.
func (e *Engine) Search(ctx context.Context, req Request) (*Result, error) {
	mode := strings.ToLower(strings.TrimSpace(req.Mode))
	if mode != "" && mode != ModeInfo && mode != ModeCode {
		return nil, fmt.Errorf("%w (got %q)", ErrInvalidMode, req.Mode)
	}
	r, err := e.Resolve(req.Library)
	if err != nil {
		return nil, err
	}
	v, err := e.open(r)
	if err != nil {
		return nil, err
	}
	names, capped := NormalizeTopics(req.Topics)
	var slugs, unknown []string
	for _, t := range names {
		if s := topics.Slug(t); v.slugs[s] {
			slugs = append(slugs, s)
		} else {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		return nil, &TopicError{Topics: unknown, Available: v.tree.Slugs()}
	}
	query := prepareQuery(req.Query, r.Library)
	if query == "" && len(slugs) == 0 {
		return nil, index.ErrEmptyQuery
	}
	hits, err := v.reader.Search(ctx, index.Query{Text: query, Topics: slugs, Kind: mode, Limit: req.Limit, WithText: req.WithText})
	if err != nil {
		return nil, err
	}
	return &Result{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Hits: hits, TopicsCapped: capped}, nil
}

// Topics returns the topic tree of the library version id names (the
// latest when id has no version). The tree is shared: callers must not
// modify it.
func (e *Engine) Topics(ctx context.Context, id string) (*Resolved, *topics.Tree, error) {
	r, err := e.Resolve(id)
	if err != nil {
		return nil, nil, err
	}
	v, err := e.open(r)
	if err != nil {
		return nil, nil, err
	}
	return r, v.tree, nil
}

// Documents returns the documents of the library version id names, sorted
// by path. The slice is shared: callers must not modify it.
func (e *Engine) Documents(ctx context.Context, id string) (*Resolved, []artifacts.DocumentInfo, error) {
	r, err := e.Resolve(id)
	if err != nil {
		return nil, nil, err
	}
	v, err := e.open(r)
	if err != nil {
		return nil, nil, err
	}
	return r, v.docs, nil
}
