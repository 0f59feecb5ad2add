// Package synthdist writes synthetic dists of many libraries straight
// with the artifact and index writers, for the server's scale tests and
// benchmarks: no git repository, no config, no build. It is not the
// synthetic catalog generator of internal/loadgen, which builds real git
// repositories with the real pipeline; this one is for catalogs too large
// to build that way in a benchmark's time (50,000 versions), and for tests
// that need dozens of libraries in a second.
//
// Every library is "/<org>/<project>" with one version, "1.0.0", whose
// names and description are made of words from a fixed list, so that
// resolve-library-id has real ranking to do. With Tiny, every version's
// files (index, topics, documents) are hard links to the first library's:
// only the manifests differ, as a catalog of 50,000 tiny versions needs no
// more. Otherwise each library's pages are its own: markdown files of a
// corpus (../shared/corpus), Pages per library, taken in turn, or pages
// generated from the word list when no corpus is given. Output is
// deterministic.
package synthdist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/pipeline"
)

// Version is the one version every synthetic library has.
const Version = "1.0.0"

// Options say what dist Write makes.
type Options struct {
	// Libraries is how many libraries, each with one version.
	Libraries int
	// Pages is how many markdown pages each library has (default 20).
	Pages int
	// Corpus is a directory whose markdown files (searched recursively,
	// in path order) become the libraries' pages, each library taking the
	// next Pages of them, round the corpus again when it runs out; "" for
	// pages made of the word list.
	Corpus string
	// Tiny makes every library share the first one's files by hard links.
	Tiny bool
}

// ID returns the id of library number i (from 0) of a synthetic dist.
func ID(i int) string {
	org := words[i%len(words)]
	project := words[(i/len(words)+3*i)%len(words)] + "-" + words[(7*i+1)%len(words)]
	return fmt.Sprintf("/%s%d/%s-%d", org, i%97, project, i)
}

// Write makes a dist of opts.Libraries libraries in out, which must not
// hold one yet, holding its lock as a build does. It fsyncs nothing it
// need not: the dist is for measuring a server, not for surviving a crash.
func Write(ctx context.Context, out string, opts Options) error {
	if opts.Libraries < 1 {
		return errors.New("synthdist: no libraries asked for")
	}
	if opts.Pages < 1 {
		opts.Pages = 20
	}
	var corpus []string
	if opts.Corpus != "" {
		var err error
		if corpus, err = markdownFiles(opts.Corpus); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	release, err := artifacts.Lock(out)
	if err != nil {
		return err
	}
	defer release()
	next := 0
	var template string
	for i := range opts.Libraries {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := ID(i)
		if opts.Tiny && template != "" {
			if err := linkVersion(template, artifacts.Dir(out, id, Version), manifest(i, 0)); err != nil {
				return fmt.Errorf("synthdist: %s: %w", id, err)
			}
			continue
		}
		var docs []*markdown.Document
		for p := range opts.Pages {
			path, src := fmt.Sprintf("docs/page-%02d.md", p), []byte(generatedPage(i, p))
			if len(corpus) > 0 {
				f := corpus[next%len(corpus)]
				next++
				if src, err = os.ReadFile(f); err != nil {
					return err
				}
				path = "docs/" + filepath.ToSlash(strings.TrimPrefix(f, filepath.Clean(opts.Corpus)+string(filepath.Separator)))
			}
			doc, err := markdown.Split(path, src, markdown.DefaultOptions())
			if err != nil {
				return fmt.Errorf("synthdist: %s: %w", path, err)
			}
			docs = append(docs, doc)
		}
		v, err := pipeline.Assemble(docs, nil, pipeline.Navigation{})
		if err != nil {
			return err
		}
		v.Manifest = manifest(i, len(docs))
		v.Manifest.Counts.Sections, v.Manifest.Counts.Topics = len(v.Entries), len(v.Topics.Slugs())
		if err := artifacts.Publish(ctx, out, v); err != nil {
			return err
		}
		if opts.Tiny {
			template = artifacts.Dir(out, id, Version)
		}
	}
	_, err = artifacts.WriteCatalog(out, nil)
	return err
}

// Cached makes sure dir holds the dist opts describe, for benchmarks that
// keep theirs between runs (in the user cache dir): one there is kept, its
// catalog.json written again when an older indexer wrote it (without the
// manifest sums a server loads by); one missing or half-written is written
// anew. It reports whether it wrote anything.
func Cached(ctx context.Context, dir string, opts Options) (bool, error) {
	if cat, err := artifacts.ReadCatalog(dir); err == nil {
		if len(cat.Libraries) == opts.Libraries && len(cat.Libraries[0].Versions) > 0 && cat.Libraries[0].Versions[0].Manifest != "" {
			return false, nil
		}
		if len(cat.Libraries) == opts.Libraries {
			release, err := artifacts.Lock(dir)
			if err != nil {
				return false, err
			}
			defer release()
			_, err = artifacts.WriteCatalog(dir, nil)
			return true, err
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	if err := Write(ctx, dir, opts); err != nil {
		os.RemoveAll(dir)
		return false, err
	}
	return true, nil
}

// manifest is library i's manifest, its files left to be listed.
func manifest(i, docs int) artifacts.Manifest {
	id := ID(i)
	project := id[strings.LastIndexByte(id, '/')+1:]
	return artifacts.Manifest{
		Library: artifacts.Library{ID: id, Title: strings.ReplaceAll(project, "-", " "),
			Description: fmt.Sprintf("A %s library for %s and %s", words[(5*i+2)%len(words)], words[(11*i+3)%len(words)], words[(13*i+4)%len(words)])},
		Version: Version, Repo: "https://example.invalid" + id, Ref: "v" + Version,
		Commit:  fmt.Sprintf("%040x", i+1),
		BuiltAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), IndexerVersion: "synthdist", ConfigHash: "synthdist",
		Counts: artifacts.Counts{Documents: docs},
	}
}

// linkVersion makes the version directory final of manifest m from the
// files of the version directory template, by hard links.
func linkVersion(template, final string, m artifacts.Manifest) error {
	tm, err := artifacts.ReadManifest(template)
	if err != nil {
		return err
	}
	m.Files, m.Counts = tm.Files, tm.Counts
	for name := range tm.Files {
		dst := filepath.Join(final, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Link(filepath.Join(template, filepath.FromSlash(name)), dst); err != nil {
			return err
		}
	}
	data, err := artifacts.EncodeManifest(&m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(final, artifacts.ManifestFile), data, 0o444)
}

// markdownFiles lists the markdown files under dir, in path order.
func markdownFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdx")) {
			files = append(files, p)
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("synthdist: no markdown files under %s", dir)
	}
	slices.Sort(files)
	return files, err
}

// generatedPage is page p of library i: a title, three sections of prose
// and a code block, its words drawn from the word list.
func generatedPage(i, p int) string {
	w := func(k int) string { return words[(i*31+p*17+k*7)%len(words)] }
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\nHow to %s the %s with %s.\n\n", w(0), w(1), w(2), w(3), w(4))
	for s := range 3 {
		fmt.Fprintf(&b, "## %s %s\n\n", w(5+s), w(6+s))
		for k := range 40 {
			b.WriteString(w(10 + s*40 + k))
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "\n\n```go\n%s.%s(%q)\n```\n\n", w(s), w(s+1), w(s+2))
	}
	return b.String()
}

// words is the vocabulary of names, descriptions and generated pages.
var words = strings.Fields(`
alpha amber anchor apex arrow aspen atlas aurora autumn badge basil beacon birch blaze bloom bolt
breeze bridge brook cable cactus canvas canyon carbon cedar chalk cherry cipher citrus clover cobalt
comet copper coral cosmos crane crystal cube dahlia delta denim dune eagle echo ember falcon fern
fjord flame flint forge fossil fox garnet geyser glacier granite graph harbor hazel helix heron
hollow horizon indigo iris ivory jade jasper juniper kelp kernel kite lagoon lantern larch lava
ledger lemon lichen lily linen lotus lumen lunar lynx magma maple marble meadow mercury mesa
meteor mint mist monsoon moss nebula nectar nimbus nova oak oasis obsidian ocean olive onyx
opal orbit orchid otter palette panda pebble pepper phoenix pine pixel plasma plume polar poppy
prairie prism pulse quartz quill radar raven reef ridge river robin rocket ruby saffron sage
salmon sapphire scarlet sequoia shadow shale signal silver sketch slate solar sparrow spruce
stellar stone storm summit sundial swift tango tempest thistle thunder tidal timber topaz
trail tulip tundra umber valley vapor velvet violet vortex walnut willow wind winter wren
yarrow zenith zephyr zinc
`)
