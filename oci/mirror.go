package oci

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry/remote"

	"github.com/codex7/codex7/artifacts"
)

// Backoff bounds of a mirror whose registry fails.
const (
	minBackoff = time.Second
	maxBackoff = 5 * time.Minute
)

// ResolveTimeout bounds a mirror's HEAD of its reference, retries
// included: each try is bounded by Options.ResponseTimeout, but oras
// retries timeouts five times with backoff, which would hold a poll of a
// registry that stopped answering for over three minutes.
const ResolveTimeout = time.Minute

// Mirror keeps a directory in step with a registry reference, for
// indexer serve --artifacts oci://…: it pulls once, then asks the registry
// every interval which manifest the reference points at (one HEAD
// request) and pulls again when that changed. While the registry fails
// it keeps the directory as it was and retries with exponential backoff.
// The directory is an ordinary dist the engine serves and reloads.
type Mirror struct {
	ref      Reference
	dir      string
	opts     PullOptions
	interval time.Duration
	log      *slog.Logger
	now      func() time.Time
	// resolveTimeout bounds Check's and Sync's HEAD (ResolveTimeout).
	resolveTimeout time.Duration

	// repo is the registry client, made on first use and kept, so that
	// each poll reuses its connections and the registry's bearer token
	// instead of logging in again; only Sync uses it, from one goroutine.
	repo *remote.Repository

	mu     sync.Mutex
	status MirrorStatus
	// kick makes Run ask the registry at once (Poll).
	kick chan struct{}
}

// MirrorStatus says what a mirror serves and how its registry fares.
type MirrorStatus struct {
	// Ref is the reference mirrored (it holds no credentials).
	Ref string
	// Delivered says a pull succeeded since the mirror started; Digest is
	// the manifest then pulled, at Since.
	Delivered bool
	Digest    string
	Since     time.Time
	// Err is why the last attempt failed, or nil; Failing is when the
	// failures began and NextTry when the next attempt is due.
	Err      error
	Failing  time.Time
	NextTry  time.Time
	Failures int
	// Refused counts the versions of the last pull that were not
	// installed (their content did not match); the rest is served, so
	// the mirror counts as delivered, and the pull is tried again.
	Refused int
}

// NewMirror makes a mirror of ref into a directory of its own under
// cacheDir (cacheDir/oci/<host_repo_tag>), polled every interval (0: only
// pulled once). Call Run to start it.
func NewMirror(ref Reference, cacheDir string, interval time.Duration, opts PullOptions) *Mirror {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Mirror{ref: ref, dir: filepath.Join(cacheDir, "oci", ref.CacheName()), opts: opts, interval: interval, log: log,
		now: time.Now, resolveTimeout: ResolveTimeout, status: MirrorStatus{Ref: ref.String()}, kick: make(chan struct{}, 1)}
}

// Dir returns the directory the mirror keeps.
func (m *Mirror) Dir() string { return m.dir }

// Cached reports whether the directory holds a catalog from an earlier
// run, which can be served until the registry answers.
func (m *Mirror) Cached() bool {
	_, err := artifacts.ReadCatalog(m.dir)
	return err == nil
}

// Status returns the mirror's status now. Safe for concurrent use.
func (m *Mirror) Status() MirrorStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// Check asks the registry once which manifest the reference points at,
// to fail fast at start on a registry that is down, a reference that
// does not exist or credentials it refuses. It waits at most
// ResolveTimeout.
func (m *Mirror) Check(ctx context.Context) error {
	repo, err := m.client()
	if err == nil {
		_, err = m.resolve(ctx, repo)
	}
	return err
}

// resolve is resolveIn bounded by m.resolveTimeout, so that a registry
// that accepts connections and never answers fails the poll (it then
// shows in Status and is retried) instead of holding it.
func (m *Mirror) resolve(ctx context.Context, repo *remote.Repository) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, m.resolveTimeout)
	defer cancel()
	dgst, err := resolveIn(rctx, repo, m.ref)
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return "", fmt.Errorf("resolve %s: %w: no answer within %v (the registry, or the network to it, stalls)", m.ref, ErrUnreachable, m.resolveTimeout)
	}
	return dgst, err
}

// client returns the mirror's registry client, making it on first use.
func (m *Mirror) client() (*remote.Repository, error) {
	if m.repo == nil {
		repo, err := m.opts.repository(m.ref)
		if err != nil {
			return nil, err
		}
		m.repo = repo
	}
	return m.repo, nil
}

// Run keeps the directory in step until ctx ends. After each pull that
// changed the directory it calls changed (the server reloads its
// catalog). A digest reference is pulled until it succeeds, then left.
func (m *Mirror) Run(ctx context.Context, changed func()) {
	backoff := minBackoff
	for {
		err := m.Sync(ctx, changed)
		if ctx.Err() != nil {
			return
		}
		wait := m.interval
		if err != nil {
			// Full jitter keeps replicas that failed together from
			// retrying together.
			wait = backoff/2 + rand.N(backoff/2+1)
			backoff = min(backoff*2, maxBackoff)
			m.mu.Lock()
			m.status.NextTry = m.now().Add(wait)
			m.mu.Unlock()
		} else {
			backoff = minBackoff
			if m.ref.IsDigest() {
				<-ctx.Done()
				return
			}
		}
		var tick <-chan time.Time
		if wait > 0 {
			tick = time.After(wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-m.kick:
		}
	}
}

// Poll makes Run ask the registry now instead of at its next interval
// (SIGHUP). It never blocks.
func (m *Mirror) Poll() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Sync brings the directory in step once: a HEAD of the reference, and a
// pull when the manifest differs from the one delivered. The pull is of
// that digest, so that a tag moved meanwhile cannot mix two pushes. The
// HEAD waits at most ResolveTimeout; the pull's requests are bounded by
// the Options' response and idle timeouts, not overall (a large layer
// takes as long as it takes).
func (m *Mirror) Sync(ctx context.Context, changed func()) error {
	repo, err := m.client()
	var dgst string
	if err == nil {
		dgst, err = m.resolve(ctx, repo)
	}
	if err == nil {
		st := m.Status()
		if st.Delivered && st.Digest == dgst && st.Refused == 0 {
			m.succeeded(dgst, false)
			return nil
		}
		var res *PullResult
		res, err = pullFrom(ctx, repo, m.ref.WithDigest(dgst), m.dir, m.log)
		if err == nil && len(res.Refused) > 0 {
			// The rest is installed and served, so the replica is ready;
			// the refused versions are tried again with backoff. Their
			// names go to the log only: /readyz is read by anyone, and a
			// token may not be allowed to know a library exists.
			for _, r := range res.Refused {
				m.log.Error("registry version refused", "ref", m.ref.String(), "version", r.String())
			}
			m.partly(dgst, len(res.Refused), len(res.Downloaded)+len(res.Removed) > 0 || !st.Delivered)
			if changed != nil {
				changed()
			}
			err = fmt.Errorf("%d of the pulled versions refused (their content did not match; the server log names them)", len(res.Refused))
		}
		if err == nil {
			m.log.Info("registry pulled", "ref", m.ref.String(), "digest", dgst, "pulled", len(res.Downloaded), "unchanged", len(res.Unchanged),
				"removed", len(res.Removed), "bytes", res.BytesReceived)
			m.succeeded(dgst, len(res.Downloaded)+len(res.Removed) > 0 || !st.Delivered)
			if changed != nil {
				changed()
			}
			return nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	m.failed(err)
	return err
}

// partly records a pull of dgst that installed all but refused versions:
// delivered, and failing (m.failed follows) until a pull installs all.
func (m *Mirror) partly(dgst string, refused int, moved bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if moved || !m.status.Delivered {
		m.status.Since = m.now()
	}
	m.status.Delivered, m.status.Digest, m.status.Refused = true, dgst, refused
}

func (m *Mirror) succeeded(dgst string, moved bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if moved || !m.status.Delivered {
		m.status.Since = m.now()
	}
	m.status.Delivered, m.status.Digest, m.status.Refused = true, dgst, 0
	if m.status.Err != nil {
		m.log.Info("registry answers again", "ref", m.ref.String(), "after_failures", m.status.Failures)
	}
	m.status.Err, m.status.Failing, m.status.NextTry, m.status.Failures = nil, time.Time{}, time.Time{}, 0
}

func (m *Mirror) failed(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.status.Err == nil {
		m.status.Failing = m.now()
	}
	m.status.Failures++
	// Log the first failure and each new kind of failure, not every retry.
	if m.status.Err == nil || m.status.Err.Error() != err.Error() {
		m.log.Error("registry not pulled; serving what was pulled before", "ref", m.ref.String(), "err", err,
			"serving", m.status.Digest, "failures", m.status.Failures)
	}
	m.status.Err = err
}

// DefaultCacheDir is where serve keeps registry pulls by default: the
// user cache directory's codex7 folder. A read-only root file system
// needs --cache-dir on a writable volume instead.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New("no user cache directory ($XDG_CACHE_HOME or $HOME): give --cache-dir")
	}
	return filepath.Join(d, "codex7"), nil
}
