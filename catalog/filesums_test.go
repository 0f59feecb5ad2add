package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestFileSums checks the compact form of a manifest's files: a file
// matches only its own listed sha256, and a checksum that is not 64 hex
// digits (kept as zeros) matches nothing, not even zeros, so such a
// version is refused when that file is verified.
func TestFileSums(t *testing.T) {
	docs := sha256.Sum256([]byte("documents"))
	fs := newFileSums(map[string]string{
		"documents.json": hex.EncodeToString(docs[:]),
		"topics.json":    "not hex",
		"index/a.seg":    hex.EncodeToString(docs[:8]), // too short
	})
	if len(fs.names) != 3 || fs.names[0] != "documents.json" || fs.names[1] != "index/a.seg" || fs.names[2] != "topics.json" {
		t.Fatalf("names %q, want them sorted", fs.names)
	}
	if !fs.matches("documents.json", docs) {
		t.Error("documents.json does not match its own checksum")
	}
	if fs.matches("documents.json", sha256.Sum256([]byte("other"))) {
		t.Error("documents.json matches another file's checksum")
	}
	for _, name := range []string{"topics.json", "index/a.seg"} {
		if fs.matches(name, [sha256.Size]byte{}) || fs.matches(name, docs) {
			t.Errorf("%s, listed with a malformed checksum, matches", name)
		}
	}
	if fs.matches("missing.json", docs) {
		t.Error("a file the manifest does not list matches")
	}
	if fs.sumOf("documents.json") != docs {
		t.Error("sumOf documents.json is not its checksum")
	}
}
