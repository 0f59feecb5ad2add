package oci

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/registrytest"
)

// hangGuard bounds how long a test waits for a call that must fail on its
// own timeouts (set short by the test): long enough never to be reached
// when they work, so that it asserts no timing, only that the call does
// not hang.
const hangGuard = 2 * time.Minute

// returns runs f in a goroutine and returns its error, failing the test
// if f has not returned after hangGuard.
func returns(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangGuard):
		t.Fatalf("%s has not returned after %v: it hangs", what, hangGuard)
		return nil
	}
}

// TestMirrorSyncStalledRegistry: a mirror that has delivered keeps polling
// its tag; when the registry stops answering (connections accepted,
// requests never answered, as behind a load balancer that lost its
// backends), a poll fails with ErrUnreachable, so that the failure shows
// in Status (and /readyz) and the mirror retries, as it does for a
// registry that is down. Each request waits at most ResponseTimeout for
// its answer, and the poll's HEAD, retries included, at most the
// mirror's resolve timeout; each subtest sets one short.
func TestMirrorSyncStalledRegistry(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	push(t, s.out, mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1"), Options{})
	for _, c := range []struct {
		name            string
		responseTimeout time.Duration
		resolveTimeout  time.Duration
	}{
		{"response timeout", 200 * time.Millisecond, time.Hour},
		{"resolve timeout", 0, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFaultyRegistry(t, reg)
			m := NewMirror(f.ref(t, "v1"), t.TempDir(), time.Second, PullOptions{Options: Options{ResponseTimeout: c.responseTimeout}})
			m.resolveTimeout = c.resolveTimeout
			ctx := context.Background()
			if err := m.Sync(ctx, nil); err != nil {
				t.Fatal(err)
			}
			f.set(func(w http.ResponseWriter, r *http.Request) bool {
				f.hold(r)
				return true
			})
			err := returns(t, "a poll of a registry that stopped answering", func() error { return m.Sync(ctx, nil) })
			t.Logf("poll of a stalled registry: %v", err)
			st := m.Status()
			if !errors.Is(err, ErrUnreachable) || st.Err == nil || !st.Delivered {
				t.Errorf("poll of a stalled registry: %v; status delivered %v, error %v; want ErrUnreachable, in the status, the earlier pull still delivered", err, st.Delivered, st.Err)
			}
			verified(t, m.Dir())

			// The registry answers again: the next poll succeeds.
			f.set(nil)
			if err := m.Sync(ctx, nil); err != nil || m.Status().Err != nil {
				t.Errorf("poll once the registry answers again: %v, status error %v", err, m.Status().Err)
			}
		})
	}
}

// TestPullStalledBody: the registry sends the headers and half of a
// layer, then nothing, holding the connection open. The pull fails with
// ErrUnreachable saying the registry stalled, once no byte came for
// IdleTimeout (set short), refusing nothing and leaving the dist as it
// was; without the idle timeout it waited forever.
func TestPullStalledBody(t *testing.T) {
	f, dst, _ := faultyLayer(t, func(f *faultyRegistry, w http.ResponseWriter, r *http.Request, blob []byte) {
		startBlob(w, blob, len(blob)/2)
		f.hold(r)
	})
	catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
	err := returns(t, "a pull whose layer stalled", func() error {
		_, err := Pull(context.Background(), f.ref(t, "v1"), dst, PullOptions{Options: Options{IdleTimeout: 200 * time.Millisecond}})
		return err
	})
	t.Logf("pull: %v", err)
	if !errors.Is(err, ErrUnreachable) || refusable(err) || !strings.Contains(err.Error(), "sent nothing") {
		t.Errorf("pull of a layer that stalled: %v; want ErrUnreachable saying the registry sent nothing", err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
		t.Error("the failed pull changed catalog.json")
	}
	verified(t, dst)
}

// TestPullSlowBody: the idle timeout bounds the wait for each byte, not
// the download: a layer that comes slowly, in small pieces, over several
// times IdleTimeout, is pulled.
func TestPullSlowBody(t *testing.T) {
	const idle, pieces, gap = 500 * time.Millisecond, 40, 50 * time.Millisecond // 2 s in all
	f, dst, slow := faultyLayer(t, func(_ *faultyRegistry, w http.ResponseWriter, _ *http.Request, blob []byte) {
		startBlob(w, blob, 0)
		for i := range pieces {
			time.Sleep(gap)
			w.Write(blob[i*len(blob)/pieces : (i+1)*len(blob)/pieces])
			w.(http.Flusher).Flush()
		}
	})
	got, err := Pull(context.Background(), f.ref(t, "v1"), dst, PullOptions{Options: Options{IdleTimeout: idle}})
	if err != nil {
		t.Fatalf("pull of a layer that came in %d pieces %v apart, idle timeout %v: %v", pieces, gap, idle, err)
	}
	if len(got.Downloaded) != 1 || got.Downloaded[0].Digest != slow.Digest {
		t.Errorf("downloaded %v, want %s", got.Downloaded, slow.Digest)
	}
	verified(t, dst)
}
