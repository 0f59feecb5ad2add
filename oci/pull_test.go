package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/codex7/codex7/artifacts"
)

// tagManifest returns a client of ref's repository and the manifest its
// tag points at.
func tagManifest(t *testing.T, ref Reference) (*remote.Repository, ocispec.Manifest) {
	t.Helper()
	repo, err := Options{}.repository(ref)
	if err != nil {
		t.Fatal(err)
	}
	desc, rc, err := repo.FetchReference(context.Background(), ref.Tag())
	if err != nil {
		t.Fatal(err)
	}
	data, err := content.ReadAll(rc, desc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return repo, m
}

// TestPullMissingBlob deletes blobs from the registry's storage, as a
// garbage collection or an incomplete copy of a registry leaves a tag.
// The tag exists, so the pull must not say there is no such artifact
// (ErrNotFound, which 'pull --missing-ok' takes for a first run and exit
// 0) but fail with ErrRegistry naming the blob and what it holds, saying
// to push again, and leave the dist as it was; a push then uploads the
// blob again and the pull succeeds. A tag that does not exist stays
// ErrNotFound.
func TestPullMissingBlob(t *testing.T) {
	reg, s, ref, dst := published(t)
	s.change("gamma")
	res := push(t, s.out, ref, Options{})
	if len(res.Pushed) != 1 {
		t.Fatalf("pushed %v, want gamma alone", res.Pushed)
	}
	_, man := tagManifest(t, ref)
	for _, c := range []struct {
		name, digest, what string
	}{
		{"version layer", res.Pushed[0].Digest, "/acme/gamma@main"},
		{"catalog", man.Layers[0].Digest.String(), artifacts.CatalogFile},
	} {
		t.Run(c.name, func(t *testing.T) {
			catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
			if err := os.Remove(reg.BlobPath(c.digest)); err != nil {
				t.Fatal(err)
			}
			_, err := Pull(context.Background(), ref, dst, PullOptions{})
			t.Logf("pull: %v", err)
			if !errors.Is(err, ErrRegistry) || errors.Is(err, ErrNotFound) {
				t.Errorf("pull of a tag whose blob is gone: %v, want ErrRegistry and not ErrNotFound", err)
			}
			for _, want := range []string{c.digest, c.what, "push the dist again"} {
				if err != nil && !strings.Contains(err.Error(), want) {
					t.Errorf("pull: %v, want it to say %q", err, want)
				}
			}
			if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
				t.Error("the failed pull changed catalog.json")
			}
			verified(t, dst)

			push(t, s.out, ref, Options{})
			pull(t, ref, dst, Options{})
			verified(t, dst)
		})
	}

	_, err := Pull(context.Background(), ref.WithTag("nope"), t.TempDir(), PullOptions{})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "push one with 'indexer push'") {
		t.Errorf("pull of a tag that does not exist: %v, want ErrNotFound saying to push one", err)
	}
}

// TestPullConnectionReset: the registry's connection is reset halfway
// through one version's layer. That is a network failure, which says
// nothing of the version's content: the pull fails with ErrUnreachable
// naming it (and is tried again), refusing nothing, and the dist is left
// as it was; before, the version was refused as content that "does not
// match its digest" and the rest installed.
func TestPullConnectionReset(t *testing.T) {
	f, dst, cut := faultyLayer(t, func(_ *faultyRegistry, w http.ResponseWriter, _ *http.Request, blob []byte) {
		startBlob(w, blob, len(blob)/2)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.(*net.TCPConn).SetLinger(0) // close with a RST
		conn.Close()
	})
	catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
	got, err := Pull(context.Background(), f.ref(t, "v1"), dst, PullOptions{})
	if err == nil {
		t.Fatalf("pull whose download of %s@%s was reset: no error; downloaded %d, refused %v; want the pull to fail, nothing refused",
			cut.Library, cut.Version, len(got.Downloaded), got.Refused)
	}
	t.Logf("pull: %v", err)
	if errors.Is(err, ErrDigest) || refusable(err) || !errors.Is(err, ErrUnreachable) {
		t.Errorf("pull: %v; want ErrUnreachable (a network failure), not a refusal of the content", err)
	}
	if !strings.Contains(err.Error(), cut.Digest) {
		t.Errorf("pull: %v; want it to name the layer %s", err, cut.Digest)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
		t.Error("the failed pull changed catalog.json")
	}
	verified(t, dst)
}

// TestPullChecksCatalogAgainstLayers pushes artifacts whose layers are
// sound but whose catalog.json (sealed, well-formed) does not describe
// them: each pull is refused whole with ErrInvalid, as a catalog that
// does not match the layers is (docs/RELIABILITY.md), both into an empty
// directory and into one that has every version already (where nothing
// is downloaded), and the dist is left as it was. Installed, such a
// catalog leaves a version out, or is what 'indexer verify' reports as
// out of date.
func TestPullChecksCatalogAgainstLayers(t *testing.T) {
	_, _, ref, dst := published(t)
	repo, good := tagManifest(t, ref)
	ctx := context.Background()
	catData, err := fetchAll(ctx, repo, good.Layers[0])
	if err != nil {
		t.Fatal(err)
	}
	catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
	for _, c := range []struct {
		name string
		edit func(c *artifacts.Catalog)
		want string
	}{
		// Three layers, three entries: alpha's twice, beta's none.
		{"one version listed twice, another not at all", func(c *artifacts.Catalog) {
			c.Libraries[0].Versions = append(c.Libraries[0].Versions, c.Libraries[0].Versions[0])
			c.Libraries = slices.Delete(c.Libraries, 1, 2)
		}, "twice"},
		{"one library listed twice", func(c *artifacts.Catalog) {
			c.Libraries = append(c.Libraries, c.Libraries[0])
			c.Libraries[len(c.Libraries)-1].Versions = nil
		}, "twice"},
		{"another commit than the layer's", func(c *artifacts.Catalog) {
			c.Libraries[0].Versions[0].Commit = strings.Repeat("e", 40)
		}, "commit"},
		{"another manifest sum than the layer's", func(c *artifacts.Catalog) {
			c.Libraries[1].Versions[0].Manifest = strings.Repeat("e", 64)
		}, "manifest sha256 eeeeeeeeeeee"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := artifacts.ParseCatalog(catData)
			if err != nil {
				t.Fatal(err)
			}
			c.edit(cat)
			bad, err := artifacts.EncodeCatalog(cat)
			if err != nil {
				t.Fatal(err)
			}
			badDesc := content.NewDescriptorFromBytes(MediaTypeCatalog, bad)
			badDesc.Annotations = good.Layers[0].Annotations
			if _, err := pushIfAbsent(ctx, repo, badDesc, bytes.NewReader(bad)); err != nil {
				t.Fatal(err)
			}
			layers := append([]ocispec.Descriptor{badDesc}, good.Layers[1:]...)
			man, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{Layers: layers, ManifestAnnotations: good.Annotations})
			if err != nil {
				t.Fatal(err)
			}
			for name, into := range map[string]string{"empty": t.TempDir(), "pulled before": dst} {
				res, err := Pull(ctx, ref.WithDigest(man.Digest.String()), into, PullOptions{})
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
					probs, _ := artifacts.Verify(into)
					t.Errorf("pull into %s: %v, want ErrInvalid saying %q; verify of the result: %v", name, err, c.want, probs)
				}
				if err == nil {
					t.Errorf("pull into %s: downloaded %d, removed %v", name, len(res.Downloaded), res.Removed)
				}
			}
			if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
				t.Error("the refused pull changed catalog.json")
			}
			verified(t, dst)
		})
	}
}

// TestPullKeepsWhatIsNoVersion: a pull removes the versions the artifact
// no longer has, and nothing else. A directory three levels down that
// holds no manifest.json (a web build's assets/img/icons, notes kept
// beside the artifacts) is nothing a build or pull wrote and stays, while
// a version the artifact dropped goes.
func TestPullKeepsWhatIsNoVersion(t *testing.T) {
	_, s, ref, dst := published(t)
	mine := filepath.Join(dst, "assets", "img", "icons")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "logo.svg"), []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A web app's manifest.json beside its icons does not make them a version.
	if err := os.WriteFile(filepath.Join(mine, artifacts.ManifestFile), []byte(`{"name":"app"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res := pull(t, ref, dst, Options{})
	if len(res.Removed) != 0 {
		t.Errorf("pull of an unchanged artifact removed %v", res.Removed)
	}
	if _, err := os.Stat(filepath.Join(mine, "logo.svg")); err != nil {
		t.Errorf("pull deleted a directory that holds no version: %v", err)
	}

	// Beta and gamma dropped from the artifact: they go, the icons stay.
	if err := os.RemoveAll(filepath.Join(s.out, "acme", "beta")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(s.out, "acme", "gamma")); err != nil {
		t.Fatal(err)
	}
	if _, err := artifacts.WriteCatalog(s.out, nil); err != nil {
		t.Fatal(err)
	}
	push(t, s.out, ref, Options{})
	res = pull(t, ref, dst, Options{})
	if !slices.Equal(res.Removed, []string{"acme/beta/main", "acme/gamma/main"}) {
		t.Errorf("removed %v, want acme/beta/main and acme/gamma/main", res.Removed)
	}
	if _, err := os.Stat(filepath.Join(mine, "logo.svg")); err != nil {
		t.Errorf("pull deleted a directory that holds no version: %v", err)
	}
}

// TestPullBlobOfAnotherSize grows and cuts short blobs in the registry's
// storage, which the registry then serves with a Content-Length other
// than the manifest's size (oras refuses such an answer before its body
// is read). A version layer is refused alone with ErrDigest naming its
// digest, the rest installed and the previous copy kept, as for a layer
// whose bytes hash to something else; catalog.json fails the pull with
// ErrDigest naming it. Before, either failed the whole pull with no
// sentinel: one layer of the wrong size stopped every version, and a
// mirror, for good.
func TestPullBlobOfAnotherSize(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"longer", func(b []byte) []byte { return append(b, 0, 0, 0) }},
		{"shorter", func(b []byte) []byte { return b[:len(b)-3] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg, s, ref, dst := published(t)
			s.change("gamma")
			res := push(t, s.out, ref, Options{})
			if len(res.Pushed) != 1 {
				t.Fatalf("pushed %v, want gamma alone", res.Pushed)
			}
			layer := res.Pushed[0]
			blob := reg.BlobPath(layer.Digest)
			sound := readFile(t, blob)
			if err := os.WriteFile(blob, c.edit(slices.Clone(sound)), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Pull(context.Background(), ref, dst, PullOptions{})
			if err != nil {
				t.Fatalf("pull: %v (one layer of the wrong size must not stop the rest)", err)
			}
			if len(got.Refused) != 1 || got.Refused[0].Library != "/acme/gamma" || !errors.Is(got.Refused[0].Err, ErrDigest) || !strings.Contains(got.Refused[0].Err.Error(), layer.Digest) {
				t.Fatalf("refused %v; want /acme/gamma refused with ErrDigest naming %s", got.Refused, layer.Digest)
			}
			verified(t, dst)
			if err := os.WriteFile(blob, sound, 0o644); err != nil {
				t.Fatal(err)
			}

			_, man := tagManifest(t, ref)
			catBlob := reg.BlobPath(man.Layers[0].Digest.String())
			catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
			if err := os.WriteFile(catBlob, c.edit(readFile(t, catBlob)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Pull(context.Background(), ref, dst, PullOptions{})
			if !errors.Is(err, ErrDigest) || !strings.Contains(err.Error(), artifacts.CatalogFile) {
				t.Errorf("pull of a catalog of the wrong size: %v, want ErrDigest naming %s", err, artifacts.CatalogFile)
			}
			if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
				t.Error("the failed pull changed catalog.json")
			}
			verified(t, dst)
		})
	}
}

// TestManifestSizeBounded serves the tag's manifest padded past
// maxManifestBytes, with its Content-Length and a Docker-Content-Digest
// that match, which oras reads whole, however large, without the bound
// it applies when it hashes a manifest itself. The pull refuses it with
// ErrInvalid before reading it, leaving the dist as it was, and a push
// takes nothing from it; before, both read it all.
func TestManifestSizeBounded(t *testing.T) {
	reg, _, ref, dst := published(t)
	_, man := tagManifest(t, ref)
	data, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	big := append(data, bytes.Repeat([]byte(" "), maxManifestBytes)...)
	f := newFaultyRegistry(t, reg)
	f.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/manifests/"+ref.Tag()) {
			return false
		}
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		w.Header().Set("Docker-Content-Digest", digest.FromBytes(big).String())
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		w.Write(big)
		return true
	})
	catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
	_, err = Pull(context.Background(), f.ref(t, ref.Tag()), dst, PullOptions{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), strconv.Itoa(len(big))) {
		t.Errorf("pull of a %d-byte manifest: %v, want ErrInvalid naming its size", len(big), err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
		t.Error("the refused pull changed catalog.json")
	}
	verified(t, dst)

	repo, err := Options{}.repository(f.ref(t, ref.Tag()))
	if err != nil {
		t.Fatal(err)
	}
	if known := previousLayers(context.Background(), repo, f.ref(t, ref.Tag()), slog.New(slog.DiscardHandler)); len(known) > 0 {
		t.Errorf("push took %d layers from a %d-byte manifest, want none", len(known), len(big))
	}
}

// TestPullInstallsAtTheCatalogPath pulls a manifest whose layer names its
// library in other case than its path and the catalog (/ACME/alpha at
// acme/alpha/main), which the checks allow, as library ids compare
// folded. The version goes where the catalog lists it, both into an empty
// directory and over an older copy; before, it went to ACME/alpha/main,
// which prune then removed as unlisted, leaving the catalog to list a
// directory absent, or the older copy as out of date.
func TestPullInstallsAtTheCatalogPath(t *testing.T) {
	_, s, ref, dst := published(t)
	s.change("alpha")
	push(t, s.out, ref, Options{})
	repo, good := tagManifest(t, ref)
	layers := slices.Clone(good.Layers)
	i := slices.IndexFunc(layers, func(d ocispec.Descriptor) bool { return d.Annotations[AnnotationLibrary] == "/acme/alpha" })
	d := layers[i]
	d.Annotations = maps.Clone(d.Annotations)
	d.Annotations[AnnotationLibrary] = "/ACME/alpha"
	layers[i] = d
	ctx := context.Background()
	man, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{Layers: layers, ManifestAnnotations: good.Annotations})
	if err != nil {
		t.Fatal(err)
	}
	for name, into := range map[string]string{"empty": t.TempDir(), "pulled before": dst} {
		t.Run(name, func(t *testing.T) {
			res, err := Pull(ctx, ref.WithDigest(man.Digest.String()), into, PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Removed) > 0 || len(res.Refused) > 0 {
				t.Errorf("removed %v, refused %v; want neither", res.Removed, res.Refused)
			}
			verified(t, into)
		})
	}
}

// TestPullManifestOfAnotherDigest serves other bytes than the manifest
// a pull pins by digest (a registry, or a proxy or cache before it, that
// answers with another manifest), with and without a Docker-Content-Digest
// saying so: the pull fails with ErrDigest, the dist left as it was.
// Before, oras' refusal reached the caller wrapping none of the
// package's sentinels.
func TestPullManifestOfAnotherDigest(t *testing.T) {
	reg, _, ref, dst := published(t)
	_, man := tagManifest(t, ref)
	man.Annotations = maps.Clone(man.Annotations)
	man.Annotations["other"] = "manifest"
	other, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := Resolve(context.Background(), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	catBefore := readFile(t, filepath.Join(dst, artifacts.CatalogFile))
	for _, header := range []bool{true, false} {
		t.Run(fmt.Sprintf("digest header %v", header), func(t *testing.T) {
			f := newFaultyRegistry(t, reg)
			f.set(func(w http.ResponseWriter, r *http.Request) bool {
				if !strings.HasSuffix(r.URL.Path, "/manifests/"+pinned) {
					return false
				}
				w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
				if header {
					w.Header().Set("Docker-Content-Digest", digest.FromBytes(other).String())
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(other)))
				w.Write(other)
				return true
			})
			_, err := Pull(context.Background(), f.ref(t, "v1").WithDigest(pinned), dst, PullOptions{})
			if !errors.Is(err, ErrDigest) || !strings.Contains(err.Error(), "manifest") {
				t.Errorf("pull of %s answered with another manifest: %v, want ErrDigest naming the manifest", pinned, err)
			}
			if !bytes.Equal(readFile(t, filepath.Join(dst, artifacts.CatalogFile)), catBefore) {
				t.Error("the refused pull changed catalog.json")
			}
			verified(t, dst)
		})
	}
}
