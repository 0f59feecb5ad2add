package oci

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/registrytest"
	"github.com/codex7/codex7/pipeline"
)

// logHook is a slog handler that runs f once, at the first record with
// the message msg: a hook into the middle of a push.
type logHook struct {
	msg  string
	once sync.Once
	f    func()
}

func (h *logHook) Enabled(context.Context, slog.Level) bool { return true }
func (h *logHook) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(h.f)
	}
	return nil
}
func (h *logHook) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logHook) WithGroup(string) slog.Handler      { return h }

// midPush is the message of a push's first log line, after it verified
// the dist and read catalog.json, before it packs the versions.
const midPush = "no previous manifest at the tag"

// TestPushHoldsTheDistLock: a build into the dist starts while a push of
// it runs (after the push read catalog.json, before it packed the
// versions). The push holds the dist's lock, so the build fails with
// artifacts.ErrLocked instead of publishing a version the push would
// upload under the old catalog (an artifact whose catalog does not
// describe its layers); the artifact pushed pulls whole, and once the
// push is done the build runs.
func TestPushHoldsTheDistLock(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	cfg, err := config.Parse(strings.NewReader(s.config()), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.commit("beta")
	var buildErr error
	hook := &logHook{msg: midPush, f: func() {
		_, buildErr = pipeline.Build(context.Background(), cfg, pipeline.Options{Out: s.out})
	}}
	res, err := Push(context.Background(), s.out, ref, PushOptions{Logger: slog.New(hook)})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if !errors.Is(buildErr, artifacts.ErrLocked) {
		t.Errorf("build during the push: %v, want ErrLocked", buildErr)
	}
	got, err := Pull(context.Background(), res.Pinned, t.TempDir(), PullOptions{})
	if err != nil {
		t.Fatalf("pull of the pushed %s: %v", res.Digest, err)
	}
	if len(got.Refused) > 0 || len(got.Downloaded) != 3 {
		t.Errorf("pull of the pushed %s: downloaded %d, refused %v; want 3, none", res.Digest, len(got.Downloaded), got.Refused)
	}
	s.build() // the lock is released
}

// TestPushDistChangedDuringPush: a version of the dist is replaced while
// a push of it runs, by a writer that takes no lock (an older indexer, a
// copy). The push fails with ErrBadDist saying the dist changed during
// the push, and the tag is not set: it never publishes a version under a
// catalog that describes another build of it.
func TestPushDistChangedDuringPush(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	s.commit("beta")
	other := t.TempDir()
	buildtest.Build(t, other, s.config())
	vdir := filepath.Join("acme", "beta", "main")
	hook := &logHook{msg: midPush, f: func() {
		if err := os.Rename(filepath.Join(s.out, vdir), filepath.Join(t.TempDir(), "old")); err != nil {
			t.Error(err)
		}
		if err := os.Rename(filepath.Join(other, vdir), filepath.Join(s.out, vdir)); err != nil {
			t.Error(err)
		}
	}}
	_, err := Push(context.Background(), s.out, ref, PushOptions{Logger: slog.New(hook)})
	t.Logf("push: %v", err)
	if !errors.Is(err, ErrBadDist) || !strings.Contains(err.Error(), "the dist changed during the push") || !strings.Contains(err.Error(), "/acme/beta@main") {
		t.Errorf("push of a dist changed under it: %v, want ErrBadDist saying the dist changed, naming /acme/beta@main", err)
	}
	if _, err := Resolve(context.Background(), ref, Options{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("tag after the refused push: %v, want ErrNotFound", err)
	}
}

// TestPushChecksTagsFirst: a tag the registry would refuse is refused
// before the registry is contacted, not after every layer was uploaded.
func TestPushChecksTagsFirst(t *testing.T) {
	var requests atomic.Int64
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer reg.Close()
	s := newSite(t)
	ref := mustRef(t, "oci://"+strings.TrimPrefix(reg.URL, "http://")+"/codex7/docs:v1")
	for _, tag := range []string{"bad tag", "", ".hidden", "-v1", strings.Repeat("x", 129), "v1/2"} {
		_, err := Push(context.Background(), s.out, ref, PushOptions{Tags: []string{"release-1", tag}})
		if !errors.Is(err, ErrReference) || !strings.Contains(err.Error(), strconv.Quote(tag)) || !strings.Contains(err.Error(), "a tag is") {
			t.Errorf("push with tag %q: %v, want ErrReference naming the tag and what a tag is", tag, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the registry got %d requests from pushes with a bad tag, want none", n)
	}
}
