package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/oci"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// feeds are serve's sources: local directories, served as they are, and
// registry references, each kept in a directory by an oci.Mirror.
type feeds struct {
	dirs    []string
	mirrors []*oci.Mirror
	log     *slog.Logger
}

// openFeeds checks serve's --artifacts: a local directory must exist; a
// registry reference is asked for once (a HEAD), so that a registry that
// is down, a tag that does not exist or refused credentials stop the
// server at start with the reason, unless the cache has an earlier pull
// to serve meanwhile. It returns a non-zero exit code on failure.
func openFeeds(ctx context.Context, sources []string, cacheDir string, interval time.Duration, opts oci.Options, log *slog.Logger, stderr io.Writer) (*feeds, int) {
	f := &feeds{log: log}
	for _, s := range sources {
		if !oci.IsReference(s) {
			if fi, err := os.Stat(s); err != nil || !fi.IsDir() {
				fmt.Fprintf(stderr, "indexer serve: no artifact directory at %s (run 'indexer build' first, or give oci://HOST/REPO for a registry)\n", s)
				return nil, exitUsage
			}
			f.dirs = append(f.dirs, s)
			continue
		}
		ref, err := oci.ParseReference(s)
		if err != nil {
			fmt.Fprintf(stderr, "indexer serve: --artifacts: %v\n", err)
			return nil, exitUsage
		}
		if cacheDir == "" {
			if cacheDir, err = oci.DefaultCacheDir(); err != nil {
				fmt.Fprintf(stderr, "indexer serve: %v\n", err)
				return nil, exitUsage
			}
		}
		m := oci.NewMirror(ref, cacheDir, interval, oci.PullOptions{Options: opts, Logger: log})
		if err := os.MkdirAll(m.Dir(), 0o755); err != nil {
			fmt.Fprintf(stderr, "indexer serve: --cache-dir must be writable (a volume on a read-only root file system): %v\n", err)
			return nil, exitUsage
		}
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		err = m.Check(cctx)
		cancel()
		switch {
		case err != nil && m.Cached():
			log.Warn("registry not reachable at start: serving the earlier pull until it is", "ref", ref.String(), "dir", m.Dir(), "err", err)
		case err != nil:
			fmt.Fprintf(stderr, "indexer serve: %v\n", err)
			if errors.Is(err, oci.ErrReference) {
				return nil, exitUsage
			}
			return nil, exitFailed
		}
		f.dirs = append(f.dirs, m.Dir())
		f.mirrors = append(f.mirrors, m)
	}
	return f, 0
}

// run starts the mirrors and returns a func that stops them, and a
// channel closed once every mirror has tried its first pull (at once when
// there is none). Over stdio, where a client calls tools as soon as it
// has started the server, it first waits for those pulls.
func (f *feeds) run(ctx context.Context, engine *search.Engine, wait bool) (stop func(), first <-chan struct{}) {
	ctx, cancel := context.WithCancel(ctx)
	var wg, firsts sync.WaitGroup
	reload := func() {
		if err := engine.Reload(ctx); err != nil && !errors.Is(err, catalog.ErrClosed) {
			f.log.Warn("catalog not reloaded after a pull", "err", err)
		}
	}
	for _, m := range f.mirrors {
		if wait {
			m.Sync(ctx, nil)
		}
		wg.Add(1)
		firsts.Add(1)
		go func() {
			defer wg.Done()
			if !wait {
				m.Sync(ctx, reload)
			}
			firsts.Done()
			m.Run(ctx, reload)
		}()
	}
	if wait && len(f.mirrors) > 0 {
		reload()
	}
	done := make(chan struct{})
	go func() {
		firsts.Wait()
		close(done)
	}()
	return func() {
		cancel()
		wg.Wait()
	}, done
}

// status reports the mirrors for /readyz.
func (f *feeds) status() []server.FeedStatus {
	out := make([]server.FeedStatus, 0, len(f.mirrors))
	for _, m := range f.mirrors {
		st := m.Status()
		fs := server.FeedStatus{Source: st.Ref, Delivered: st.Delivered, Current: st.Digest, Since: st.Since, Failing: st.Failing, NextTry: st.NextTry, Refused: st.Refused}
		if st.Err != nil {
			fs.Error = st.Err.Error()
		}
		out = append(out, fs)
	}
	return out
}

// conflictsOf lists the libraries two sources both hold.
func conflictsOf(st search.Status) []string {
	var out []string
	for _, r := range st.Refused {
		if errors.Is(r.Cause, catalog.ErrConflict) {
			out = append(out, r.Library+": "+r.Reason)
		}
	}
	return out
}
