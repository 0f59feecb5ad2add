package asciidoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpMarkdown prints the markdown generated for the file named by
// ASCIIDOC_DUMP (a path under ASCIIDOC_ROOT), for debugging.
func TestDumpMarkdown(t *testing.T) {
	f := os.Getenv("ASCIIDOC_DUMP")
	if f == "" {
		t.Skip("set ASCIIDOC_DUMP to a file to dump")
	}
	root := os.Getenv("ASCIIDOC_ROOT")
	src, err := os.ReadFile(filepath.Join(root, f))
	if err != nil {
		t.Fatal(err)
	}
	c, md, _, err := toMarkdown(f, src, os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(md, "\n")
	_ = lines
	os.Stdout.WriteString(md)
	for _, d := range c.dropped {
		t.Logf("dropped %+v", d)
	}
}
