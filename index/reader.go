package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"
)

// Errors callers branch on (errors.Is).
var (
	// ErrEmptyQuery means a search had neither text nor topics to go on.
	ErrEmptyQuery = errors.New("empty query: give query text or topics")
	// ErrUnrankable means Open found an index whose segment the ranker
	// cannot read: not the one segment without deletions that Write
	// makes, or written or read by a bluge or ice release other than the
	// one segment.go names. The error says which. Serving it is not an
	// option: the index has no other ranking. Rebuild the version with
	// this indexer, or, after a bluge upgrade, update segment.go.
	ErrUnrankable = errors.New("index not rankable")
)

// Reader searches one index read-only. It is safe for concurrent use.
type Reader struct {
	// r holds the index's one segment open for ranker; r, store and
	// ranker are nil for an index of no sections.
	r     *bluge.Reader
	store *storeReader
	prose *analysis.Analyzer
	// ranker finds sections: it ranks free text and applies filters.
	ranker *rankIndex
}

// Open opens the index in dir read-only, with a cache of its own. Its
// error wraps ErrUnrankable when the index is not one the ranker reads
// (see ErrUnrankable), and ErrCorruptStore when its store is damaged.
func Open(dir string) (*Reader, error) {
	return OpenCached(dir, NewCache(0))
}

// OpenCached opens the index in dir read-only, keeping text blocks in cache
// (which may be shared by many readers).
func OpenCached(dir string, cache *Cache) (*Reader, error) {
	return open(dir, cache, releaseFiles)
}

// releaseFiles says whether a Reader reads its files into memory when it
// opens and keeps no handle on them. Windows refuses to rename a directory
// while a file in it is open or mapped, so a server holding a version open
// would make every build that replaces that version fail (artifacts'
// exchange renames the version's directory); there a Reader costs its
// index's size in memory instead. Elsewhere files are mapped and read in
// place, sharing the page cache, and renames proceed under open readers.
const releaseFiles = runtime.GOOS == "windows"

// open is OpenCached, with release in place of releaseFiles.
func open(dir string, cache *Cache, release bool) (*Reader, error) {
	if _, err := os.Stat(filepath.Join(dir, emptyMarker)); err == nil {
		return &Reader{}, nil
	}
	// The errors below name the file: they need not repeat dir.
	store, err := openStore(filepath.Join(dir, storeFile), cache, release)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	r, err := bluge.OpenReader(config(dir, release))
	if err != nil {
		store.close()
		return nil, fmt.Errorf("open index: %w", err)
	}
	ranker, err := newRankIndex(r)
	if err != nil {
		r.Close()
		store.close()
		return nil, fmt.Errorf("open index: %w", err)
	}
	return &Reader{r: r, store: store, prose: cache.prose, ranker: ranker}, nil
}

// Close releases the index's files.
func (r *Reader) Close() error {
	if r.r == nil {
		return nil
	}
	return errors.Join(r.r.Close(), r.store.close())
}

// Count returns the number of sections in the index.
func (r *Reader) Count() (uint64, error) {
	if r.r == nil {
		return 0, nil
	}
	return r.r.Count()
}

// Query is a search over one index.
type Query struct {
	// Text is free text ranked with BM25 over the weighted fields.
	Text string
	// Topics keeps only sections tagged with any of these slugs.
	Topics []string
	// Kind keeps only sections of this kind ("info" or "code") when set.
	Kind string
	// Path keeps only the sections of this document when set.
	Path string
	// Limit is the number of hits wanted (default 10).
	Limit int
	// WithText fills Hit.Text.
	WithText bool
}

// Hit is one section found.
type Hit struct {
	ID string
	// Record is the section's number in the index, for Reader.Text.
	Record uint32
	Meta
	// Score is the raw BM25 score; Relevance is Score divided by the best
	// score of the search, so the top hit has 1, but for a section tied
	// with its page's best (tieOrder): it has the best's relevance, and
	// may rank above it with a lower Score.
	Score     float64
	Relevance float64
	Text      string
}

// Search ranks sections for q. With topics or a path and no text, sections
// all have relevance 1, in index order.
func (r *Reader) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits, _, err := r.SearchCount(ctx, q)
	return hits, err
}

// SearchCount is Search that also returns how many sections match in all,
// beyond the q.Limit returned.
func (r *Reader) SearchCount(ctx context.Context, q Query) ([]Hit, int, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" && len(q.Topics) == 0 && q.Path == "" {
		return nil, 0, ErrEmptyQuery
	}
	if r.r == nil {
		return nil, 0, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	var docs []rankedDoc
	var matched int
	var err error
	if text != "" {
		// With the sections within TieShare below the limit-th, which
		// may be tied with a hit and rank above others (tieOrder).
		docs, matched, err = r.ranker.rank(ctx, r.terms(text), &q, limit, TieShare)
	} else {
		docs, matched, err = r.ranker.filtered(ctx, &q, limit)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	records := make([]uint32, len(docs))
	for i, d := range docs {
		if records[i], err = r.ranker.idOf(d.doc); err != nil {
			return nil, 0, err
		}
	}
	order := make([]int, len(docs))
	keys := make([]float64, len(docs))
	for i, d := range docs {
		order[i], keys[i] = i, 1 // filters alone: all alike, in index order
		if text != "" {
			keys[i] = d.score
		}
	}
	if text != "" {
		places := make([]tiePlace, len(docs))
		for i := range docs {
			if places[i], err = r.store.place(records[i]); err != nil {
				return nil, 0, err
			}
		}
		order, keys = tieOrder(keys, places)
	}
	n := min(limit, len(order))
	hits := make([]Hit, 0, n)
	lists := make([]string, 0, 8*n) // the hits' string lists
	for _, j := range order[:n] {
		h, err := r.hitOf(records[j], docs[j].score, q.WithText, &lists)
		if err != nil {
			return nil, 0, err
		}
		h.Relevance = relevance(keys[j], keys[order[0]])
		hits = append(hits, h)
	}
	return hits, matched, nil
}

// parseRecord reads a section's record number from its stored id.
func parseRecord(id []byte) (uint32, error) {
	n, err := strconv.ParseUint(string(id), 36, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: bad section id %q", ErrCorruptStore, id)
	}
	return uint32(n), nil
}

// hitOf returns the hit of section number record, scored score, with its
// metadata's string lists in *lists when lists is not nil (see metaIn).
func (r *Reader) hitOf(record uint32, score float64, withText bool, lists *[]string) (Hit, error) {
	h := Hit{Record: record, Score: score}
	var err error
	if h.Meta, err = r.store.metaIn(record, lists); err != nil {
		return h, err
	}
	h.ID = ID(h.Path, h.Anchor, h.Part)
	if withText {
		h.Text, err = r.store.text(record)
	}
	return h, err
}

// Text returns the text of section number record (Hit.Record).
func (r *Reader) Text(record uint32) (string, error) {
	if r.store == nil {
		return "", fmt.Errorf("%w: record %d of an empty index", ErrCorruptStore, record)
	}
	return r.store.text(record)
}

// Document returns every section of the document at path, in document
// order, with text when withText is set; none when no document has that
// path.
func (r *Reader) Document(path string, withText bool) ([]Hit, error) {
	if r.store == nil {
		return nil, nil
	}
	var hits []Hit
	for _, n := range r.store.recordsIn(path) {
		m, err := r.store.meta(n)
		if err != nil {
			return nil, err
		}
		h := Hit{ID: ID(m.Path, m.Anchor, m.Part), Record: n, Meta: m, Relevance: 1}
		if withText {
			if h.Text, err = r.store.text(n); err != nil {
				return nil, err
			}
		}
		hits = append(hits, h)
	}
	return hits, nil
}
