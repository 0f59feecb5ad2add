package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/markdown"
)

// BenchmarkReadFormats measures what the build spends reading each format:
// discovery's selection of every tree under -corpus, held in memory as
// a build holds its clone (includes and antora.yml are read from there),
// then split by the reader of each file's format on one goroutine (the
// build runs one per core), in MB/s of source and in MB per CPU-second
// of the process (GC included), the steadier figure on a shared machine. Sub-benchmarks are named
// tree/format, one per format a tree holds, so markdown's MB/s reads
// beside reStructuredText's, notebooks' and AsciiDoc's:
//
//	go test -run '^$' -bench BenchmarkReadFormats -count 5 ./pipeline/
func BenchmarkReadFormats(b *testing.B) {
	entries, err := os.ReadDir(*corpus)
	if err != nil {
		b.Skipf("no corpus at %s: %v", *corpus, err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.Contains(e.Name(), "__") {
			continue
		}
		repo := inMemory(b, filepath.Join(*corpus, e.Name()))
		sources, _, err := Discover(repo, Selection{Exclude: config.DefaultExcludes(false)})
		if err != nil {
			b.Fatal(err)
		}
		byFormat := map[formats.Format][]Source{}
		for _, s := range sources {
			byFormat[s.Format] = append(byFormat[s.Format], s)
		}
		for _, f := range formats.All() {
			srcs := byFormat[f]
			if len(srcs) < 10 { // a stray README says nothing of a format
				continue
			}
			var size int64
			for _, s := range srcs {
				size += int64(len(s.Data))
			}
			b.Run(e.Name()+"/"+string(f), func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					kept, _, _ := splitAll(srcs, repo, markdown.DefaultOptions(), func(n int, f func(int)) {
						for i := range n {
							f(i)
						}
					})
					if len(kept) == 0 {
						b.Fatal("nothing read")
					}
				}
				b.ReportMetric(float64(len(srcs)), "files")
				if spent := processCPU() - cpu; spent > 0 && cpu > 0 {
					b.ReportMetric(float64(size)*float64(b.N)/1e6/(float64(spent)/1e9), "MB/cpu-s")
				}
			})
		}
	}
}

// inMemory reads the tree at dir into memory, as a build's clone is.
func inMemory(b *testing.B, dir string) fstest.MapFS {
	b.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return m
}
