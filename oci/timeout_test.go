package oci

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

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
// times IdleTimeout, is pulled. IdleTimeout is 40 times the gaps, as in
// TestPushSlowUpload: a loaded CI machine may leave the test without the
// CPU for a second.
func TestPullSlowBody(t *testing.T) {
	const idle, pieces, gap = 2 * time.Second, 100, 50 * time.Millisecond // 5 s in all
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

// TestPushStalledUpload: the registry (here a proxy in front of it) takes
// the upload of a layer and its first MiB, then reads no more of it,
// holding the connection open, as a registry or a proxy that stalls. The
// push fails with ErrUnreachable naming the registry and the layer and
// saying to try again, once the connection took no more of the layer for
// IdleTimeout (set short); without it the push waited forever, since an
// answer is only waited for once the request is sent. Nothing is
// published (the tag stays where an earlier push set it, the registry has
// no such blob), and the push tried again once the registry reads
// succeeds and pulls whole.
func TestPushStalledUpload(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	direct := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	before := push(t, s.out, direct, Options{})
	fat := s.fatten("beta", fatSize)
	f := newFaultyRegistry(t, reg)
	cut := make(chan struct{}) // closed: the proxy gives the upload up
	f.set(func(w http.ResponseWriter, r *http.Request) bool {
		if !blobPut(r, fat.Digest.String()) {
			return false
		}
		r.Body = &stallingBody{ReadCloser: r.Body, n: 1 << 20, cut: cut, done: f.done}
		f.forward(w, r)
		return true
	})
	ref := f.ref(t, "v1")
	err := returns(t, "a push whose upload stalled", func() error {
		_, err := Push(context.Background(), s.out, ref, PushOptions{Options: Options{IdleTimeout: 200 * time.Millisecond}})
		return err
	})
	close(cut)
	t.Logf("push: %v", err)
	if msg := fmt.Sprint(err); !errors.Is(err, ErrUnreachable) || !strings.Contains(msg, ref.String()) ||
		!strings.Contains(msg, "/acme/beta@main: upload layer "+fat.Digest.String()) || !strings.Contains(msg, "made no progress") || !strings.Contains(msg, "try again") {
		t.Errorf("push of a layer the registry stopped reading: %v; want ErrUnreachable naming %s and the layer %s, saying the upload made no progress and to try again", err, ref, fat.Digest)
	}

	if got, err := Resolve(context.Background(), direct, Options{}); err != nil || got != before.Digest {
		t.Errorf("tag after the stalled push: %s (%v), want %s, where the earlier push set it", got, err, before.Digest)
	}
	repo, err := Options{}.repository(direct)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := repo.Exists(context.Background(), fat); ok || err != nil {
		t.Errorf("the registry has the layer whose upload stalled: %v (%v)", ok, err)
	}

	// Tried again with the default timeouts: the test is of what the
	// stalled push left, not of timing.
	f.set(nil)
	res, err := Push(context.Background(), s.out, ref, PushOptions{})
	if err != nil {
		t.Fatalf("push again once the registry reads: %v", err)
	}
	if !slices.ContainsFunc(res.Pushed, func(v PushedVersion) bool { return v.Digest == fat.Digest.String() }) {
		t.Errorf("push again: pushed %v, want the layer %s among them", res.Pushed, fat.Digest)
	}
	dst := t.TempDir()
	if got := pull(t, direct, dst, Options{}); len(got.Downloaded) != 3 || got.Digest != res.Digest {
		t.Errorf("pull of the pushed %s: downloaded %d, digest %s; want 3, %s", res.Digest, len(got.Downloaded), got.Digest, res.Digest)
	}
	verified(t, dst)
}

// TestPushSlowUpload: the idle timeout bounds each wait of an upload for
// the registry to take more of it, not the upload, nor the wait for the
// answer once the registry took it all (ResponseTimeout's): a layer the
// registry reads slowly, in pieces 50 ms apart over several times
// IdleTimeout, is pushed, and so is one the registry answers only twice
// IdleTimeout after it read it (as a registry moving a large blob into
// its storage). IdleTimeout is 40 times the gaps: on a loaded machine (CI
// runs packages side by side on two cores) a test process may go without
// the CPU for a second.
func TestPushSlowUpload(t *testing.T) {
	const idle = 2 * time.Second
	s := newSite(t)
	fat := s.fatten("beta", fatSize)
	for _, c := range []struct {
		name   string
		upload func(f *faultyRegistry, w http.ResponseWriter, r *http.Request)
	}{
		{"read slowly", func(f *faultyRegistry, w http.ResponseWriter, r *http.Request) {
			r.Body = &slowBody{ReadCloser: r.Body, piece: 128 << 10, gap: 50 * time.Millisecond} // 128 pieces, 6.4 s
			f.forward(w, r)
		}},
		{"answered slowly", func(f *faultyRegistry, w http.ResponseWriter, r *http.Request) {
			f.forward(slowAnswer{ResponseWriter: w, delay: 2 * idle}, r)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := registrytest.Start(t, registrytest.Options{})
			f := newFaultyRegistry(t, reg)
			f.set(func(w http.ResponseWriter, r *http.Request) bool {
				if !blobPut(r, fat.Digest.String()) {
					return false
				}
				c.upload(f, w, r)
				return true
			})
			ref := f.ref(t, "v1")
			res, err := Push(context.Background(), s.out, ref, PushOptions{Options: Options{IdleTimeout: idle}})
			if err != nil {
				t.Fatalf("push, idle timeout %v: %v", idle, err)
			}
			if !slices.ContainsFunc(res.Pushed, func(v PushedVersion) bool { return v.Digest == fat.Digest.String() }) {
				t.Errorf("pushed %v, want the layer %s among them", res.Pushed, fat.Digest)
			}
			dst := t.TempDir()
			if got := pull(t, ref, dst, Options{}); len(got.Downloaded) != 3 {
				t.Errorf("pull of the pushed %s: downloaded %d, want 3", res.Digest, len(got.Downloaded))
			}
			verified(t, dst)
		})
	}
}

// fatSize is the size of the file fatten adds: four times the most a
// connection's buffers hold before the client's writes wait (the client's
// send buffer, 4 MiB at most on Linux, and faultyReadBuffer), so that an
// upload the registry stops reading, or reads slowly, waits on it.
const fatSize = 16 << 20

// fatten adds a file of size random bytes (which gzip cannot shrink) to
// the version main of library name, lists it in the version's
// manifest.json and rewrites catalog.json, and returns the descriptor of
// the version's layer.
func (s *site) fatten(name string, size int) ocispec.Descriptor {
	s.t.Helper()
	release, err := artifacts.Lock(s.out)
	if err != nil {
		s.t.Fatal(err)
	}
	defer release()
	dir := artifacts.Dir(s.out, "/acme/"+name, "main")
	data := make([]byte, size)
	rand.NewChaCha8([32]byte{}).Read(data)
	if err := os.WriteFile(filepath.Join(dir, "fat.bin"), data, 0o644); err != nil {
		s.t.Fatal(err)
	}
	m, err := artifacts.ReadManifest(dir)
	if err != nil {
		s.t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	m.Files["fat.bin"] = hex.EncodeToString(sum[:])
	enc, err := artifacts.EncodeManifest(m)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, artifacts.ManifestFile), enc, 0o644); err != nil {
		s.t.Fatal(err)
	}
	if _, err := artifacts.WriteCatalog(s.out, nil); err != nil {
		s.t.Fatal(err)
	}
	desc, err := writeLayer(dir, io.Discard)
	if err != nil {
		s.t.Fatal(err)
	}
	return desc
}

// stallingBody is a request body of which the server reads n bytes, then
// nothing until cut or done is closed, and then fails: a registry that
// stopped reading an upload.
type stallingBody struct {
	io.ReadCloser
	n         int
	cut, done <-chan struct{}
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		select {
		case <-b.cut:
		case <-b.done:
		}
		return 0, errors.New("upload given up by the test")
	}
	n, err := b.ReadCloser.Read(p[:min(len(p), b.n)])
	b.n -= n
	return n, err
}

// slowAnswer is a response writer that sends the answer's status delay
// after it is given: the registry's answer comes late.
type slowAnswer struct {
	http.ResponseWriter
	delay time.Duration
}

func (w slowAnswer) WriteHeader(code int) {
	time.Sleep(w.delay)
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the writer wrapped.
func (w slowAnswer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// slowBody is a request body the server reads piece bytes at a time, gap
// apart.
type slowBody struct {
	io.ReadCloser
	piece, left int
	gap         time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		time.Sleep(b.gap)
		b.left = b.piece
	}
	n, err := b.ReadCloser.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}
