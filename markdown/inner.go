package markdown

// Place is an id a reader of another format records inside a section
// (an AsciiDoc inline anchor, a Sphinx label above a paragraph) and where
// it stands in the reader's output, in the order of that output.
type Place struct {
	ID string
	At int
}

// SetInnerAnchors gives each section of doc the ids of places inside it
// (Section.InnerAnchors), on its first chunk. starts[i] is where section
// i starts in the same order as Place.At, or negative for a section that
// takes no places (one the reader did not write). A place goes to the
// last section starting at or before it, so one on a heading's own line
// is that heading's; a place before every section is dropped. An id that
// is a section's anchor, or given already, is skipped: the link to it
// already lands. Readers shift their positions to say which way a tie
// goes.
func SetInnerAnchors(doc *Document, starts []int, places []Place) {
	if len(places) == 0 {
		return
	}
	taken := make(map[string]bool, len(doc.Sections)+len(places))
	for _, s := range doc.Sections {
		taken[s.Anchor] = true
	}
	// heads are the sections' first chunks that take places, in order.
	type head struct{ at, sec int }
	var heads []head
	for i, s := range doc.Sections {
		if s.Part == 0 && starts[i] >= 0 {
			heads = append(heads, head{starts[i], i})
		}
	}
	for _, p := range places {
		if taken[p.ID] {
			continue
		}
		lo, hi := 0, len(heads)
		for lo < hi {
			m := (lo + hi) / 2
			if heads[m].at <= p.At {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == 0 {
			continue
		}
		s := &doc.Sections[heads[lo-1].sec]
		s.InnerAnchors = append(s.InnerAnchors, p.ID)
		taken[p.ID] = true
	}
}
