package index

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"

	"github.com/codex7/codex7/markdown"
)

// emptyMarker is the only file of an index with no sections.
const emptyMarker = "EMPTY"

// batchSize is how many sections make one segment before the final merge.
const batchSize = 2000

// Entry is one section to index, with the document it belongs to.
type Entry struct {
	// Path is the document's repository-relative path.
	Path string
	// Section is the section itself; its Text is stored to be returned.
	Section *markdown.Section
	// Topics are the topic slugs the section is tagged with.
	Topics []string
	// Inbound holds the texts of the links other sections point at this
	// one with, one per line (links.Inbound), or "".
	Inbound string
	// Translation marks a section of a translated page (FlagTranslation).
	Translation bool
}

// ID returns the section's identifier in the index: path#anchor, with
// "@part" appended for chunks after the first of a split section.
func ID(path, anchor string, part int) string {
	id := path + "#" + anchor
	if part > 0 {
		id += fmt.Sprintf("@%d", part)
	}
	return id
}

// Meta is what the index stores about a section besides its text.
type Meta struct {
	Path        string   `json:"path"`
	Anchor      string   `json:"anchor"`
	Heading     string   `json:"heading"`
	Title       string   `json:"title"`
	HeadingPath []string `json:"heading_path"`
	Level       int      `json:"level"`
	Line        int      `json:"line"`
	Part        int      `json:"part"`
	Parts       int      `json:"parts"`
	Tokens      int      `json:"tokens"`
	Topics      []string `json:"topics,omitempty"`
	Kinds       []string `json:"kinds"`
	Langs       []string `json:"langs,omitempty"`
	// Source is the included file the section's heading is written in,
	// when not Path (markdown.Section.Source).
	Source string `json:"source,omitempty"`
	// Within is the section the published page shows this one as a part
	// of, when it is an entry of it (markdown.Section.Within).
	Within string `json:"within,omitempty"`
	// Hash and SimHash identify the text for near-duplicate detection
	// (see NearDuplicate).
	Hash    uint64 `json:"-"`
	SimHash uint64 `json:"-"`
}

// Kinds returns what a section offers: "info" when it has prose beyond its
// heading, "code" when it has code blocks; at least one of them.
func Kinds(s *markdown.Section) []string {
	var kinds []string
	if strings.TrimSpace(strings.TrimPrefix(s.Prose, s.Title)) != "" || len(s.Code) == 0 {
		kinds = append(kinds, KindInfo)
	}
	if len(s.Code) > 0 {
		kinds = append(kinds, KindCode)
	}
	return kinds
}

// Write builds the index of entries in dir, which must not exist or be
// empty, with bluge's offline writer (one segment, no merges). Entries are
// indexed in the order given, so the same entries give the same index.
// Nothing may read dir until Write returns. On error dir holds garbage the
// caller must remove.
func Write(ctx context.Context, dir string, entries []Entry) error {
	if len(entries) == 0 {
		// bluge cannot write a segment with no documents; an empty index is
		// a marker file that Open recognizes.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, emptyMarker), []byte("no sections\n"), 0o644)
	}
	w, err := bluge.OpenOfflineWriter(config(dir, false), batchSize, 10)
	if err != nil {
		return fmt.Errorf("open index writer: %w", err)
	}
	texts := make([]string, len(entries))
	for i := range entries {
		texts[i] = entries[i].Section.Text
	}
	store, err := newStoreWriter(filepath.Join(dir, storeFile), textDictionary(texts))
	if err != nil {
		return fmt.Errorf("open section store: %w", err)
	}
	a := writeAnalyzer()
	for i := range entries {
		// The offline writer is not closed on error: closing merges what it
		// has (and panics with nothing), and the caller discards dir anyway.
		if i%256 == 0 && ctx.Err() != nil {
			store.close()
			return ctx.Err()
		}
		rec := newRecord(&entries[i])
		if err := store.add(rec); err != nil {
			store.close()
			return fmt.Errorf("store %s: %w", entries[i].Path, err)
		}
		if err := w.Insert(document(i, &entries[i], rec.Kinds, a)); err != nil {
			store.close()
			return fmt.Errorf("index %s: %w", entries[i].Path, err)
		}
	}
	if err := store.close(); err != nil {
		return fmt.Errorf("write section store: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// dictSample is the most of a section's start the text dictionary takes.
const dictSample = 512

// textDictionary returns the preset dictionary of a store of texts: the
// starts of sections sampled evenly through them, so that every part of
// the documentation is represented, as many as fill maxDictBytes or a
// sixteenth of all the text, whichever is less, so that it costs small
// libraries little. Sections of one library share their markup, front
// matter, boilerplate and vocabulary, which is what a 4 KiB block cannot
// find in itself. The same texts give the same dictionary.
func textDictionary(texts []string) []byte {
	total, sampled := 0, 0
	for _, t := range texts {
		total += len(t)
		sampled += min(len(t), dictSample)
	}
	size := min(maxDictBytes, total/16)
	if size < dictSample {
		return nil // under 8 KiB of text: a few blocks
	}
	// About enough samples of the average sampled length to fill size,
	// taken in bit-reversed order (0, n/2, n/4, 3n/4...) so that the
	// samples that fill it are spread evenly whatever their lengths, then
	// put back in document order.
	n := min(len(texts), (size*len(texts)+sampled-1)/sampled)
	width := bits.Len(uint(n - 1))
	var picked []int
	for k, got := 0, 0; k < 1<<width && got < size; k++ {
		j := int(bits.Reverse(uint(k)) >> (bits.UintSize - width))
		if width == 0 {
			j = 0
		}
		if j < n {
			i := j * len(texts) / n
			picked = append(picked, i)
			got += min(len(texts[i]), dictSample)
		}
	}
	slices.Sort(picked)
	dict := make([]byte, 0, size)
	for _, i := range picked {
		t := texts[i]
		dict = append(dict, t[:min(len(t), dictSample, size-len(dict))]...)
	}
	return dict
}

// record returns what the store keeps about an entry.
func newRecord(e *Entry) *record {
	s := e.Section
	langs := map[string]bool{}
	for _, c := range s.Code {
		if c.Lang != "" {
			langs[c.Lang] = true
		}
	}
	return &record{Meta: Meta{
		Path: e.Path, Anchor: s.Anchor, Heading: s.Heading, Title: s.Title,
		HeadingPath: s.HeadingPath, Level: s.Level, Line: s.Line,
		Part: s.Part, Parts: s.Parts, Tokens: s.Tokens, Topics: e.Topics,
		Kinds: Kinds(s), Langs: sortedKeys(langs), Source: s.Source, Within: s.Within,
	}, Text: s.Text}
}

// document returns the bluge document of entry number n: its searchable
// fields, with n (base 36) as its id to find it in the store.
func document(n int, e *Entry, kinds []string, a *analysis.Analyzer) *bluge.Document {
	s := e.Section
	doc := bluge.NewDocument(strconv.FormatInt(int64(n), 36))
	var codeText strings.Builder
	for _, c := range s.Code {
		codeText.WriteString(c.Code)
		codeText.WriteByte('\n')
	}
	for _, c := range s.InlineCode {
		codeText.WriteString(c)
		codeText.WriteByte('\n')
	}
	doc.AddField(headingField(FieldHeading, s.Title, a))
	doc.AddField(headingField(FieldHeadingPath, strings.Join(s.HeadingPath, " \u203a "), a))
	doc.AddField(bluge.NewTextField(FieldBody, s.Prose).WithAnalyzer(a))
	if codeText.Len() > 0 {
		doc.AddField(bluge.NewTextField(FieldCode, codeText.String()).WithAnalyzer(a))
	}
	if e.Inbound != "" {
		doc.AddField(bluge.NewTextField(FieldInbound, e.Inbound).WithAnalyzer(a))
	}
	doc.AddField(bluge.NewKeywordField(FieldPath, e.Path))
	doc.AddField(bluge.NewTextField(FieldPathText, e.Path).WithAnalyzer(a))
	for _, t := range e.Topics {
		doc.AddField(bluge.NewKeywordField(FieldTopics, t))
	}
	for _, k := range kinds {
		doc.AddField(bluge.NewKeywordField(FieldKind, k))
	}
	for _, f := range sectionFlags(e.Path, s) {
		doc.AddField(bluge.NewKeywordField(FieldFlags, f))
	}
	if e.Translation {
		doc.AddField(bluge.NewKeywordField(FieldFlags, FlagTranslation))
	}
	return doc
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
