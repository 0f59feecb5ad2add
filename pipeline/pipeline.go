// Package pipeline is the build: from a config to published artifacts.
// For every library it lists the remote's refs, decides which versions are
// out of date, and for each of those fetches the tree (fetch), discovers
// the markdown, splits it (markdown), derives the topic tree (topics) and
// publishes the version directory (artifacts); catalog.json comes last.
//
// One library version failing (a clone that times out, a ref that does not
// exist) fails only that version: the rest are built and every failure is
// reported in the Result.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fetch"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/topics"
)

// IndexerVersion is recorded in every manifest; a change rebuilds every
// library version. Bump it when the same sources would index differently.
const IndexerVersion = "0.9.0"

// DefaultListJobs is Options.ListJobs unless set.
const DefaultListJobs = 32

// ErrUnknownLibrary means Options.Libraries names an id the config lacks.
var ErrUnknownLibrary = errors.New("unknown library")

// Options tunes a build. The zero value builds everything into ./dist.
type Options struct {
	// Out is the artifact directory (default "dist").
	Out string
	// Libraries limits the build to these ids (all when empty).
	Libraries []string
	// Force rebuilds versions that are up to date.
	Force bool
	// Jobs is how many library versions are built at once, and how many
	// files of one version are split at once (default GOMAXPROCS).
	Jobs int
	// ListJobs is how many libraries are planned at once: their refs listed
	// and compared with what is published (default DefaultListJobs).
	// Listing waits on the remote, so it runs wider than Jobs; PerHost
	// bounds what one host sees.
	ListJobs int
	// PerHost bounds the listings and clones running against one host at
	// once (default fetch.DefaultPerHost; local repositories share one).
	PerHost int
	// FetchTimeout bounds listing and cloning one library version (default 10m).
	FetchTimeout time.Duration
	// MaxFileBytes skips larger markdown files (default DefaultMaxFileBytes).
	// Their content is never held: the clone drops files over it as they
	// stream by (it is Fetch.MaxBlobBytes unless that is set).
	MaxFileBytes int64
	// MaxFiles fails a version that selects more markdown files (default
	// DefaultMaxFiles).
	MaxFiles int
	// MaxTotalBytes fails a version whose selected markdown adds up to more
	// bytes (default DefaultMaxTotalBytes).
	MaxTotalBytes int64
	// Fetch bounds each clone: bytes held, tree entries, directory depth
	// (zero fields take fetch's defaults).
	Fetch fetch.Limits
	// Split tunes the splitter (default markdown.DefaultOptions()).
	Split markdown.Options
	// Getenv reads credentials and SOURCE_DATE_EPOCH (default os.Getenv).
	Getenv func(string) string
	// Logger receives structured logs (default: discard).
	Logger *slog.Logger
	// Progress, when set, is told as each version moves along. It is called
	// from several goroutines at once.
	Progress func(Event)
}

// Stage is where a library version is in its build.
type Stage string

// Stages reported through Options.Progress.
const (
	StageFetching  Stage = "fetching"
	StageSplitting Stage = "splitting"
	StageIndexing  Stage = "indexing"
	StageBuilt     Stage = "built"
	StageUpToDate  Stage = "up-to-date"
	StageFailed    Stage = "failed"
	// StageInterrupted is a version the build's context ended before it
	// was published (Ctrl-C): nothing of it was written, and what was
	// published of it before stays as it was.
	StageInterrupted Stage = "interrupted"
)

// Event reports progress on one library version.
type Event struct {
	Library, Version string
	Stage            Stage
	Files, Sections  int
	Elapsed          time.Duration
	Err              error
}

// VersionResult is the outcome for one library version.
type VersionResult struct {
	Library, Version, Ref, Commit string
	// Stage is StageBuilt, StageUpToDate, StageFailed or StageInterrupted.
	Stage                        Stage
	Err                          error
	Documents, Sections, Skipped int
	// Omitted counts the tree entries the clone left out (symbolic links,
	// submodules, unsafe names, directories too deep): each is logged, and
	// those that could have been documents are among the Skipped.
	Omitted     int
	SourceBytes int64
	Duration    time.Duration
}

// Result is the outcome of a build.
type Result struct {
	Versions []VersionResult
	Catalog  *artifacts.Catalog
	// Removed are the versions a full build took out of the output
	// directory because the config no longer names them, as catalog paths
	// (org/project/version).
	Removed []string
	Elapsed time.Duration
}

// Failed returns the failed versions.
func (r *Result) Failed() []VersionResult {
	var out []VersionResult
	for _, v := range r.Versions {
		if v.Stage == StageFailed {
			out = append(out, v)
		}
	}
	return out
}

// Err joins every failure, or is nil when all versions built or were up to date.
func (r *Result) Err() error {
	var errs []error
	for _, v := range r.Failed() {
		errs = append(errs, v.Err)
	}
	return errors.Join(errs...)
}

func (o *Options) defaults() {
	if o.Out == "" {
		o.Out = "dist"
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if o.ListJobs <= 0 {
		o.ListJobs = DefaultListJobs
	}
	if o.PerHost <= 0 {
		o.PerHost = fetch.DefaultPerHost
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 10 * time.Minute
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.Fetch.MaxBlobBytes <= 0 {
		o.Fetch.MaxBlobBytes = o.MaxFileBytes
	}
	if o.Fetch.MaxDepth <= 0 {
		o.Fetch.MaxDepth = fetch.DefaultMaxDepth
	}
	if o.Split.MaxSectionTokens == 0 {
		o.Split = markdown.DefaultOptions()
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Progress == nil {
		o.Progress = func(Event) {}
	}
}

// Build builds every library of cfg (or those opts.Libraries names) into
// opts.Out. It returns an error only when it cannot start (an unknown
// library, a locked output directory) or ctx ends; per-version failures are
// in the Result (see Result.Err).
func Build(ctx context.Context, cfg *config.Config, opts Options) (*Result, error) {
	opts.defaults()
	start := time.Now()
	libs, err := selectLibraries(cfg, opts.Libraries)
	if err != nil {
		return nil, err
	}
	release, err := artifacts.Lock(opts.Out)
	if err != nil {
		return nil, err
	}
	defer release()

	// Every repository is checked against the config's allow: again here,
	// with symbolic links resolved, before it is contacted.
	b := &builder{cfg: cfg, opts: opts, log: opts.Logger, fetcher: &fetch.Fetcher{
		Policy:  fetch.Policy{Transports: cfg.AllowedTransports(), LocalRoots: cfg.LocalRoots()},
		Limits:  opts.Fetch,
		PerHost: opts.PerHost,
		Logger:  opts.Logger,
	}, snapshots: make(chan struct{}, opts.Jobs)}
	// Libraries are planned ListJobs at a time (listing refs waits on the
	// remote) and each out-of-date version is handed to one of Jobs
	// builders as soon as it is planned, so a build's memory does not grow
	// with the number of libraries: plans keep no trees, and at most Jobs
	// fetched trees wait for a builder (see builder.snapshots).
	plans := make([]*plan, len(libs))
	queue := make(chan *job)
	var mu sync.Mutex
	res := &Result{}
	var builders sync.WaitGroup
	for range opts.Jobs {
		builders.Go(func() {
			for j := range queue {
				r := b.build(ctx, j)
				mu.Lock()
				res.Versions = append(res.Versions, r)
				mu.Unlock()
			}
		})
	}
	b.parallelN(opts.ListJobs, len(libs), func(i int) {
		p := b.plan(ctx, libs[i])
		for _, j := range p.jobs {
			queue <- j
		}
		p.jobs = nil
		plans[i] = p
	})
	close(queue)
	builders.Wait()
	for _, p := range plans {
		res.Versions = append(res.Versions, p.failed...)
	}
	sort.SliceStable(res.Versions, func(i, j int) bool {
		a, c := res.Versions[i], res.Versions[j]
		if a.Library != c.Library {
			return a.Library < c.Library
		}
		return a.Version < c.Version
	})
	latest := map[string]string{}
	for _, p := range plans {
		if p != nil && p.latest != "" {
			latest[p.lib.ID] = p.latest
		}
	}
	if err := ctx.Err(); err != nil {
		// Interrupted: the versions published before it are complete, so
		// the catalog lists them (with every version it listed before),
		// and the directory stays one that verify accepts and serve
		// reads. Nothing is removed: the plans may be incomplete.
		var werr error
		res.Catalog, werr = artifacts.WriteCatalog(opts.Out, latest)
		res.Elapsed = time.Since(start)
		return res, errors.Join(err, werr)
	}
	// A full build makes the output what the config says: versions it no
	// longer names (dropped, renamed, their library removed) leave the
	// catalog, then the directory. A --library build touches only the
	// libraries it names.
	var keep func(id, version string) bool
	if len(opts.Libraries) == 0 && !slices.Contains(plans, nil) {
		keep = configured(plans)
	}
	var dropped []string
	if res.Catalog, dropped, err = artifacts.WriteCatalogKeeping(opts.Out, latest, keep); err != nil {
		return res, err
	}
	for _, rel := range dropped {
		if err := artifacts.Remove(opts.Out, rel); err != nil {
			// Unlisted, it is never served or pushed; the next build tries again.
			b.log.Warn("could not remove a version the config no longer names", "path", rel, "err", err)
			continue
		}
		b.log.Info("removed: the config no longer names it", "path", rel)
		res.Removed = append(res.Removed, rel)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// configured returns whether the plans name a library version: every
// version name a library's plan listed, built or not, and every version
// of a library whose versions could not be listed (an unreachable remote
// must not empty the catalog).
func configured(plans []*plan) func(id, version string) bool {
	named := map[string]bool{}
	unlisted := map[string]bool{}
	for _, p := range plans {
		if p.names == nil {
			unlisted[p.lib.ID] = true
		}
		for _, n := range p.names {
			named[p.lib.ID+"@"+n] = true
		}
	}
	return func(id, version string) bool { return unlisted[id] || named[id+"@"+version] }
}

func selectLibraries(cfg *config.Config, ids []string) ([]config.Library, error) {
	if len(ids) == 0 {
		return cfg.Libraries, nil
	}
	var out []config.Library
	picked := make([]bool, len(cfg.Libraries)) // "/acme/x" and "acme/x" name one library, built once
	for _, id := range ids {
		k := slices.IndexFunc(cfg.Libraries, func(l config.Library) bool {
			return strings.EqualFold(l.ID, id) || strings.EqualFold(strings.Trim(l.ID, "/"), strings.Trim(id, "/"))
		})
		if k < 0 {
			var known []string
			for _, l := range cfg.Libraries {
				known = append(known, l.ID)
			}
			return nil, fmt.Errorf("%w %q: %s has %s", ErrUnknownLibrary, id, cfg.File, strings.Join(known, ", "))
		}
		if !picked[k] {
			picked[k] = true
			out = append(out, cfg.Libraries[k])
		}
	}
	return out, nil
}

type builder struct {
	cfg     *config.Config
	opts    Options
	log     *slog.Logger
	fetcher *fetch.Fetcher
	// snapshots holds a token for every tree fetched while planning (a
	// default branch read for its context7.json) until its build is done
	// with it, so that planners running ahead of the builders hold at most
	// Jobs trees.
	snapshots chan struct{}
	// intact memoizes, by version directory, whether its files matched its
	// manifest: planning asks twice about a library's default branch, and
	// checksumming a version reads all of it.
	intact sync.Map // string → bool
}

// failure logs a version's failure and returns its stage: StageFailed,
// or StageInterrupted when it failed because ctx ended (the version is
// not broken; the build was stopped).
func (b *builder) failure(ctx context.Context, library, version string, err error) Stage {
	if ctx.Err() != nil {
		b.log.Info("build interrupted", "library", library, "version", version)
		return StageInterrupted
	}
	b.log.Error("build failed", "library", library, "version", version, "err", err)
	return StageFailed
}

// parallel runs f(0..n-1) on at most opts.Jobs goroutines.
func (b *builder) parallel(n int, f func(int)) { b.parallelN(b.opts.Jobs, n, f) }

// parallelN runs f(0..n-1) on at most limit goroutines.
func (b *builder) parallelN(limit, n int, f func(int)) {
	var g errgroup.Group
	g.SetLimit(limit)
	for i := range n {
		g.Go(func() error {
			f(i)
			return nil
		})
	}
	g.Wait()
}

func (b *builder) build(ctx context.Context, j *job) VersionResult {
	start := time.Now()
	r := VersionResult{Library: j.lib.ID, Version: j.name, Ref: j.version.Ref, Commit: j.resolved.Commit}
	progress := func(stage Stage, files, sections int) {
		b.opts.Progress(Event{Library: j.lib.ID, Version: j.name, Stage: stage, Files: files, Sections: sections, Elapsed: time.Since(start)})
	}
	fail := func(err error) VersionResult {
		r.Stage, r.Err, r.Duration = b.failure(ctx, j.lib.ID, j.name, err), fmt.Errorf("%s@%s: %w", j.lib.ID, j.name, err), time.Since(start)
		b.opts.Progress(Event{Library: j.lib.ID, Version: j.name, Stage: r.Stage, Err: err, Elapsed: r.Duration})
		return r
	}
	if j.snapToken {
		defer func() { <-b.snapshots }()
	}
	snap := j.snap
	if snap == nil {
		progress(StageFetching, 0, 0)
		fctx, cancel := context.WithTimeout(ctx, b.opts.FetchTimeout)
		var err error
		snap, err = b.fetcher.Clone(fctx, j.url, j.resolved, fetch.Auth(j.url, j.lib.TokenEnv, b.opts.Getenv))
		cancel()
		if err != nil {
			return fail(err)
		}
	}
	j.snap = nil
	// Take what the build needs from the tree, and let it go once the
	// documents are split (readers resolve includes in it): the git
	// objects are as large as the docs and are not needed for indexing.
	c7 := readContext7(snap, b.log)
	sel, err := b.selection(j.lib, c7)
	if err != nil {
		return fail(err)
	}
	libInfo := b.libraryInfo(j.lib, c7)
	commit, builtAt := snap.Commit, b.builtAt(snap)
	omitted := snap.Omitted()
	r.Omitted = len(omitted)
	b.logOmitted(j, omitted)
	sources, skipped, err := Discover(snap, sel)
	if err != nil {
		return fail(err)
	}
	unmatched := sel.unmatched(sources, skipped)
	if len(sources) == 0 {
		return fail(noDocuments(j.lib, sel, unmatched, skipped))
	}
	for _, g := range unmatched {
		b.log.Warn("a docs glob selects no documentation file", "library", j.lib.ID, "version", j.name, "glob", g)
	}
	progress(StageSplitting, len(sources), 0)
	nav := readNavigation(snap, sources, b.log.With("library", j.lib.ID, "version", j.name))
	// The snapshot is kept while splitting: readers resolve includes in it.
	kept, failed, partial := splitAll(sources, snap, b.opts.Split, b.parallel)
	snap = nil
	for _, s := range partial {
		b.log.Warn("read in part", "library", j.lib.ID, "version", j.name, "path", s.Path, "reason", s.Reason)
	}
	skipped = append(skipped, failed...)
	for _, d := range kept {
		r.SourceBytes += d.sourceBytes
	}
	sources = nil
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	v, err := Assemble(docsOf(kept), j.lib.Topics, nav)
	if err != nil {
		return fail(err)
	}
	for _, o := range emptyOverrides(v.Topics, j.lib.Topics) {
		b.log.Warn("a config topic covers no section: its paths and headings match nothing", "library", j.lib.ID, "version", j.name,
			"topic", o.Name, "paths", o.Paths, "headings", o.Headings)
	}
	sort.Slice(skipped, func(a, c int) bool { return skipped[a].Path < skipped[c].Path })
	r.Documents, r.Sections, r.Skipped = len(kept), len(v.Entries), len(skipped)
	progress(StageIndexing, r.Documents, r.Sections)

	tokenTotal := 0
	for _, d := range kept {
		tokenTotal += d.doc.Tokens
	}
	listed := skipped
	if len(listed) > artifacts.MaxSkippedListed {
		listed = listed[:artifacts.MaxSkippedListed]
	}
	v.Manifest = artifacts.Manifest{
		Library:        libInfo,
		Version:        j.name,
		Repo:           fetch.Redact(j.lib.Repo),
		Ref:            j.resolved.Name.Short(),
		Commit:         commit,
		BuiltAt:        builtAt,
		IndexerVersion: IndexerVersion,
		ConfigHash:     j.configHash,
		Counts: artifacts.Counts{
			Documents: r.Documents, Sections: r.Sections, Topics: len(v.Topics.Slugs()),
			Tokens: tokenTotal, Skipped: len(skipped), SourceBytes: r.SourceBytes,
		},
		Skipped:          listed,
		Context7Versions: j.context7Versions,
	}
	if err := artifacts.Publish(ctx, b.opts.Out, v); err != nil {
		return fail(err)
	}
	r.Stage, r.Duration = StageBuilt, time.Since(start)
	progress(StageBuilt, r.Documents, r.Sections)
	b.log.Info("built", "library", j.lib.ID, "version", j.name, "commit", commit[:12],
		"documents", r.Documents, "sections", r.Sections, "skipped", r.Skipped, "duration_ms", r.Duration.Milliseconds())
	for _, s := range skipped {
		b.log.Warn("skipped file", "library", j.lib.ID, "version", j.name, "path", s.Path, "reason", s.Reason)
	}
	return r
}

// logOmitted logs what the clone left out of the tree: one line per entry
// (at debug level past the first 100), then a count by reason.
func (b *builder) logOmitted(j *job, omitted []fetch.Omitted) {
	if len(omitted) == 0 {
		return
	}
	byReason := map[string]int{}
	for i, o := range omitted {
		byReason[o.Reason]++
		level := slog.LevelInfo
		if i >= 100 {
			level = slog.LevelDebug
		}
		b.log.Log(context.Background(), level, "omitted tree entry", "library", j.lib.ID, "version", j.name, "path", o.Path, "reason", o.Reason)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		b.log.Info("omitted tree entries", "library", j.lib.ID, "version", j.name, "reason", r, "count", byReason[r])
	}
}

// selection combines the config's globs, the repo's context7.json (where the
// config is silent) and the built-in excludes. An unknown format (a
// config made in code, not loaded and validated) is an error, not every
// format read.
func (b *builder) selection(lib config.Library, c7 *config.Context7) (Selection, error) {
	set, err := formats.Parse(lib.Formats)
	if err != nil {
		return Selection{}, fmt.Errorf("library %s: formats: %w", lib.ID, err)
	}
	sel := Selection{Include: lib.Docs, Formats: set,
		MaxFileBytes: b.opts.MaxFileBytes, MaxFiles: b.opts.MaxFiles, MaxTotalBytes: b.opts.MaxTotalBytes}
	var c7Exclude []string
	if c7 != nil {
		inc, exc := lib.Context7Globs(c7)
		if len(lib.Docs) == 0 {
			sel.Include = inc
		}
		if len(lib.Exclude) == 0 {
			c7Exclude = exc
		}
	}
	sel.Exclude = append(append(config.DefaultExcludes(len(sel.Include) > 0), lib.Exclude...), c7Exclude...)
	return sel, nil
}

// emptyOverrides returns the config's topics that cover no section of
// tree: kept, so that asking for one is not an error, but a glob or
// heading with a typo would otherwise go unnoticed.
func emptyOverrides(tree *topics.Tree, overrides []config.TopicOverride) []config.TopicOverride {
	var out []config.TopicOverride
	for _, o := range overrides {
		slug := topics.Slug(o.Name)
		for _, c := range tree.Categories {
			for _, tp := range c.Topics {
				if tp.Slug == slug && tp.Sections == 0 {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// noDocuments says why a version's selection holds no documentation file,
// and what to change.
func noDocuments(lib config.Library, sel Selection, unmatched []string, skipped []artifacts.Skipped) error {
	var why string
	switch {
	case len(lib.Docs) > 0:
		why = fmt.Sprintf("docs: %q match no documentation file: check them against the repository's tree (paths from its root, as in docs/**/*.md)", unmatched)
	case len(sel.Include) > 0:
		why = fmt.Sprintf("the folders of the repository's context7.json (%q) hold no documentation file: list the documentation with docs: in the config", sel.Include)
	default:
		why = "the repository holds no documentation file of the formats read (" + sel.Formats.String() + "): list the documentation with docs: in the config"
	}
	if len(skipped) > 0 {
		why += fmt.Sprintf("; %d file(s) skipped, first %s (%s)", len(skipped), skipped[0].Path, skipped[0].Reason)
	}
	return fmt.Errorf("%w: %s", ErrNoDocuments, why)
}

func (b *builder) libraryInfo(lib config.Library, c7 *config.Context7) artifacts.Library {
	info := artifacts.Library{ID: lib.ID, Title: lib.Title, Description: lib.Description, Aliases: lib.Aliases}
	if c7 != nil {
		if info.Title == "" {
			info.Title = c7.ProjectTitle
		}
		if info.Description == "" {
			info.Description = c7.Description
		}
	}
	if info.Title == "" {
		info.Title = lib.ID[strings.LastIndex(lib.ID, "/")+1:]
	}
	return info
}

// builtAt is SOURCE_DATE_EPOCH when set (reproducible-builds convention),
// else the commit time: never the wall clock, so rebuilds are byte-identical.
func (b *builder) builtAt(snap *fetch.Snapshot) time.Time {
	if s := b.opts.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return snap.CommitTime
}

// splitDoc is a split document and the size of its source.
type splitDoc struct {
	doc         *markdown.Document
	sourceBytes int64
}

// splitAll reads sources (in path order), files of repo, each with the
// reader of its format, with run's parallelism; a file its reader rejects
// (formats.ErrNotDocumentation among others) is skipped with its reason,
// never fatal. A file read in part (formats.ErrPartial: an include left
// out) is kept, and what was left out returned in partial, to log.
func splitAll(sources []Source, repo fs.FS, opts markdown.Options, run func(n int, f func(int))) (kept []splitDoc, skipped, partial []artifacts.Skipped) {
	docs := make([]*markdown.Document, len(sources))
	errs := make([]error, len(sources))
	run(len(sources), func(i int) {
		docs[i], errs[i] = formats.ReadAs(sources[i].Format, sources[i].Path, sources[i].Data, repo, opts)
	})
	for i, d := range docs {
		switch {
		case errs[i] != nil && d != nil && errors.Is(errs[i], formats.ErrPartial):
			partial = append(partial, artifacts.Skipped{Path: sources[i].Path, Reason: errs[i].Error()})
		case errs[i] != nil:
			skipped = append(skipped, artifacts.Skipped{Path: sources[i].Path, Reason: errs[i].Error()})
			continue
		}
		kept = append(kept, splitDoc{doc: d, sourceBytes: int64(len(sources[i].Data))})
	}
	return kept, skipped, partial
}

func docsOf(kept []splitDoc) []*markdown.Document {
	out := make([]*markdown.Document, len(kept))
	for i, k := range kept {
		out[i] = k.doc
	}
	return out
}
