package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fetch"
	"github.com/codex7/codex7/fixtures"
	"github.com/codex7/codex7/pipeline"
)

// Config files tried, in order, when --config is not given.
const (
	defaultConfig = "codex7.yaml"
	fixtureConfig = "fixtures/codex7.yaml"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func runBuild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("build [flags]", `Fetches every library of the config (shallow git clones at the versions it
lists), splits the markdown into sections, derives topics and writes one
artifact directory per library version plus catalog.json. Versions whose
commit, config and indexer are unchanged are skipped. Without --library,
the output becomes what the config says: versions and libraries it no
longer names are removed (a library whose remote cannot be reached keeps
its versions); with --library, only the libraries named are touched.

Without --config it reads ./codex7.yaml, else fixtures/codex7.yaml (the
bundled example libraries, whose git repository fixtures/.repo it first
makes from fixtures/docs as they are on disk, committed or not). Private HTTPS repos take a token from
$CODEX7_GIT_TOKEN (or the library's token_env); ssh URLs use the SSH agent
once the config's allow.transports lists ssh.`, stdout, stderr,
		"indexer build --config codex7.yaml --out dist",
		"indexer build --library /acme/widgets --force -v")
	cfgPath := fs.String("config", "", "config file (default ./codex7.yaml, else "+fixtureConfig+")")
	out := fs.String("out", "dist", "artifact directory")
	var libs listFlag
	fs.Var(&libs, "library", "build only this library id (repeatable)")
	force := fs.Bool("force", false, "rebuild versions that are up to date")
	jobs := fs.Int("jobs", 0, "library versions built at once, at least 1 (0: one per CPU)")
	listJobs := fs.Int("list-jobs", pipeline.DefaultListJobs, "libraries whose refs are listed at once, at least 1")
	perHost := fs.Int("per-host", fetch.DefaultPerHost, "listings and clones at once against one git host, at least 1 (local repositories count as one host)")
	fetchTimeout := durationFlag(fs, "fetch-timeout", 10*time.Minute, "time limit for fetching one library version")
	verbose := fs.Bool("v", false, "verbose: log every skipped file and debug detail")
	memLimit := fs.Int64("memory-limit-mib", 400, "soft memory limit in MiB: the GC works harder near it, nothing fails (0: none; GOMEMLIMIT wins)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at the end")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "indexer build: unexpected argument %q (flags only; see --help)\n", fs.Arg(0))
		return exitUsage
	}
	// The pipeline takes 0 or less as its default: a value given on the
	// command line means what it says, or is refused.
	switch {
	case *jobs < 0:
		fmt.Fprintf(stderr, "indexer build: --jobs %d: give at least 1, or 0 for one per CPU\n", *jobs)
		return exitUsage
	case *listJobs < 1:
		fmt.Fprintf(stderr, "indexer build: --list-jobs %d: give at least 1 (default %d)\n", *listJobs, pipeline.DefaultListJobs)
		return exitUsage
	case *perHost < 1:
		fmt.Fprintf(stderr, "indexer build: --per-host %d: give at least 1 (default %d)\n", *perHost, fetch.DefaultPerHost)
		return exitUsage
	case *fetchTimeout <= 0:
		fmt.Fprintf(stderr, "indexer build: --fetch-timeout %v: give a positive duration, e.g. 10m\n", *fetchTimeout)
		return exitUsage
	}
	path, err := findConfig(*cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "indexer build: %v\n", err)
		return exitUsage
	}
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "indexer build: %v\n", err)
		return exitUsage
	}
	if isFixtureConfig(path) {
		if _, err := fixtures.Prepare(cfg.Dir); err != nil {
			fmt.Fprintf(stderr, "indexer build: %v\n", err)
			return exitFailed
		}
	}
	terminal := isTerminal(stderr)
	log := newLogger(stderr, *verbose, terminal)
	if terminal && !*verbose {
		log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	opts := pipeline.Options{
		Out: *out, Libraries: libs, Force: *force, Jobs: *jobs, ListJobs: *listJobs, PerHost: *perHost, FetchTimeout: *fetchTimeout, Logger: log,
	}
	var prog *progress
	if terminal {
		prog = newProgress(stderr)
		opts.Progress = prog.event
	}
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(*memLimit << 20)
	}
	stopProfiles, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(stderr, "indexer build: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "building %s into %s\n", path, *out)
	res, err := pipeline.Build(ctx, cfg, opts)
	if perr := stopProfiles(); perr != nil {
		fmt.Fprintf(stderr, "indexer build: %v\n", perr)
	}
	if prog != nil {
		prog.close()
	}
	if res != nil {
		summarize(stderr, res)
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "indexer build: interrupted: the versions built before it are published and listed in %s, the others keep what was published of them before; run the same command again to build the rest\n",
			filepath.Join(*out, artifacts.CatalogFile))
		return exitFailed
	case errors.Is(err, pipeline.ErrUnknownLibrary):
		fmt.Fprintf(stderr, "indexer build: %v\n", err)
		return exitUsage
	case err != nil:
		// A lock held by another build, catalog I/O: the build ran and
		// failed, which is no usage error.
		fmt.Fprintf(stderr, "indexer build: %v\n", err)
		return exitFailed
	case len(res.Failed()) > 0:
		return exitFailed
	}
	return exitOK
}

// startProfiles starts CPU profiling and arranges a heap profile; the
// returned func stops and writes them, and reports what could not be
// written (a profile asked for and silently missing misleads whoever
// reads the directory).
func startProfiles(cpu, mem string) (stop func() error, err error) {
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			os.Remove(cpu)
			return nil, fmt.Errorf("CPU profile: %w", err)
		}
	}
	return func() error {
		var errs []error
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				errs = append(errs, fmt.Errorf("CPU profile: %w", err))
			}
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err == nil {
				runtime.GC()
				err = pprof.WriteHeapProfile(f)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("heap profile: %w", err))
			}
		}
		return errors.Join(errs...)
	}, nil
}

// isFixtureConfig reports whether path is the bundled fixture config
// of the working directory (fixtureConfig), whose repository build makes.
func isFixtureConfig(path string) bool {
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := os.Stat(fixtureConfig)
	return err == nil && os.SameFile(a, b)
}

func findConfig(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	for _, p := range []string{defaultConfig, fixtureConfig} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no config: create %s (see README.md) or pass --config FILE", defaultConfig)
}

func summarize(w io.Writer, res *pipeline.Result) {
	var built, upToDate, interrupted int
	var docs, sections, skipped int
	for _, v := range res.Versions {
		switch v.Stage {
		case pipeline.StageBuilt:
			built++
			docs += v.Documents
			sections += v.Sections
			skipped += v.Skipped
		case pipeline.StageUpToDate:
			upToDate++
		case pipeline.StageInterrupted:
			interrupted++
		}
	}
	failed := res.Failed()
	stopped := ""
	if interrupted > 0 {
		stopped = fmt.Sprintf(", interrupted %d", interrupted)
	}
	fmt.Fprintf(w, "built %d, up to date %d, failed %d%s library versions (%d documents, %d sections) in %s\n",
		built, upToDate, len(failed), stopped, docs, sections, res.Elapsed.Round(time.Millisecond))
	if skipped > 0 {
		fmt.Fprintf(w, "  %d files skipped (not documentation, such as Antora partials and navs or a .txt that is not reStructuredText; too large, binary, invalid UTF-8, symlinks, submodules, unsafe names, too deep): listed with the reason in each manifest.json, and logged with -v\n", skipped)
	}
	if len(res.Removed) > 0 {
		fmt.Fprintf(w, "  removed %d versions the config no longer names: %s\n", len(res.Removed), strings.Join(res.Removed, ", "))
	}
	for _, f := range failed {
		fmt.Fprintf(w, "  FAILED %v\n", f.Err)
	}
}

// progress draws one line per finished version and, below them, a live
// line with the versions in flight and their elapsed time, redrawn on every
// event and twice a second. It is used only on a terminal.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	start  time.Time
	active map[string]pipeline.Event
	since  map[string]time.Time
	drawn  bool
	stop   chan struct{}
	done   chan struct{}
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now(), active: map[string]pipeline.Event{}, since: map[string]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.clearLocked()
				p.drawLocked()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *progress) event(e pipeline.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := pipeline.VersionName(e.Library, e.Version)
	p.clearLocked()
	switch e.Stage {
	case pipeline.StageBuilt:
		delete(p.active, key)
		fmt.Fprintf(p.w, "  built      %-40s %6d files %7d sections %8s\n", key, e.Files, e.Sections, e.Elapsed.Round(time.Millisecond))
	case pipeline.StageUpToDate:
		fmt.Fprintf(p.w, "  up to date %s\n", key)
	case pipeline.StageFailed:
		delete(p.active, key)
		fmt.Fprintf(p.w, "  FAILED     %s: %v\n", key, e.Err)
	case pipeline.StageInterrupted:
		delete(p.active, key) // the summary counts them
	default:
		if _, ok := p.active[key]; !ok {
			p.since[key] = time.Now()
		}
		p.active[key] = e
	}
	p.drawLocked()
}

func (p *progress) drawLocked() {
	if len(p.active) == 0 {
		return
	}
	keys := make([]string, 0, len(p.active))
	for k := range p.active {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		a := p.active[k]
		parts = append(parts, fmt.Sprintf("%s %s %d files %s", k, a.Stage, a.Files, time.Since(p.since[k]).Round(time.Second)))
	}
	line := fmt.Sprintf("[%s] %s", time.Since(p.start).Round(time.Second), strings.Join(parts, " | "))
	if len(line) > 150 {
		line = line[:147] + "..."
	}
	fmt.Fprint(p.w, line)
	p.drawn = true
}

// close stops the redraws and clears the live line.
func (p *progress) close() {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
