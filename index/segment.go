package index

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge"
	blugeindex "github.com/blugelabs/bluge/index"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	segment "github.com/blugelabs/bluge_segment_api"
)

// This file is the ranker's one reach into bluge's internals; nothing else
// in the package asserts a bluge type. bluge's public API ranks only by
// scoring every document a query matches, so the ranker (rank.go) reads
// the segment's postings itself, and that needs what bluge does not
// export. It depends on exactly these, as go.mod pins them
// (TestBlugeInternalsPinned fails when go.mod moves them):
//
//   - github.com/blugelabs/bluge v0.2.2: the search.Reader a bluge.Reader
//     hands a query's Searcher is its *index.Snapshot, whose Segments
//     method returns []index.SegmentSnapshot; each is an
//     *index.segmentSnapshot, whose Segment method returns the
//     segment.Segment (bluge's segmentWrapper around the segment).
//   - github.com/blugelabs/ice v1.0.0, the segment format bluge v0.2.2
//     writes by default (type "ice", version 1): its *ice.PostingsIterator
//     implements segment.OptimizablePostingsIterator (ActualBitmap,
//     DocNum1Hit), and a posting's Norm is the float32 whose bits are the
//     field's length in tokens (fieldCursor.tf decodes it).
//   - github.com/blugelabs/bluge_segment_api v0.2.0: the interfaces named
//     above.
//
// When any of it does not hold, openSegment and postingsBitmap return an
// error wrapping ErrUnrankable that says which: Open refuses the index,
// loudly, rather than rank it some slower or different way.

// segmentType and segmentVersion are the segment format the ranker reads
// (ice's Type and Version), which fieldCursor.tf's norm decoding assumes.
const (
	segmentType    = "ice"
	segmentVersion = 1
)

// captureQuery is a bluge query that matches nothing and hands over the
// reader bluge searches, which is the reader's snapshot: fixed for the
// life of a bluge.Reader opened read-only.
type captureQuery struct{ r *search.Reader }

func (c captureQuery) Searcher(r search.Reader, options search.SearcherOptions) (search.Searcher, error) {
	*c.r = r
	return searcher.NewMatchNoneSearcher(r, options)
}

// openSegment returns r's snapshot and its one segment, or an error
// wrapping ErrUnrankable that says why r is not an index Write made that
// the ranker reads: not one segment, a segment with deletions, another
// segment format, or types other than the ones this file's comment lists.
func openSegment(r *bluge.Reader) (search.Reader, segment.Segment, error) {
	var snap search.Reader
	it, err := r.Search(context.Background(), bluge.NewTopNSearch(0, captureQuery{&snap}))
	if err != nil {
		return nil, nil, err
	}
	if _, err := it.Next(); err != nil {
		return nil, nil, err
	}
	withSegs, ok := snap.(interface {
		Segments() []blugeindex.SegmentSnapshot
	})
	if !ok {
		return nil, nil, fmt.Errorf("%w: bluge's snapshot %T has no Segments method", ErrUnrankable, snap)
	}
	segs := withSegs.Segments()
	if len(segs) != 1 {
		return nil, nil, fmt.Errorf("%w: %d segments, want the 1 Write makes", ErrUnrankable, len(segs))
	}
	if d := segs[0].Deleted(); d != nil && !d.IsEmpty() {
		return nil, nil, fmt.Errorf("%w: %d sections deleted, and Write deletes none", ErrUnrankable, d.GetCardinality())
	}
	s, ok := segs[0].(interface{ Segment() segment.Segment })
	if !ok {
		return nil, nil, fmt.Errorf("%w: bluge's segment snapshot %T has no Segment method", ErrUnrankable, segs[0])
	}
	seg := s.Segment()
	if seg.Type() != segmentType || seg.Version() != segmentVersion {
		return nil, nil, fmt.Errorf("%w: segment format %s %d, want %s %d", ErrUnrankable, seg.Type(), seg.Version(), segmentType, segmentVersion)
	}
	// Every section has a kind: its postings are as good a probe as any.
	dict, err := seg.Dictionary(FieldKind)
	if err != nil {
		return nil, nil, err
	}
	for _, kind := range []string{KindInfo, KindCode} {
		pl, err := dict.PostingsList([]byte(kind), nil, nil)
		if err != nil {
			return nil, nil, err
		}
		it, err := pl.Iterator(true, true, false, nil)
		if err != nil {
			return nil, nil, err
		}
		if _, err := postingsBitmap(it); err != nil {
			return nil, nil, err
		}
	}
	return snap, seg, nil
}

// postingsBitmap returns the documents of a postings iterator that has not
// moved yet. The caller must not modify the bitmap.
func postingsBitmap(it segment.PostingsIterator) (*roaring.Bitmap, error) {
	o, ok := it.(segment.OptimizablePostingsIterator)
	if !ok {
		return nil, fmt.Errorf("%w: postings iterator %T exposes no bitmap", ErrUnrankable, it)
	}
	if d, ok := o.DocNum1Hit(); ok {
		return roaring.BitmapOf(uint32(d)), nil
	}
	if bm := o.ActualBitmap(); bm != nil {
		return bm, nil
	}
	return roaring.New(), nil
}
