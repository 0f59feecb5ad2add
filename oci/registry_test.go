package oci

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/registrytest"
)

// site is a few libraries in git repositories, built into a dist.
type site struct {
	t     *testing.T
	repos map[string]*gittest.Repo
	out   string
}

var siteLibraries = []string{"alpha", "beta", "gamma"}

// newSite makes three libraries of a few documents each and builds them.
func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{t: t, repos: map[string]*gittest.Repo{}, out: t.TempDir()}
	for _, name := range siteLibraries {
		r := gittest.New(t, "main")
		files := map[string]string{}
		for i := range 4 {
			files[fmt.Sprintf("docs/page%d.md", i)] = fmt.Sprintf("# %s page %d\n\nThe %s library explains topic %d here.\n\n## Install\n\nRun `go get example.com/%s`.\n\n## Usage %d\n\n%s\n",
				name, i, name, i, name, i, strings.Repeat("Some prose about widgets and gadgets. ", 40))
		}
		r.Write(files)
		r.Commit("docs")
		s.repos[name] = r
	}
	s.build()
	return s
}

func (s *site) build() {
	s.t.Helper()
	buildtest.Build(s.t, s.out, s.config())
}

// config is the site's codex7.yaml.
func (s *site) config() string {
	var cfg strings.Builder
	cfg.WriteString("libraries:\n")
	for _, name := range siteLibraries {
		fmt.Fprintf(&cfg, "  - id: /acme/%s\n    repo: %s\n", name, s.repos[name].Dir)
	}
	return cfg.String()
}

// commit commits a new page to one library without building.
func (s *site) commit(name string) {
	s.t.Helper()
	s.repos[name].Write(map[string]string{"docs/new.md": "# New page\n\nSomething new about " + name + ".\n"})
	s.repos[name].Commit("new page")
}

// change commits a new page to one library and rebuilds.
func (s *site) change(name string) {
	s.t.Helper()
	s.commit(name)
	s.build()
}

func push(t *testing.T, dir string, ref Reference, opts Options) *PushResult {
	t.Helper()
	res, err := Push(context.Background(), dir, ref, PushOptions{Options: opts})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	return res
}

func pull(t *testing.T, ref Reference, dir string, opts Options) *PullResult {
	t.Helper()
	res, err := Pull(context.Background(), ref, dir, PullOptions{Options: opts})
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	return res
}

func mustRef(t *testing.T, s string) Reference {
	t.Helper()
	ref, err := ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func verified(t *testing.T, dir string) {
	t.Helper()
	probs, err := artifacts.Verify(dir)
	if err != nil || len(probs) > 0 {
		t.Fatalf("verify %s: %v %v", dir, err, probs)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// stat returns p's file info, which os.SameFile compares: a rewrite by
// rename makes another file.
func stat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// published builds a site, pushes it to a new registry at
// codex7/docs:v1 and pulls it into a directory.
func published(t *testing.T) (reg *registrytest.Registry, s *site, ref Reference, dst string) {
	t.Helper()
	reg = registrytest.Start(t, registrytest.Options{})
	s = newSite(t)
	ref = mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	push(t, s.out, ref, Options{})
	dst = t.TempDir()
	pull(t, ref, dst, Options{})
	return reg, s, ref, dst
}

// TestRoundTrip pushes a dist, pulls it into an empty directory, and then
// pushes and pulls a change to one library: only that version moves, the
// registry grows by about its layer, and unchanged versions are left on
// disk as they were.
func TestRoundTrip(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")

	first := push(t, s.out, ref, Options{})
	if len(first.Pushed) != 3 || len(first.Present) != 0 || first.BytesSent == 0 {
		t.Fatalf("first push: pushed %d, present %d, %d bytes; want 3, 0, > 0", len(first.Pushed), len(first.Present), first.BytesSent)
	}
	dst := t.TempDir()
	got := pull(t, ref, dst, Options{})
	if len(got.Downloaded) != 3 || got.Digest != first.Digest {
		t.Fatalf("first pull: %d downloaded, digest %s; want 3, %s", len(got.Downloaded), got.Digest, first.Digest)
	}
	verified(t, dst)
	if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), readFile(t, filepath.Join(s.out, artifacts.CatalogFile))) {
		t.Error("pulled catalog.json differs from the pushed one")
	}

	// Pushing the same dist again uploads no layer and gives the same manifest.
	again := push(t, s.out, ref, Options{})
	if len(again.Pushed) != 0 || again.Digest != first.Digest {
		t.Errorf("second push of the same dist: pushed %d, digest %s; want 0, %s", len(again.Pushed), again.Digest, first.Digest)
	}

	unchangedFile := filepath.Join(dst, "acme", "alpha", "main", artifacts.TopicsFile)
	before := stat(t, unchangedFile)
	size := reg.StorageBytes(t)
	s.change("beta")
	second := push(t, s.out, ref, Options{})
	if len(second.Pushed) != 1 || second.Pushed[0].Library != "/acme/beta" || len(second.Present) != 2 {
		t.Fatalf("push after one change: pushed %v, present %d; want /acme/beta alone, 2 present", second.Pushed, len(second.Present))
	}
	grew := reg.StorageBytes(t) - size
	layer := second.Pushed[0].Size
	t.Logf("one changed version: layer %d bytes, registry storage grew %d bytes, %d bytes sent", layer, grew, second.BytesSent)
	if grew < layer || grew > layer+16<<10 {
		t.Errorf("storage grew %d bytes for a %d-byte layer, want about that layer (plus manifests and links)", grew, layer)
	}
	third := pull(t, ref, dst, Options{})
	if len(third.Downloaded) != 1 || third.Downloaded[0].Library != "/acme/beta" || len(third.Unchanged) != 2 {
		t.Fatalf("pull after one change: downloaded %v, unchanged %d", third.Downloaded, len(third.Unchanged))
	}
	verified(t, dst)
	if after := stat(t, unchangedFile); !os.SameFile(before, after) {
		t.Error("an unchanged version was rewritten by the pull")
	}
	if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), readFile(t, filepath.Join(s.out, artifacts.CatalogFile))) {
		t.Error("pulled catalog.json differs from the pushed one after the change")
	}
	// The first push stays pullable by its digest.
	old := t.TempDir()
	if res := pull(t, first.Pinned, old, Options{}); res.Digest != first.Digest {
		t.Errorf("pull by digest got %s, want %s", res.Digest, first.Digest)
	}
	verified(t, old)
}

// TestPullRemovesDroppedVersions checks that a pull leaves exactly what
// the artifact lists.
func TestPullRemovesDroppedVersions(t *testing.T) {
	_, s, ref, dst := published(t)

	// A dist of one library only, pushed to the same tag.
	one := t.TempDir()
	buildtest.Build(t, one, "libraries:\n  - id: /acme/alpha\n    repo: "+s.repos["alpha"].Dir+"\n")
	push(t, one, ref, Options{})
	res := pull(t, ref, dst, Options{})
	if len(res.Removed) != 2 || len(res.Unchanged) != 1 {
		t.Fatalf("removed %v, unchanged %d; want beta and gamma removed, alpha unchanged", res.Removed, len(res.Unchanged))
	}
	verified(t, dst)
	if _, err := os.Stat(filepath.Join(dst, "acme", "beta")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("acme/beta still there: %v", err)
	}
}

// TestPushRefusesDamagedDist checks that a dist failing verification is
// never published.
func TestPushRefusesDamagedDist(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	p := filepath.Join(s.out, "acme", "gamma", "main", artifacts.DocumentsFile)
	os.WriteFile(p, append(readFile(t, p), ' '), 0o644)
	_, err := Push(context.Background(), s.out, mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1"), PushOptions{})
	if !errors.Is(err, ErrBadDist) || !strings.Contains(err.Error(), "acme/gamma/main/documents.json") {
		t.Fatalf("push of a damaged dist: %v, want ErrBadDist naming the file", err)
	}
	if _, err := Resolve(context.Background(), mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1"), Options{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("tag after a refused push: %v, want ErrNotFound", err)
	}
}

// damageLayer flips a byte in the middle of library's layer, as res
// pushed it, in the registry's storage; it returns the layer and the
// blob's path and sound bytes, to mend it with.
func damageLayer(t *testing.T, reg *registrytest.Registry, res *PushResult, library string) (layer PushedVersion, blob string, sound []byte) {
	t.Helper()
	for _, v := range res.Pushed {
		if v.Library == library {
			layer = v
		}
	}
	if layer.Digest == "" {
		t.Fatalf("%s was not pushed", library)
	}
	blob = reg.BlobPath(layer.Digest)
	sound = readFile(t, blob)
	damaged := append([]byte(nil), sound...)
	damaged[len(damaged)/2] ^= 0xff
	if err := os.WriteFile(blob, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	return layer, blob, sound
}

// TestCorruptBlobIsRefused damages a version's blob in the registry's
// storage: the pull refuses that version, naming the digest, installs the
// rest, and keeps the directory's previous copy of the damaged one.
func TestCorruptBlobIsRefused(t *testing.T) {
	reg, s, ref, dst := published(t)

	s.change("beta")
	s.change("gamma")
	bad, _, _ := damageLayer(t, reg, push(t, s.out, ref, Options{}), "/acme/gamma")
	got, err := Pull(context.Background(), ref, dst, PullOptions{})
	if err != nil {
		t.Fatalf("pull: %v (one bad version must not stop the rest)", err)
	}
	if len(got.Refused) != 1 || got.Refused[0].Library != "/acme/gamma" || !errors.Is(got.Refused[0].Err, ErrDigest) || !strings.Contains(got.Refused[0].Err.Error(), bad.Digest) {
		t.Fatalf("refused %v; want /acme/gamma refused with ErrDigest naming %s", got.Refused, bad.Digest)
	}
	if len(got.Downloaded) != 1 || got.Downloaded[0].Library != "/acme/beta" {
		t.Errorf("downloaded %v, want /acme/beta", got.Downloaded)
	}
	verified(t, dst)
	cat, err := artifacts.ReadCatalog(dst)
	if err != nil {
		t.Fatal(err)
	}
	m, err := artifacts.ReadManifest(filepath.Join(dst, "acme", "gamma", "main"))
	if err != nil || cat.Library("/acme/gamma") == nil {
		t.Fatalf("the previous /acme/gamma is gone: %v", err)
	}
	if m.Commit != cat.Library("/acme/gamma").Versions[0].Commit {
		t.Error("the catalog does not describe the copy of /acme/gamma kept")
	}
}

// TestCredentials pushes and pulls through a registry that wants basic
// auth and one that wants bearer tokens from its token service: wrong or
// missing credentials are ErrUnauthorized with a message that says what
// to set, and never show the password.
func TestCredentials(t *testing.T) {
	for _, mode := range []registrytest.AuthMode{registrytest.AuthBasic, registrytest.AuthToken} {
		t.Run(mode.String(), func(t *testing.T) {
			reg := registrytest.Start(t, registrytest.Options{Auth: mode})
			s := newSite(t)
			ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
			noConfig := filepath.Join(t.TempDir(), "config.json")
			for name, opts := range map[string]Options{
				"none":           {DockerConfig: noConfig},
				"wrong password": {Username: reg.Username, Password: "not-the-password-42"},
			} {
				_, err := Push(context.Background(), s.out, ref, PushOptions{Options: opts})
				if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), EnvUsername) {
					t.Errorf("%s: push: %v, want ErrUnauthorized naming %s", name, err, EnvUsername)
				}
				if err != nil && strings.Contains(err.Error(), "not-the-password-42") {
					t.Errorf("%s: the error shows the password: %v", name, err)
				}
			}
			good := Options{Username: reg.Username, Password: reg.Password}
			push(t, s.out, ref, good)
			verifiedPull := t.TempDir()
			pull(t, ref, verifiedPull, good)
			verified(t, verifiedPull)

			// Docker's config file, as docker login writes it.
			cfg := filepath.Join(t.TempDir(), "config.json")
			auth := base64.StdEncoding.EncodeToString([]byte(reg.Username + ":" + reg.Password))
			os.WriteFile(cfg, []byte(`{"auths":{"`+reg.Host+`":{"auth":"`+auth+`"}}}`), 0o600)
			pull(t, ref, t.TempDir(), Options{DockerConfig: cfg})

			// A credential helper, as docker-credential-* programs answer
			// `get` with the server's address on stdin.
			bin := t.TempDir()
			helper := "#!/bin/sh\nread server\n[ \"$server\" = \"" + reg.Host + "\" ] || exit 1\n" +
				"printf '{\"ServerURL\":\"%s\",\"Username\":\"" + reg.Username + "\",\"Secret\":\"" + reg.Password + "\"}' \"$server\"\n"
			if err := os.WriteFile(filepath.Join(bin, "docker-credential-codex7test"), []byte(helper), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			os.WriteFile(cfg, []byte(`{"credHelpers":{"`+reg.Host+`":"codex7test"}}`), 0o600)
			pull(t, ref, t.TempDir(), Options{DockerConfig: cfg})
		})
	}
}

// TestTLS checks that a registry whose certificate comes from a private
// CA is refused without --ca-file, with a message that says so, and used
// with it.
func TestTLS(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{TLS: true, Auth: registrytest.AuthToken})
	s := newSite(t)
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	creds := Options{Username: reg.Username, Password: reg.Password}
	_, err := Push(context.Background(), s.out, ref, PushOptions{Options: creds})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "--ca-file") {
		t.Fatalf("push to a TLS registry of an unknown CA: %v, want ErrUnreachable naming --ca-file", err)
	}
	creds.CAFile = reg.CAFile
	push(t, s.out, ref, creds)
	dst := t.TempDir()
	pull(t, ref, dst, creds)
	verified(t, dst)
}

// TestRegistryDown checks the error of a registry that is not there.
func TestRegistryDown(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	reg.Stop()
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	if _, err := Pull(context.Background(), ref, t.TempDir(), PullOptions{}); !errors.Is(err, ErrUnreachable) {
		t.Errorf("pull from a stopped registry: %v, want ErrUnreachable", err)
	}
	if _, err := Resolve(context.Background(), ref, Options{}); !errors.Is(err, ErrUnreachable) {
		t.Errorf("resolve on a stopped registry: %v, want ErrUnreachable", err)
	}
}

// TestPullRefusesHostileManifests pushes manifests a broken or hostile
// publisher could make to the real registry: each pull is refused whole,
// naming the problem, and the directory pulled into is left as it was.
func TestPullRefusesHostileManifests(t *testing.T) {
	_, _, ref, dst := published(t)
	catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))

	repo, good := tagManifest(t, ref)
	ctx := context.Background()
	withLayer := func(i int, edit func(d *ocispec.Descriptor)) []ocispec.Descriptor {
		layers := slices.Clone(good.Layers)
		d := layers[i]
		d.Annotations = maps.Clone(d.Annotations)
		edit(&d)
		layers[i] = d
		return layers
	}
	for _, c := range []struct {
		name   string
		typ    string
		layers []ocispec.Descriptor
		want   string
	}{
		{"version twice", ArtifactType, append(slices.Clone(good.Layers), good.Layers[1]), "named twice"},
		{"path outside the dist", ArtifactType, withLayer(1, func(d *ocispec.Descriptor) {
			d.Annotations[ocispec.AnnotationTitle] = "../../escape"
		}), "is not org/project/version"},
		{"path of another library", ArtifactType, withLayer(1, func(d *ocispec.Descriptor) {
			d.Annotations[ocispec.AnnotationTitle] = "acme/other/main"
		}), "is not the directory of"},
		{"another artifact type", "application/vnd.cncf.helm.config.v1+json", good.Layers, "artifact type"},
		{"catalog not first", ArtifactType, append(slices.Clone(good.Layers[1:]), good.Layers[0]), "first layer"},
		{"layer the catalog does not list", ArtifactType, withLayer(1, func(d *ocispec.Descriptor) {
			d.Annotations[ocispec.AnnotationTitle] = "acme/zeta/main"
			d.Annotations[AnnotationLibrary] = "/acme/zeta"
		}), "no layer carries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, c.typ, oras.PackManifestOptions{Layers: c.layers, ManifestAnnotations: good.Annotations})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Pull(ctx, ref.WithDigest(bad.Digest.String()), dst, PullOptions{})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("pull: %v, want ErrInvalid saying %q", err, c.want)
			}
			if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
				t.Error("the refused pull changed catalog.json")
			}
			verified(t, dst)
		})
	}

	// A layer whose commit annotation is not its manifest's commit is
	// refused alone, into an empty directory (nothing to keep).
	t.Run("commit annotation of another commit", func(t *testing.T) {
		layers := withLayer(1, func(d *ocispec.Descriptor) { d.Annotations[AnnotationCommit] = strings.Repeat("f", 40) })
		bad, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{Layers: layers, ManifestAnnotations: good.Annotations})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Pull(ctx, ref.WithDigest(bad.Digest.String()), t.TempDir(), PullOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Refused) != 1 || !errors.Is(res.Refused[0].Err, ErrInvalid) || !strings.Contains(res.Refused[0].Err.Error(), "ffffffffffff") || len(res.Downloaded) != 2 {
			t.Errorf("refused %v, downloaded %d; want the one layer refused naming its annotation, the other two installed", res.Refused, len(res.Downloaded))
		}
	})
}

// TestMirrorLogsInOnce polls an unchanged tag of a registry that wants
// bearer tokens: after the first pull, each poll is one HEAD with the
// token already held, not a new login per poll.
func TestMirrorLogsInOnce(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	s := newSite(t)
	creds := Options{Username: reg.Username, Password: reg.Password}
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	push(t, s.out, ref, creds)
	m := NewMirror(ref, t.TempDir(), time.Second, PullOptions{Options: creds})
	ctx := context.Background()
	if err := m.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	before := reg.TokenRequests()
	for range 5 {
		if err := m.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := reg.TokenRequests() - before; n > 1 {
		t.Errorf("5 polls of an unchanged tag asked the token service %d times, want at most once", n)
	}
	verified(t, m.Dir())
}

// faultyRegistry passes requests on to a test registry, except those its
// fault takes: a registry, or a network to it, that fails in the middle of
// an answer, or stops reading an upload.
type faultyRegistry struct {
	host  string
	proxy http.Handler  // passes a request on to the registry
	done  chan struct{} // closed as the test ends: held requests return
	mu    sync.Mutex
	fault func(w http.ResponseWriter, r *http.Request) bool
}

// faultyReadBuffer is the receive buffer of the faulty registry's
// connections: an upload it stops reading then fills the client's send
// buffer (at most the system's, 4 MiB on Linux) and no more before the
// client's writes wait, whatever the system lets receive buffers grow to.
const faultyReadBuffer = 64 << 10

func newFaultyRegistry(t *testing.T, reg *registrytest.Registry) *faultyRegistry {
	t.Helper()
	upstream, err := url.Parse("http://" + reg.Host)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.ErrorLog = log.New(io.Discard, "", 0) // requests the client gave up on
	f := &faultyRegistry{proxy: rp, done: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		fault := f.fault
		f.mu.Unlock()
		if fault == nil || !fault(w, r) {
			rp.ServeHTTP(w, r)
		}
	}))
	srv.Listener = smallReadBuffer{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(f.done) })
	f.host = strings.TrimPrefix(srv.URL, "http://")
	return f
}

// ref is the reference of repository codex7/docs at tag through f.
func (f *faultyRegistry) ref(t *testing.T, tag string) Reference {
	return mustRef(t, "oci://"+f.host+"/codex7/docs:"+tag)
}

// set makes fault take the requests it returns true for; nil passes all.
func (f *faultyRegistry) set(fault func(w http.ResponseWriter, r *http.Request) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault = fault
}

// forward passes r on to the registry, as when no fault takes it.
func (f *faultyRegistry) forward(w http.ResponseWriter, r *http.Request) {
	f.proxy.ServeHTTP(w, r)
}

// hold keeps a request without answering further until the client gives
// up on it or the test ends.
func (f *faultyRegistry) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-f.done:
	}
}

// smallReadBuffer is a listener whose connections receive into
// faultyReadBuffer bytes.
type smallReadBuffer struct{ net.Listener }

func (l smallReadBuffer) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetReadBuffer(faultyReadBuffer)
	}
	return c, err
}

// faultyLayer publishes a dist (see published), changes one version and
// pushes it, and puts a faulty registry in front whose answer to the
// download of that version's layer is onLayer's (blob is the layer's
// bytes). It returns the faulty registry, the directory pulled into before
// the change, and the changed version.
func faultyLayer(t *testing.T, onLayer func(f *faultyRegistry, w http.ResponseWriter, r *http.Request, blob []byte)) (f *faultyRegistry, dst string, changed PushedVersion) {
	t.Helper()
	reg, s, ref, dst := published(t)
	s.change("beta")
	changed = push(t, s.out, ref, Options{}).Pushed[0]
	blob := readFile(t, reg.BlobPath(changed.Digest))
	f = newFaultyRegistry(t, reg)
	f.set(func(w http.ResponseWriter, r *http.Request) bool {
		if !blobGet(r, changed.Digest) {
			return false
		}
		onLayer(f, w, r, blob)
		return true
	})
	return f, dst, changed
}

// blobGet reports whether r downloads the blob dgst.
func blobGet(r *http.Request, dgst string) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/blobs/"+dgst)
}

// blobPut reports whether r is the upload of the blob dgst (oras uploads
// a blob whole, with a PUT that names its digest).
func blobPut(r *http.Request, dgst string) bool {
	return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/blobs/uploads/") && r.URL.Query().Get("digest") == dgst
}

// startBlob answers a download of blob with its headers and its first n
// bytes, flushed.
func startBlob(w http.ResponseWriter, blob []byte, n int) {
	w.Header().Set("Content-Length", strconv.Itoa(len(blob)))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	w.Write(blob[:n])
	w.(http.Flusher).Flush()
}
