package rst

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTmpDump(t *testing.T) {
	root := os.Getenv("DUMP")
	if root == "" {
		t.Skip()
	}
	repo := os.DirFS(root)
	fs.WalkDir(repo, ".", func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() || !strings.HasSuffix(p, ".rst") {
			return nil
		}
		src, _ := fs.ReadFile(repo, p)
		c := newConverter(p, repo)
		ls := splitLines(string(src), 0)
		c.prescan(ls)
		c.blocks(ls, true, 0)
		text, _ := c.w.finish()
		out := filepath.Join("/tmp/rstdump", p+".md")
		os.MkdirAll(filepath.Dir(out), 0o755)
		os.WriteFile(out, []byte(text), 0o644)
		return nil
	})
}
