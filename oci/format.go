// Package oci publishes Codex7 artifact directories (dists) to OCI
// registries and brings them back: push, pull, and a mirror that keeps a
// pulled dist in step with a tag for indexer serve. It uses oras-go, the
// reference client of the OCI artifacts work, for everything that speaks
// to a registry; this package decides what goes in the artifact and
// checks everything that comes out of it.
//
// A dist is one OCI image manifest (image-spec 1.1) with ArtifactType as
// its artifactType, the empty config, and as layers catalog.json followed
// by one reproducible tar+gzip per library version (sorted entries, fixed
// times, owners and modes), each annotated with its library, version,
// commit and the checksum of its manifest.json. The same version always
// makes the same layer, so a registry stores it once and a push or pull
// moves only the versions that changed.
package oci

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/codex7/codex7/artifacts"
)

// Media types of a Codex7 artifact.
const (
	// ArtifactType is the artifactType of a dist's manifest.
	ArtifactType = "application/vnd.codex7.dist.v1"
	// MediaTypeCatalog is the layer holding catalog.json as written.
	MediaTypeCatalog = "application/vnd.codex7.catalog.v1+json"
	// MediaTypeVersion is the layer of one library version directory.
	MediaTypeVersion = "application/vnd.codex7.version.v1.tar+gzip"

	mediaTypeManifest = ocispec.MediaTypeImageManifest
)

// Annotations on a version layer (and the format on the manifest).
const (
	AnnotationLibrary  = "dev.codex7.library"
	AnnotationVersion  = "dev.codex7.version"
	AnnotationCommit   = "dev.codex7.commit"
	AnnotationManifest = "dev.codex7.manifest.sha256"
	AnnotationFormat   = "dev.codex7.format"
)

// Bounds on what a pull accepts before it reads further, so that a
// hostile or broken registry cannot exhaust memory or disk.
const (
	maxManifestBytes = 4 << 20
	maxCatalogBytes  = 64 << 20
	maxLayers        = 100_000
)

// layerInfo is what a version layer's annotations say.
type layerInfo struct {
	desc     ocispec.Descriptor
	path     string // org/project/version, the catalog's Path
	library  string
	version  string
	commit   string
	manifest string // sha256 of the version's manifest.json
}

// place returns the library id and version whose directory
// (artifacts.Dir) is li.path, where the catalog lists the version. The
// annotations may spell them in another case (checkVersionPath compares
// them folded, as library ids are): installed at their spelling on a
// case-sensitive file system, the version would miss the catalog's path,
// which would list a directory left as it was or absent.
func (li layerInfo) place() (library, version string) {
	return "/" + path.Dir(li.path), path.Base(li.path)
}

// versionAnnotations annotates the layer of version v of lib, whose
// manifest.json is of commit and has checksum sum (both as the manifest
// packed in the layer says, which a pull checks them against).
func versionAnnotations(lib string, v artifacts.CatalogVersion, commit, sum string) map[string]string {
	return map[string]string{
		ocispec.AnnotationTitle: v.Path,
		AnnotationLibrary:       lib,
		AnnotationVersion:       v.Version,
		AnnotationCommit:        commit,
		AnnotationManifest:      sum,
	}
}

// parseManifest decodes a dist's manifest and checks everything a pull
// relies on: the artifact type and format, one catalog layer first, and
// version layers with complete annotations, clean org/project/version
// paths and no path, or library version, named twice. Errors wrap
// ErrInvalid or artifacts.ErrFormatVersion.
func parseManifest(data []byte) (catalog ocispec.Descriptor, versions []layerInfo, err error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return catalog, nil, fmt.Errorf("%w: manifest: %v", ErrInvalid, err)
	}
	if m.MediaType != "" && m.MediaType != mediaTypeManifest {
		return catalog, nil, fmt.Errorf("%w: manifest media type %q, want %q", ErrInvalid, m.MediaType, mediaTypeManifest)
	}
	if m.ArtifactType != ArtifactType {
		return catalog, nil, fmt.Errorf("%w: artifact type %q, want %q (is this reference a Codex7 dist pushed by 'indexer push'?)", ErrInvalid, m.ArtifactType, ArtifactType)
	}
	if f := m.Annotations[AnnotationFormat]; f != strconv.Itoa(artifacts.FormatVersion) {
		return catalog, nil, fmt.Errorf("%w %s (this program reads %d): push artifacts built by this indexer version", artifacts.ErrFormatVersion, f, artifacts.FormatVersion)
	}
	if len(m.Layers) == 0 || m.Layers[0].MediaType != MediaTypeCatalog {
		return catalog, nil, fmt.Errorf("%w: the first layer is not %s", ErrInvalid, artifacts.CatalogFile)
	}
	if len(m.Layers) > maxLayers {
		return catalog, nil, fmt.Errorf("%w: %d layers, at most %d", ErrInvalid, len(m.Layers), maxLayers)
	}
	catalog = m.Layers[0]
	if err := checkDescriptor(catalog, maxCatalogBytes); err != nil {
		return catalog, nil, fmt.Errorf("%w: %s layer: %v", ErrInvalid, artifacts.CatalogFile, err)
	}
	paths, ids := map[string]bool{}, map[string]bool{}
	for i, d := range m.Layers[1:] {
		if d.MediaType != MediaTypeVersion {
			return catalog, nil, fmt.Errorf("%w: layer %d has media type %q, want %q", ErrInvalid, i+1, d.MediaType, MediaTypeVersion)
		}
		if err := checkDescriptor(d, maxLayerBytes); err != nil {
			return catalog, nil, fmt.Errorf("%w: layer %d: %v", ErrInvalid, i+1, err)
		}
		li := layerInfo{desc: d, path: d.Annotations[ocispec.AnnotationTitle], library: d.Annotations[AnnotationLibrary],
			version: d.Annotations[AnnotationVersion], commit: d.Annotations[AnnotationCommit], manifest: d.Annotations[AnnotationManifest]}
		if err := checkVersionPath(li.path, li.library, li.version); err != nil {
			return catalog, nil, fmt.Errorf("%w: layer %d: %v", ErrInvalid, i+1, err)
		}
		if len(li.manifest) != 64 || strings.Trim(li.manifest, "0123456789abcdef") != "" {
			return catalog, nil, fmt.Errorf("%w: layer %d (%s): annotation %s is not a sha256", ErrInvalid, i+1, li.path, AnnotationManifest)
		}
		// Folded as case-insensitive file systems (APFS, NTFS) compare
		// names, so that "s" and "ſ" are one directory too.
		key, lpath := fold(li.library)+"@"+fold(li.version), fold(li.path)
		if paths[lpath] || ids[key] {
			return catalog, nil, fmt.Errorf("%w: %s@%s (%s) is named twice", ErrInvalid, li.library, li.version, li.path)
		}
		paths[lpath], ids[key] = true, true
		versions = append(versions, li)
	}
	return catalog, versions, nil
}

// fold maps s to one form for every spelling a case-insensitive file
// system takes for the same name.
func fold(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// checkDescriptor checks a layer's digest and size (at most max, when
// max >= 0).
func checkDescriptor(d ocispec.Descriptor, max int64) error {
	if err := d.Digest.Validate(); err != nil {
		return fmt.Errorf("digest %q: %v", d.Digest, err)
	}
	if d.Size < 0 || (max >= 0 && d.Size > max) {
		return fmt.Errorf("size %d out of bounds", d.Size)
	}
	return nil
}

// checkVersionPath checks that p is the directory of library's version as
// a build lays it out: org/project/version, relative, clean, with no
// hidden or parent segment, so that nothing extracted lands outside the
// dist or in its staging area.
func checkVersionPath(p, library, version string) error {
	if library == "" || version == "" {
		return fmt.Errorf("annotations %s and %s are required", AnnotationLibrary, AnnotationVersion)
	}
	segs := strings.Split(p, "/")
	if len(segs) != 3 || path.Clean(p) != p || strings.ContainsAny(p, "\\:\x00") {
		return fmt.Errorf("path %q is not org/project/version", p)
	}
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.HasPrefix(s, ".") {
			return fmt.Errorf("path %q is not org/project/version", p)
		}
	}
	if want := strings.Trim(library, "/") + "/" + version; !strings.EqualFold(p, want) {
		return fmt.Errorf("path %q is not the directory of %s@%s", p, library, version)
	}
	return nil
}
