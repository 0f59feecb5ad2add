package main

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/internal/gittest"
)

var corpus = flag.String("corpus", filepath.Join("..", "..", "..", "shared", "corpus"), "directory of real documentation trees (../shared/corpus)")

// BenchmarkBuild runs the real binary over each tree of -corpus, then all
// of them together, then a no-op rebuild of all, and reports throughput
// (MB/s of documentation source: every file a reader reads by its
// extension, markdown, reStructuredText, notebooks or AsciiDoc; files/s,
// sections/s), the peak RSS of the build process and the artifact size
// relative to the source. Run it through
// `task bench`; -benchtime 1x -count N gives N samples for medians.
func BenchmarkBuild(b *testing.B) {
	entries, err := os.ReadDir(*corpus)
	if err != nil {
		b.Skipf("no corpus at %s: %v", *corpus, err)
	}
	bin := testBinary(b)
	cache := filepath.Join(os.TempDir(), "codex7-corpus-repos")
	type lib struct {
		id, repo string
		bytes    int64
	}
	var libs []lib
	for _, e := range entries {
		if !e.IsDir() || !strings.Contains(e.Name(), "__") {
			continue
		}
		src := filepath.Join(*corpus, e.Name())
		libs = append(libs, lib{id: "/" + strings.Replace(e.Name(), "__", "/", 1), repo: gittest.FromDir(b, src, cache), bytes: sourceBytes(src)})
	}
	sort.Slice(libs, func(i, j int) bool { return libs[i].bytes < libs[j].bytes })
	writeConfig := func(ls []lib) string {
		var s strings.Builder
		s.WriteString("allow: {local_roots: [" + cache + "]}\nlibraries:\n")
		for _, l := range ls {
			s.WriteString("  - id: " + l.id + "\n    repo: " + l.repo + "\n")
		}
		p := filepath.Join(b.TempDir(), "codex7.yaml")
		if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}
	run := func(b *testing.B, cfg, out string, force bool, size int64) {
		args := []string{"build", "--config", cfg, "--out", out}
		if force {
			args = append(args, "--force")
		}
		var maxRSS int64
		var elapsed time.Duration
		b.SetBytes(size)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(bin, args...)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("build: %v\n%s", err, out)
			}
			elapsed += time.Since(start)
			if rss := peakRSSKiB(cmd.ProcessState); rss > maxRSS {
				maxRSS = rss
			}
		}
		b.StopTimer()
		cat, err := artifacts.ReadCatalog(out)
		if err != nil {
			b.Fatal(err)
		}
		var docs, sections int
		for _, l := range cat.Libraries {
			for _, v := range l.Versions {
				docs += v.Counts.Documents
				sections += v.Counts.Sections
			}
		}
		perOp := elapsed.Seconds() / float64(b.N)
		if maxRSS > 0 { // 0: not known on this system
			b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MiB")
		}
		if force { // a no-op rebuild processes nothing: no throughput to report
			b.ReportMetric(float64(docs)/perOp, "files/s")
			b.ReportMetric(float64(sections)/perOp, "sections/s")
			b.ReportMetric(float64(dirBytes(out))/float64(size), "artifact/source")
		}
	}
	var total int64
	for _, l := range libs {
		total += l.bytes
		b.Run(strings.ReplaceAll(strings.Trim(l.id, "/"), "/", "_"), func(b *testing.B) {
			run(b, writeConfig([]lib{l}), b.TempDir(), true, l.bytes)
		})
	}
	all := writeConfig(libs)
	out := b.TempDir()
	b.Run("all", func(b *testing.B) { run(b, all, out, true, total) })
	b.Run("noop-all", func(b *testing.B) { run(b, all, out, false, 0) })
}

// sourceBytes is the size of the documentation files under dir: those a
// reader reads by extension (what discovery selects by default, give or
// take excluded folders and a Sphinx project's .txt).
func sourceBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if _, ok := (formats.Set{}).Of(filepath.ToSlash(p)); err == nil && !d.IsDir() && ok {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, string(filepath.Separator)+".") {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
