package oci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/memory"

	"github.com/codex7/codex7/artifacts"
)

// testCatalogLayer is the catalog layer of a test manifest, annotated as
// Push annotates it.
func testCatalogLayer() ocispec.Descriptor {
	data := []byte(`{"format_version":6,"libraries":[]}`)
	return ocispec.Descriptor{
		MediaType:   MediaTypeCatalog,
		Digest:      digest.FromBytes(data),
		Size:        int64(len(data)),
		Annotations: map[string]string{ocispec.AnnotationTitle: artifacts.CatalogFile},
	}
}

// testVersionLayer is the layer of version of lib at path p, annotated by
// versionAnnotations as Push annotates it.
func testVersionLayer(lib, version, p string) ocispec.Descriptor {
	v := artifacts.CatalogVersion{Version: version, Ref: "v" + version, Commit: "0123456789abcdef0123456789abcdef01234567", Path: p}
	sum := sha256.Sum256([]byte("manifest.json of " + lib + "@" + version))
	return ocispec.Descriptor{
		MediaType:   MediaTypeVersion,
		Digest:      digest.FromString("layer of " + lib + "@" + version),
		Size:        4096,
		Annotations: versionAnnotations(lib, v, v.Commit, hex.EncodeToString(sum[:])),
	}
}

// testDistManifest is a dist's manifest as Push makes it: the catalog
// layer, then three versions of two libraries.
func testDistManifest() ocispec.Manifest {
	return ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       ocispec.DescriptorEmptyJSON,
		Layers: []ocispec.Descriptor{
			testCatalogLayer(),
			testVersionLayer("/acme/widgets", "1.0", "acme/widgets/1.0"),
			testVersionLayer("/acme/widgets", "2.0", "acme/widgets/2.0"),
			testVersionLayer("/acme/gadgets", "v3.1.0-rc.1", "acme/gadgets/v3.1.0-rc.1"),
		},
		Annotations: map[string]string{
			ocispec.AnnotationCreated: "2025-01-02T03:04:05Z",
			AnnotationFormat:          strconv.Itoa(artifacts.FormatVersion),
		},
	}
}

func marshalManifest(t testing.TB, m ocispec.Manifest) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkParsed checks what parseManifest returned for m against m's layers.
func checkParsed(t *testing.T, m ocispec.Manifest, catalog ocispec.Descriptor, versions []layerInfo) {
	t.Helper()
	if catalog.MediaType != MediaTypeCatalog || catalog.Digest != m.Layers[0].Digest || catalog.Size != m.Layers[0].Size {
		t.Errorf("catalog: got %s %s %d, want %s %s %d", catalog.MediaType, catalog.Digest, catalog.Size, m.Layers[0].MediaType, m.Layers[0].Digest, m.Layers[0].Size)
	}
	if len(versions) != len(m.Layers)-1 {
		t.Fatalf("got %d versions, want %d", len(versions), len(m.Layers)-1)
	}
	for i, got := range versions {
		d := m.Layers[i+1]
		want := layerInfo{path: d.Annotations[ocispec.AnnotationTitle], library: d.Annotations[AnnotationLibrary], version: d.Annotations[AnnotationVersion],
			commit: d.Annotations[AnnotationCommit], manifest: d.Annotations[AnnotationManifest]}
		if got.path != want.path || got.library != want.library || got.version != want.version || got.commit != want.commit || got.manifest != want.manifest {
			t.Errorf("version %d: got %s %s@%s commit %s manifest %s, want %s %s@%s commit %s manifest %s", i,
				got.path, got.library, got.version, got.commit, got.manifest, want.path, want.library, want.version, want.commit, want.manifest)
		}
		if got.desc.MediaType != d.MediaType || got.desc.Digest != d.Digest || got.desc.Size != d.Size {
			t.Errorf("version %d: got layer %s %s %d, want %s %s %d", i, got.desc.MediaType, got.desc.Digest, got.desc.Size, d.MediaType, d.Digest, d.Size)
		}
	}
}

func TestParseManifestAccepts(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *ocispec.Manifest)
	}{
		{"as push makes it", func(m *ocispec.Manifest) {}},
		{"no versions", func(m *ocispec.Manifest) { m.Layers = m.Layers[:1] }},
		{"no media type", func(m *ocispec.Manifest) { m.MediaType = "" }},
		{"more annotations", func(m *ocispec.Manifest) {
			m.Annotations["org.opencontainers.image.source"] = "https://example.com"
			m.Layers[1].Annotations["x"] = "y"
		}},
		{"no commit", func(m *ocispec.Manifest) { delete(m.Layers[1].Annotations, AnnotationCommit) }},
		{"catalog at the size bound", func(m *ocispec.Manifest) { m.Layers[0].Size = maxCatalogBytes }},
		{"empty catalog", func(m *ocispec.Manifest) { m.Layers[0].Size = 0 }},
		{"capitals in the library", func(m *ocispec.Manifest) {
			m.Layers[1] = testVersionLayer("/Acme/Widgets", "1.0", "Acme/Widgets/1.0")
		}},
		{"library without leading slash", func(m *ocispec.Manifest) { m.Layers[1] = testVersionLayer("acme/widgets", "1.0", "acme/widgets/1.0") }},
		{"dots inside names", func(m *ocispec.Manifest) { m.Layers[1] = testVersionLayer("/acme/w..x", "1..0", "acme/w..x/1..0") }},
		{"same version of two libraries", func(m *ocispec.Manifest) { m.Layers[2] = testVersionLayer("/acme/gizmos", "1.0", "acme/gizmos/1.0") }},
		{"sha512 layer digest", func(m *ocispec.Manifest) { m.Layers[1].Digest = digest.SHA512.FromString("layer") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testDistManifest()
			tt.change(&m)
			catalog, versions, err := parseManifest(marshalManifest(t, m))
			if err != nil {
				t.Fatalf("parseManifest: got error %v, want none", err)
			}
			checkParsed(t, m, catalog, versions)
		})
	}
}

// TestParseManifestAcceptsPackManifest checks parseManifest against the
// manifest oras.PackManifest makes for Push, not one made by hand.
func TestParseManifestAcceptsPackManifest(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	want := testDistManifest()
	desc, err := oras.PackManifest(ctx, store, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		Layers:              want.Layers,
		ManifestAnnotations: want.Annotations,
	})
	if err != nil {
		t.Fatalf("PackManifest: %v", err)
	}
	rc, err := store.Fetch(ctx, desc)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	catalog, versions, err := parseManifest(data)
	if err != nil {
		t.Fatalf("parseManifest of PackManifest's manifest: got error %v, want none\n%s", err, data)
	}
	checkParsed(t, want, catalog, versions)
}

func TestParseManifestRefuses(t *testing.T) {
	format := strconv.Itoa(artifacts.FormatVersion)
	setLayer := func(i int, lib, version, p string) func(m *ocispec.Manifest) {
		return func(m *ocispec.Manifest) { m.Layers[i] = testVersionLayer(lib, version, p) }
	}
	annotate := func(i int, key, value string) func(m *ocispec.Manifest) {
		return func(m *ocispec.Manifest) { m.Layers[i].Annotations[key] = value }
	}
	tests := []struct {
		name    string
		change  func(m *ocispec.Manifest)
		raw     string // the manifest instead, when set
		want    error
		wantMsg string
	}{
		// Not a manifest.
		{name: "not JSON", raw: "{", want: ErrInvalid},
		{name: "empty", raw: " ", want: ErrInvalid},
		{name: "null", raw: "null", want: ErrInvalid},
		{name: "array", raw: "[]", want: ErrInvalid},
		{name: "layers not a list", raw: `{"artifactType":"` + ArtifactType + `","layers":{}}`, want: ErrInvalid},
		{name: "size not a number", raw: `{"artifactType":"` + ArtifactType + `","layers":[{"size":"1"}]}`, want: ErrInvalid},
		{name: "an index", change: func(m *ocispec.Manifest) { m.MediaType = ocispec.MediaTypeImageIndex }, want: ErrInvalid, wantMsg: "manifest media type"},
		{name: "a docker manifest", change: func(m *ocispec.Manifest) { m.MediaType = "application/vnd.docker.distribution.manifest.v2+json" }, want: ErrInvalid},

		// Another artifact.
		{name: "no artifact type", change: func(m *ocispec.Manifest) { m.ArtifactType = "" }, want: ErrInvalid, wantMsg: "indexer push"},
		{name: "an image", change: func(m *ocispec.Manifest) { m.ArtifactType = ocispec.MediaTypeImageConfig }, want: ErrInvalid, wantMsg: "indexer push"},
		{name: "next artifact type", change: func(m *ocispec.Manifest) { m.ArtifactType = "application/vnd.codex7.dist.v2" }, want: ErrInvalid},
		{name: "artifact type in capitals", change: func(m *ocispec.Manifest) { m.ArtifactType = strings.ToUpper(ArtifactType) }, want: ErrInvalid},

		// Another format.
		{name: "older format", change: func(m *ocispec.Manifest) { m.Annotations[AnnotationFormat] = strconv.Itoa(artifacts.FormatVersion - 1) }, want: artifacts.ErrFormatVersion, wantMsg: "this program reads " + format},
		{name: "newer format", change: func(m *ocispec.Manifest) { m.Annotations[AnnotationFormat] = strconv.Itoa(artifacts.FormatVersion + 1) }, want: artifacts.ErrFormatVersion},
		{name: "format zero-padded", change: func(m *ocispec.Manifest) { m.Annotations[AnnotationFormat] = "0" + format }, want: artifacts.ErrFormatVersion},
		{name: "format with space", change: func(m *ocispec.Manifest) { m.Annotations[AnnotationFormat] = format + " " }, want: artifacts.ErrFormatVersion},
		{name: "no format", change: func(m *ocispec.Manifest) { delete(m.Annotations, AnnotationFormat) }, want: artifacts.ErrFormatVersion},
		{name: "no manifest annotations", change: func(m *ocispec.Manifest) { m.Annotations = nil }, want: artifacts.ErrFormatVersion},
		{name: "format on a layer only", change: func(m *ocispec.Manifest) {
			m.Layers[0].Annotations[AnnotationFormat] = m.Annotations[AnnotationFormat]
			delete(m.Annotations, AnnotationFormat)
		}, want: artifacts.ErrFormatVersion},

		// Layers out of place.
		{name: "no layers", change: func(m *ocispec.Manifest) { m.Layers = nil }, want: ErrInvalid, wantMsg: artifacts.CatalogFile},
		{name: "catalog second", change: func(m *ocispec.Manifest) { m.Layers[0], m.Layers[1] = m.Layers[1], m.Layers[0] }, want: ErrInvalid, wantMsg: artifacts.CatalogFile},
		{name: "catalog last", change: func(m *ocispec.Manifest) { m.Layers = append(m.Layers[1:], m.Layers[0]) }, want: ErrInvalid},
		{name: "no catalog", change: func(m *ocispec.Manifest) { m.Layers = m.Layers[1:] }, want: ErrInvalid},
		{name: "catalog as an image layer", change: func(m *ocispec.Manifest) { m.Layers[0].MediaType = ocispec.MediaTypeImageLayerGzip }, want: ErrInvalid},
		{name: "image layer", change: func(m *ocispec.Manifest) { m.Layers[2].MediaType = ocispec.MediaTypeImageLayerGzip }, want: ErrInvalid, wantMsg: "layer 2"},
		{name: "untyped layer", change: func(m *ocispec.Manifest) { m.Layers[1].MediaType = "" }, want: ErrInvalid},
		{name: "second catalog", change: func(m *ocispec.Manifest) { m.Layers = append(m.Layers, testCatalogLayer()) }, want: ErrInvalid},
		{name: "too many layers", change: func(m *ocispec.Manifest) {
			m.Layers = append(m.Layers, make([]ocispec.Descriptor, maxLayers)...)
		}, want: ErrInvalid, wantMsg: "at most"},

		// Named twice.
		{name: "same layer twice", change: func(m *ocispec.Manifest) { m.Layers = append(m.Layers, m.Layers[1]) }, want: ErrInvalid, wantMsg: "named twice"},
		{name: "same version at two paths", change: setLayer(2, "/acme/widgets", "1.0", "ACME/Widgets/1.0"), want: ErrInvalid, wantMsg: "named twice"},
		{name: "same version with the library in capitals", change: setLayer(2, "/ACME/widgets", "1.0", "ACME/widgets/1.0"), want: ErrInvalid, wantMsg: "named twice"},
		{name: "same path for two library spellings", change: setLayer(2, "acme/widgets/", "1.0", "acme/widgets/1.0"), want: ErrInvalid, wantMsg: "named twice"},
		{name: "versions differing in case only", change: func(m *ocispec.Manifest) {
			m.Layers[1] = testVersionLayer("/acme/widgets", "1.0-RC", "acme/widgets/1.0-RC")
			m.Layers[2] = testVersionLayer("/acme/widgets", "1.0-rc", "acme/widgets/1.0-rc")
		}, want: ErrInvalid, wantMsg: "named twice"},
		{name: "same path for another layer", change: func(m *ocispec.Manifest) {
			m.Layers = append(m.Layers, testVersionLayer("/acme/widgets", "1.0", "acme/widgets/1.0"))
			m.Layers[len(m.Layers)-1].Digest = digest.FromString("another layer")
		}, want: ErrInvalid, wantMsg: "named twice"},

		// Paths outside the dist, or not where the version goes.
		{name: "path ../x/y", change: setLayer(1, "/../x", "y", "../x/y"), want: ErrInvalid, wantMsg: "org/project/version"},
		{name: "path ../../y", change: setLayer(1, "/../..", "y", "../../y"), want: ErrInvalid},
		{name: "path x/../y", change: setLayer(1, "/x/..", "y", "x/../y"), want: ErrInvalid},
		{name: "path a/b/..", change: setLayer(1, "/a/b", "..", "a/b/.."), want: ErrInvalid},
		{name: "path /a/b/c", change: setLayer(1, "/a/b", "c", "/a/b/c"), want: ErrInvalid},
		{name: "path a/b", change: setLayer(1, "/a", "b", "a/b"), want: ErrInvalid},
		{name: "path a", change: setLayer(1, "/", "a", "a"), want: ErrInvalid},
		{name: "path a/b/c/d", change: setLayer(1, "/a/b/c", "d", "a/b/c/d"), want: ErrInvalid},
		{name: "path a/b/c/d with a slash in the version", change: setLayer(1, "/a/b", "c/d", "a/b/c/d"), want: ErrInvalid},
		{name: "path .staging/x/y", change: setLayer(1, "/.staging/x", "y", ".staging/x/y"), want: ErrInvalid},
		{name: "path a/.hidden/c", change: setLayer(1, "/a/.hidden", "c", "a/.hidden/c"), want: ErrInvalid},
		{name: "path a/b/.c", change: setLayer(1, "/a/b", ".c", "a/b/.c"), want: ErrInvalid},
		{name: "path a/./b", change: setLayer(1, "/a/.", "b", "a/./b"), want: ErrInvalid},
		{name: "path a/b/.", change: setLayer(1, "/a/b", ".", "a/b/."), want: ErrInvalid},
		{name: "path a//c", change: setLayer(1, "/a/", "c", "a//c"), want: ErrInvalid},
		{name: "path a/b/c/", change: setLayer(1, "/a/b", "c/", "a/b/c/"), want: ErrInvalid},
		{name: `path a\b\c`, change: setLayer(1, `/a\b`, "c", `a\b\c`), want: ErrInvalid},
		{name: `path a/b/c\d`, change: setLayer(1, "/a/b", `c\d`, `a/b/c\d`), want: ErrInvalid},
		{name: `path a/b/..\..\x`, change: setLayer(1, "/a/b", `..\..\x`, `a/b/..\..\x`), want: ErrInvalid},
		{name: "path a/b/c:d", change: setLayer(1, "/a/b", "c:d", "a/b/c:d"), want: ErrInvalid},
		{name: "path c:/b/c", change: setLayer(1, "/c:/b", "c", "c:/b/c"), want: ErrInvalid},
		{name: "path with NUL", change: setLayer(1, "/a/b", "c\x00", "a/b/c\x00"), want: ErrInvalid},
		{name: "path of another library", change: annotate(1, ocispec.AnnotationTitle, "acme/gadgets/1.0"), want: ErrInvalid, wantMsg: "not the directory of /acme/widgets@1.0"},
		{name: "path of another version", change: annotate(1, ocispec.AnnotationTitle, "acme/widgets/2.1"), want: ErrInvalid, wantMsg: "not the directory of"},
		{name: "library of another path", change: annotate(1, AnnotationLibrary, "/acme/gadgets"), want: ErrInvalid},
		{name: "version of another path", change: annotate(1, AnnotationVersion, "1.1"), want: ErrInvalid},

		// Annotations missing or wrong.
		{name: "no library", change: func(m *ocispec.Manifest) { delete(m.Layers[1].Annotations, AnnotationLibrary) }, want: ErrInvalid, wantMsg: AnnotationLibrary},
		{name: "no version", change: func(m *ocispec.Manifest) { delete(m.Layers[1].Annotations, AnnotationVersion) }, want: ErrInvalid, wantMsg: AnnotationVersion},
		{name: "no path", change: func(m *ocispec.Manifest) { delete(m.Layers[1].Annotations, ocispec.AnnotationTitle) }, want: ErrInvalid},
		{name: "no layer annotations", change: func(m *ocispec.Manifest) { m.Layers[3].Annotations = nil }, want: ErrInvalid, wantMsg: "layer 3"},
		{name: "empty library", change: annotate(1, AnnotationLibrary, ""), want: ErrInvalid},
		{name: "no manifest sha", change: func(m *ocispec.Manifest) { delete(m.Layers[1].Annotations, AnnotationManifest) }, want: ErrInvalid, wantMsg: AnnotationManifest},
		{name: "short manifest sha", change: annotate(1, AnnotationManifest, "0123456789abcdef"), want: ErrInvalid, wantMsg: AnnotationManifest},
		{name: "long manifest sha", change: annotate(1, AnnotationManifest, strings.Repeat("a", 65)), want: ErrInvalid},
		{name: "manifest sha in capitals", change: annotate(1, AnnotationManifest, strings.Repeat("A", 64)), want: ErrInvalid},
		{name: "manifest sha not hex", change: annotate(1, AnnotationManifest, strings.Repeat("g", 64)), want: ErrInvalid},
		{name: "manifest sha as a digest", change: annotate(1, AnnotationManifest, "sha256:"+strings.Repeat("a", 64)), want: ErrInvalid},

		// Descriptors.
		{name: "catalog digest short", change: func(m *ocispec.Manifest) { m.Layers[0].Digest = "sha256:abc" }, want: ErrInvalid, wantMsg: artifacts.CatalogFile},
		{name: "catalog digest missing", change: func(m *ocispec.Manifest) { m.Layers[0].Digest = "" }, want: ErrInvalid},
		{name: "layer digest missing", change: func(m *ocispec.Manifest) { m.Layers[1].Digest = "" }, want: ErrInvalid, wantMsg: "layer 1"},
		{name: "layer digest in capitals", change: func(m *ocispec.Manifest) {
			m.Layers[1].Digest = digest.Digest("sha256:" + strings.ToUpper(m.Layers[1].Digest.Encoded()))
		}, want: ErrInvalid},
		{name: "layer digest of unknown algorithm", change: func(m *ocispec.Manifest) { m.Layers[1].Digest = "md5:d41d8cd98f00b204e9800998ecf8427e" }, want: ErrInvalid},
		{name: "layer digest of the wrong length", change: func(m *ocispec.Manifest) {
			m.Layers[1].Digest = digest.Digest("sha512:" + m.Layers[1].Digest.Encoded())
		}, want: ErrInvalid},
		{name: "layer digest without algorithm", change: func(m *ocispec.Manifest) { m.Layers[1].Digest = digest.Digest(m.Layers[1].Digest.Encoded()) }, want: ErrInvalid},
		{name: "catalog negative size", change: func(m *ocispec.Manifest) { m.Layers[0].Size = -1 }, want: ErrInvalid, wantMsg: "size -1"},
		{name: "layer negative size", change: func(m *ocispec.Manifest) { m.Layers[2].Size = -1 }, want: ErrInvalid, wantMsg: "size -1"},
		{name: "catalog over the size bound", change: func(m *ocispec.Manifest) { m.Layers[0].Size = maxCatalogBytes + 1 }, want: ErrInvalid, wantMsg: artifacts.CatalogFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.raw)
			if tt.raw == "" {
				m := testDistManifest()
				tt.change(&m)
				data = marshalManifest(t, m)
			}
			catalog, versions, err := parseManifest(data)
			if err == nil {
				t.Fatalf("parseManifest: got catalog %s and %d versions, want an error wrapping %v", catalog.Digest, len(versions), tt.want)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("parseManifest: got error %v, want one wrapping %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("parseManifest: got error %q, want it to say %q", err, tt.wantMsg)
			}
		})
	}
}

// TestParseManifestCaseFolding checks version paths that name one
// directory on a case-insensitive file system (macOS, Windows) under
// Unicode case folding but differ under strings.ToLower.
func TestParseManifestCaseFolding(t *testing.T) {
	tests := []struct{ a, b string }{
		{"s", "\u017f"},         // LATIN SMALL LETTER LONG S folds to s
		{"k", "\u212a"},         // KELVIN SIGN folds to k
		{"1.0-σ", "1.0-ς"},      // final sigma folds to sigma
		{"1.0-Ω", "1.0-\u2126"}, // OHM SIGN folds to omega
	}
	for _, tt := range tests {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			if !strings.EqualFold(tt.a, tt.b) {
				t.Fatalf("strings.EqualFold(%q, %q) = false, want true", tt.a, tt.b)
			}
			m := testDistManifest()
			m.Layers[1] = testVersionLayer("/acme/widgets", tt.a, "acme/widgets/"+tt.a)
			m.Layers[2] = testVersionLayer("/acme/widgets", tt.b, "acme/widgets/"+tt.b)
			_, _, err := parseManifest(marshalManifest(t, m))
			if err == nil {
				t.Fatalf("parseManifest accepted versions %q and %q of one library, want ErrInvalid: they are one directory where case is ignored", tt.a, tt.b)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("parseManifest: got error %v, want one wrapping ErrInvalid", err)
			}
		})
	}
}

// FuzzParseManifest feeds parseManifest arbitrary bytes. It must not
// panic, its errors must wrap ErrInvalid or ErrFormatVersion, and what it
// accepts must be safe to pull: a catalog layer, and version layers with
// valid descriptors and org/project/version paths, no two of them the
// same directory where case is ignored.
func FuzzParseManifest(f *testing.F) {
	good := testDistManifest()
	f.Add(marshalManifest(f, good))
	indented, _ := json.MarshalIndent(good, "", "  ")
	f.Add(indented)
	m := testDistManifest()
	m.Layers = append(m.Layers, testVersionLayer("/acme/widgets", "1.0", "ACME/widgets/1.0"))
	f.Add(marshalManifest(f, m))
	m = testDistManifest()
	m.Layers[1] = testVersionLayer("/../x", "y", "../x/y")
	f.Add(marshalManifest(f, m))
	m = testDistManifest()
	m.Layers[1] = testVersionLayer("/acme/widgets", "s", "acme/widgets/s")
	f.Add(marshalManifest(f, m))
	f.Add([]byte(`{"artifactType":"` + ArtifactType + `","annotations":{"` + AnnotationFormat + `":"6"},"layers":[{"mediaType":"` + MediaTypeCatalog + `","digest":"sha256:` + strings.Repeat("0", 64) + `","size":0}]}`))
	f.Add([]byte("{}"))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		catalog, versions, err := parseManifest(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, artifacts.ErrFormatVersion) {
				t.Errorf("parseManifest: got error %v, want one wrapping ErrInvalid or ErrFormatVersion", err)
			}
			return
		}
		if catalog.MediaType != MediaTypeCatalog {
			t.Errorf("catalog: got media type %q, want %q", catalog.MediaType, MediaTypeCatalog)
		}
		if err := checkDescriptor(catalog, maxCatalogBytes); err != nil {
			t.Errorf("catalog: got %v, want a valid descriptor", err)
		}
		for i, v := range versions {
			if err := checkVersionPath(v.path, v.library, v.version); err != nil {
				t.Errorf("version %d: got path %q for %s@%s (%v), want a valid one", i, v.path, v.library, v.version, err)
			}
			if v.desc.MediaType != MediaTypeVersion {
				t.Errorf("version %d: got media type %q, want %q", i, v.desc.MediaType, MediaTypeVersion)
			}
			if err := checkDescriptor(v.desc, -1); err != nil {
				t.Errorf("version %d: got %v, want a valid descriptor", i, err)
			}
			for _, w := range versions[:i] {
				if fold(v.path) == fold(w.path) {
					t.Errorf("version %d: got paths %q and %q, want no path twice", i, w.path, v.path)
				}
			}
		}
	})
}
