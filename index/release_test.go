package index

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// openFilesUnder lists the files under dir that this process has open or
// mapped, from /proc.
func openFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var held []string
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			held = append(held, target)
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if i := strings.Index(line, dir+string(filepath.Separator)); i >= 0 {
			held = append(held, line[i:])
		}
	}
	return held
}

// TestReleaseFiles checks what Windows needs (releaseFiles): a reader
// opened with release holds no file of its directory, so the directory
// can be renamed and removed under it, and it still answers.
func TestReleaseFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads open files from /proc")
	}
	dir := writeIndex(t, testEntries())

	held, err := open(dir, NewCache(0), false)
	if err != nil {
		t.Fatal(err)
	}
	if files := openFilesUnder(t, dir); len(files) == 0 {
		t.Error("a reader opened without release holds no file: the check below would prove nothing")
	}
	held.Close()

	r, err := open(dir, NewCache(0), true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if files := openFilesUnder(t, dir); len(files) != 0 {
		t.Fatalf("a reader opened with release holds %q", files)
	}
	moved := dir + ".old"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(moved); err != nil {
		t.Fatal(err)
	}
	hits, err := r.Search(context.Background(), Query{Text: "CORSMiddleware", Limit: 1, WithText: true})
	if err != nil || len(hits) != 1 || !strings.HasPrefix(hits[0].Text, "## Use CORSMiddleware") {
		t.Fatalf("after its directory was removed: hits %v, err %v", hits, err)
	}
	if doc, err := r.Document("docs/cors.md", true); err != nil || len(doc) != 2 || doc[1].Text == "" {
		t.Errorf("Document after removal = %d sections, %v", len(doc), err)
	}
}
