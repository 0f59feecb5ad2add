// Package artifacts writes, reads and verifies Codex7's build output: per
// library version a directory with manifest.json, topics.json,
// documents.json and the bluge index of sections, and one catalog.json
// across all of them.
//
//	<out>/catalog.json
//	<out>/<org>/<project>/<version>/manifest.json
//	<out>/<org>/<project>/<version>/topics.json
//	<out>/<org>/<project>/<version>/documents.json
//	<out>/<org>/<project>/<version>/index/
//
// A version directory is built in <out>/.staging and swapped into place in
// one atomic rename, then catalog.json is replaced; a crash at any moment
// leaves the previous artifacts complete. JSON files are byte-identical for
// identical inputs. Readers refuse a FormatVersion they do not know.
package artifacts

import (
	"errors"
	"time"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/topics"
)

// FormatVersion is the artifact schema version, recorded in every manifest
// and in the catalog. Bump it on any change a reader of the previous version
// would misread.
//
//	1: first format: manifest, topics, documents, bluge index with meta/text stored fields.
//	2: sections.bin v2: metadata as one stream decoded at open, text in
//	   16 KiB blocks, text and similarity hashes per section.
//	3: one analyzer for every text field of the index (code and path were
//	   identifier-split without stemming): camelCase parts and joined
//	   hyphenated compounds, for BM25F ranking over the fields; a flags
//	   field (changelog, blog, stub, intro) that lowers a section's rank; stop
//	   words keep before, after, not, off... (index.meaningWords); heading
//	   field lengths count words, not identifier parts.
//	4: manifest.json and catalog.json end with "checksum", the sha256 of
//	   their own bytes as written with it empty, so that any change to
//	   them is found (a flipped bit in a JSON file usually still parses).
//	5: sections.bin v3: text in 4 KiB blocks compressed with a preset
//	   dictionary sampled from the library's sections (block 0), so that
//	   returning a section inflates about a quarter of what it did, at the
//	   same size.
//	6: sections.bin v4: the text blocks are S2 (with that dictionary)
//	   instead of DEFLATE: returning a section decodes 2.5 to 3 times as
//	   fast, for a store about a quarter larger.
//	7: token counts (sections' and documents' tokens, which answers are
//	   packed by) count whitespace: runs of it cost a token per four bytes
//	   after the first, so a budget also bounds an answer's bytes.
//	8: sections.bin v5: each section records the file its heading is
//	   written in when an include brought it into its document (an
//	   AsciiDoc partial, an rst include), for its source link and for
//	   questions that name that file.
//	9: sections.bin v6: a section made from an entry inside a section of
//	   its source (a Sphinx object description) records the heading of
//	   that section, which a question naming it counts it a chunk of.
const FormatVersion = 9

// File names inside a version directory.
const (
	CatalogFile   = "catalog.json"
	ManifestFile  = "manifest.json"
	TopicsFile    = "topics.json"
	DocumentsFile = "documents.json"
	IndexDir      = "index"
	stagingDir    = ".staging"
	lockFile      = ".lock"
)

// Errors callers branch on.
var (
	// ErrFormatVersion means an artifact was written in a format this
	// program does not read; rebuild it with this indexer or upgrade.
	ErrFormatVersion = errors.New("unsupported artifact format version")
	// ErrChecksum means a file's content does not match its manifest.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrMissing means a file the manifest or catalog lists is not there.
	ErrMissing = errors.New("missing file")
	// ErrUnexpected means a file is present that the manifest does not list.
	ErrUnexpected = errors.New("unexpected file")
	// ErrCorrupt means a JSON file cannot be parsed.
	ErrCorrupt = errors.New("corrupt file")
	// ErrStale means catalog.json describes a version otherwise than its
	// manifest does (another commit, build time or counts): a build or
	// pull stopped between publishing the version and writing the
	// catalog. The files are sound; the next build or pull rewrites the
	// catalog.
	ErrStale = errors.New("catalog out of date")
	// ErrLocked means another build holds the output directory.
	ErrLocked = errors.New("output directory is locked by another build")
	// ErrBadName means a library id or version name would not name a
	// directory of its own ("..", a hidden or empty name, a separator).
	ErrBadName = errors.New("not a usable directory name")
)

// Manifest describes one library version's artifact.
type Manifest struct {
	FormatVersion int     `json:"format_version"`
	Library       Library `json:"library"`
	Version       string  `json:"version"`
	// Repo is the repository URL with any credentials removed.
	Repo   string `json:"repo"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// BuiltAt is SOURCE_DATE_EPOCH when set, else the commit's time, so
	// rebuilding the same commit gives the same bytes.
	BuiltAt        time.Time `json:"built_at"`
	IndexerVersion string    `json:"indexer_version"`
	// ConfigHash is the sha256 of what the config said about this version;
	// a change in it rebuilds the version.
	ConfigHash string `json:"config_hash"`
	Counts     Counts `json:"counts"`
	// Context7Versions are the refs the repository's context7.json listed
	// (previousVersions, branchVersions) at this commit, recorded on the
	// default branch's version when the config lists no versions, so an
	// unchanged repository is planned without fetching it again.
	Context7Versions []string `json:"context7_versions,omitempty"`
	// Skipped lists files found but not indexed, with the reason (at most
	// MaxSkippedListed; Counts.Skipped has the total).
	Skipped []Skipped `json:"skipped,omitempty"`
	// Files maps every other file of the directory (slash-separated,
	// relative) to its sha256 in hex.
	Files map[string]string `json:"files"`
	// Checksum is the sha256 in hex of the manifest's own bytes as written
	// with Checksum empty (see seal). It stays the last field.
	Checksum string `json:"checksum"`
}

// MaxSkippedListed caps Manifest.Skipped.
const MaxSkippedListed = 500

// Library is the library a manifest or catalog entry belongs to.
type Library struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
}

// Counts sums up a version's content.
type Counts struct {
	Documents int `json:"documents"`
	Sections  int `json:"sections"`
	Topics    int `json:"topics"`
	Tokens    int `json:"tokens"`
	Skipped   int `json:"skipped"`
	// SourceBytes is the size of the markdown files indexed.
	SourceBytes int64 `json:"source_bytes"`
}

// Skipped is a file that was found but not indexed.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// DocumentInfo is one document as listed in documents.json.
type DocumentInfo struct {
	Path        string `json:"path"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Tokens      int    `json:"tokens"`
	// Nav is the document's place in its site's own navigation (an
	// Antora component's nav files), from 1; 0 when it lists the
	// document nowhere. Listings show listed documents in this order.
	Nav     int       `json:"nav,omitempty"`
	Topics  []string  `json:"topics,omitempty"`
	Outline []Outline `json:"outline"`
}

// Outline is one heading of a document's outline (chunks merged).
type Outline struct {
	Anchor string `json:"anchor"`
	Title  string `json:"title"`
	Level  int    `json:"level"`
	Line   int    `json:"line"`
	Tokens int    `json:"tokens"`
	// Inner are the ids the published page gives places inside the
	// section (markdown.Section.InnerAnchors: an AsciiDoc inline anchor, a
	// block's id), which links to the section may name.
	Inner []string `json:"inner,omitempty"`
	// Source is the file the heading is written in when an include
	// brought it into the document (markdown.Section.Source).
	Source string `json:"source,omitempty"`
}

// Documents is the content of documents.json.
type Documents struct {
	Documents []DocumentInfo `json:"documents"`
}

// Version is everything a version directory holds, ready to publish.
type Version struct {
	Manifest  Manifest
	Topics    *topics.Tree
	Documents []DocumentInfo
	Entries   []index.Entry
}
