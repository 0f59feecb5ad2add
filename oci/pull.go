package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/codex7/codex7/artifacts"
)

// PullOptions tune Pull.
type PullOptions struct {
	Options
	// Logger receives one line per version; nil discards them.
	Logger *slog.Logger
}

// PullResult says what a pull did.
type PullResult struct {
	// Digest is the manifest pulled; Pinned the reference by digest.
	Digest string
	Pinned Reference
	// Downloaded are the versions received and installed; Unchanged those
	// already in the dist with the same manifest.json, left as they were.
	Downloaded, Unchanged []PushedVersion
	// Refused are versions whose content did not match; the dist keeps
	// its previous copy of each, if it had one.
	Refused []Refusal
	// Removed are version paths the dist had that the artifact does not.
	Removed []string
	// BytesReceived counts the manifest, catalog and layer bytes read.
	BytesReceived int64
}

// Refusal is a version a pull did not install, and why.
type Refusal struct {
	Library, Version string
	// Err wraps ErrDigest, ErrInvalid or one of artifacts' sentinels.
	Err error
}

func (r Refusal) String() string { return fmt.Sprintf("%s@%s: %v", r.Library, r.Version, r.Err) }

// Resolve asks the registry which manifest ref points at now (a HEAD
// request) and returns its digest.
func Resolve(ctx context.Context, ref Reference, opts Options) (string, error) {
	repo, err := opts.repository(ref)
	if err != nil {
		return "", err
	}
	return resolveIn(ctx, repo, ref)
}

// resolveIn is Resolve through a repository client made for ref.
func resolveIn(ctx context.Context, repo *remote.Repository, ref Reference) (string, error) {
	desc, err := repo.Resolve(ctx, ref.ref.Reference)
	if err != nil {
		return "", classify(ref, "resolve", err)
	}
	return desc.Digest.String(), nil
}

// Pull brings the dist at ref into dir, in the layout indexer build
// writes. It checks the manifest (ErrInvalid), the catalog and every blob
// against its digest; versions whose manifest.json dir already has
// unchanged and verified are not downloaded. New versions are received
// into dir's staging area and verified against their manifests; only when
// all are in are they swapped into place, each atomically, then
// catalog.json, then versions the artifact no longer has are removed.
// A version whose content does not match is refused (PullResult.Refused),
// the rest installed; the catalog then lists dir's previous copy of it,
// if any. A pull stopped at any moment leaves dir's previous dist
// complete. It holds artifacts.Lock on dir throughout.
func Pull(ctx context.Context, ref Reference, dir string, opts PullOptions) (*PullResult, error) {
	repo, err := opts.repository(ref)
	if err != nil {
		return nil, err
	}
	return pullFrom(ctx, repo, ref, dir, opts.Logger)
}

// pullFrom is Pull through a repository client made for ref (a Mirror keeps
// one, so that its polls reuse connections and registry tokens).
func pullFrom(ctx context.Context, repo *remote.Repository, ref Reference, dir string, log *slog.Logger) (*PullResult, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	res := &PullResult{}
	manDesc, rc, err := repo.FetchReference(ctx, ref.ref.Reference)
	if err != nil {
		// Other bytes than the digest pinned, which oras refuses.
		if merr := announcedMismatch(err, ocispec.Descriptor{Digest: digest.Digest(ref.ref.Reference)}); ref.IsDigest() && merr != err {
			err = fmt.Errorf("manifest: %w", merr)
		}
		return nil, classify(ref, "pull", err)
	}
	if err := checkManifestSize(manDesc); err != nil {
		rc.Close()
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	manData, err := content.ReadAll(rc, manDesc)
	rc.Close()
	if err != nil {
		return nil, classify(ref, "pull", blobError("manifest", err))
	}
	res.BytesReceived += int64(len(manData))
	res.Digest, res.Pinned = manDesc.Digest.String(), ref.WithDigest(manDesc.Digest.String())
	catDesc, layers, err := parseManifest(manData)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	catData, err := fetchAll(ctx, repo, catDesc)
	if merr := missingBlob(err, catDesc); merr != err {
		return nil, classify(ref, "pull", fmt.Errorf("%s: %w", artifacts.CatalogFile, merr))
	} else if err != nil {
		return nil, classify(ref, "pull", blobError(artifacts.CatalogFile, err))
	}
	res.BytesReceived += int64(len(catData))
	cat, err := artifacts.ParseCatalog(catData)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w: %s: %w", ref, ErrInvalid, artifacts.CatalogFile, err)
	}
	if err := matchCatalog(cat, layers); err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pull into %s: %w", dir, err)
	}
	release, err := artifacts.Lock(dir)
	if err != nil {
		return nil, fmt.Errorf("pull into %s: %w", dir, err)
	}
	defer release()

	type staged struct {
		li    layerInfo
		stage string
	}
	var (
		mu     sync.Mutex
		ready  []staged
		refuse = map[string]error{}    // by path
		got    = map[string]received{} // the manifests installed, by path
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(uploads)
	for _, li := range layers {
		pv := PushedVersion{Library: li.library, Version: li.version, Digest: li.desc.Digest.String(), Size: li.desc.Size}
		if m, ok := unchanged(dir, li); ok {
			res.Unchanged = append(res.Unchanged, pv)
			mu.Lock()
			got[li.path] = m
			mu.Unlock()
			continue
		}
		g.Go(func() error {
			lib, version := li.place()
			stage, err := artifacts.Stage(dir, lib, version)
			if err != nil {
				return err
			}
			m, err := receive(gctx, repo, li, stage)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ready = append(ready, staged{li, stage})
				got[li.path] = m
				res.Downloaded = append(res.Downloaded, pv)
				res.BytesReceived += li.desc.Size
				log.Info("pulled", "library", li.library, "version", li.version, "bytes", li.desc.Size)
				return nil
			case refusable(err):
				os.RemoveAll(stage)
				refuse[li.path] = err
				res.Refused = append(res.Refused, Refusal{Library: li.library, Version: li.version, Err: err})
				log.Error("version refused", "library", li.library, "version", li.version, "err", err)
				return nil
			default:
				return classify(ref, "pull", fmt.Errorf("%s@%s: %w", li.library, li.version, err))
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := matchInstalled(cat, got); err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	sort.Slice(ready, func(i, j int) bool { return ready[i].li.path < ready[j].li.path })
	for _, s := range ready {
		lib, version := s.li.place()
		if err := artifacts.Install(s.stage, dir, lib, version); err != nil {
			return nil, fmt.Errorf("pull into %s: %w", dir, err)
		}
	}
	if len(refuse) == 0 {
		err = artifacts.InstallCatalog(dir, catData)
	} else {
		err = installFiltered(dir, cat, refuse)
	}
	if err != nil {
		return nil, fmt.Errorf("pull into %s: %w", dir, err)
	}
	if res.Removed, err = prune(dir); err != nil {
		return nil, fmt.Errorf("pull into %s: %w", dir, err)
	}
	sortVersions(res.Downloaded)
	sortVersions(res.Unchanged)
	sort.Slice(res.Refused, func(i, j int) bool { return res.Refused[i].String() < res.Refused[j].String() })
	return res, nil
}

// checkManifestSize refuses a manifest larger than maxManifestBytes
// before it is read (ErrInvalid). oras bounds a manifest by
// MaxMetadataBytes only when it must hash it itself: one whose answer
// gives its Content-Length and Docker-Content-Digest is read whole,
// however large, and a hostile or broken registry could exhaust memory.
func checkManifestSize(desc ocispec.Descriptor) error {
	if desc.Size > maxManifestBytes {
		return fmt.Errorf("%w: the manifest is %d bytes, at most %d", ErrInvalid, desc.Size, maxManifestBytes)
	}
	return nil
}

// matchCatalog checks that the catalog lists exactly the versions the
// layers carry, each once and each library once, at the same paths, so
// that the catalog installed describes the versions installed: a version
// listed twice in place of another leaves that one unserved. That each
// entry is of the same build as its layer (commit, manifest sum) is known
// only once the layer is extracted: matchInstalled checks it.
func matchCatalog(cat *artifacts.Catalog, layers []layerInfo) error {
	byPath := map[string]layerInfo{}
	for _, li := range layers {
		byPath[li.path] = li
	}
	seen, libs := map[string]bool{}, map[string]bool{}
	for _, l := range cat.Libraries {
		if libs[fold(l.ID)] {
			return fmt.Errorf("%w: %s lists library %s twice", ErrInvalid, artifacts.CatalogFile, l.ID)
		}
		libs[fold(l.ID)] = true
		for _, v := range l.Versions {
			li, ok := byPath[v.Path]
			if !ok {
				return fmt.Errorf("%w: %s lists %s@%s at %s, which no layer carries", ErrInvalid, artifacts.CatalogFile, l.ID, v.Version, v.Path)
			}
			if seen[v.Path] {
				return fmt.Errorf("%w: %s lists %s@%s (%s) twice", ErrInvalid, artifacts.CatalogFile, l.ID, v.Version, v.Path)
			}
			seen[v.Path] = true
			if !strings.EqualFold(li.library, l.ID) || li.version != v.Version {
				return fmt.Errorf("%w: the layer at %s is %s@%s, %s says %s@%s", ErrInvalid, v.Path, li.library, li.version, artifacts.CatalogFile, l.ID, v.Version)
			}
		}
	}
	if len(seen) != len(layers) {
		return fmt.Errorf("%w: %d version layers, %s lists %d versions", ErrInvalid, len(layers), artifacts.CatalogFile, len(seen))
	}
	return nil
}

// received is what a pull learnt of a version's manifest.json once it had
// the version (downloaded, or unchanged in the dist).
type received struct {
	commit string
	sum    string // sha256 of the file's bytes (CatalogVersion.Manifest)
}

// matchInstalled checks that the catalog describes the manifests the pull
// installs (got, by path): the same commit, and the same sha256 when the
// catalog lists one. That sum is of manifest.json's bytes, which only the
// extracted version has: a layer's annotation is the manifest's own
// checksum field. Installed, a catalog that does not match is what
// 'indexer verify' reports as out of date. A refused version is not in
// got: the catalog installed lists the dist's previous copy instead.
func matchInstalled(cat *artifacts.Catalog, got map[string]received) error {
	for _, l := range cat.Libraries {
		for _, v := range l.Versions {
			g, ok := got[v.Path]
			switch {
			case !ok:
			case g.commit != v.Commit:
				return fmt.Errorf("%w: %s lists %s@%s of commit %.12s, its layer's manifest.json is of commit %.12s", ErrInvalid, artifacts.CatalogFile, l.ID, v.Version, v.Commit, g.commit)
			case v.Manifest != "" && v.Manifest != g.sum:
				return fmt.Errorf("%w: %s lists %s@%s with manifest sha256 %.12s…, its layer's manifest.json is %.12s…", ErrInvalid, artifacts.CatalogFile, l.ID, v.Version, v.Manifest, g.sum)
			}
		}
	}
	return nil
}

// unchanged reports whether dir holds li's version with the same
// manifest.json, every file verified, and what that manifest is.
func unchanged(dir string, li layerInfo) (received, bool) {
	vdir := filepath.Join(dir, filepath.FromSlash(li.path))
	m, sum, err := artifacts.ReadManifestSum(vdir)
	if err != nil || m.Checksum != li.manifest || len(artifacts.VerifyVersion(vdir)) > 0 {
		return received{}, false
	}
	return received{commit: m.Commit, sum: sum}, true
}

// receive downloads li's layer into stage and checks it: the blob against
// its digest, then the version against its manifest, and the manifest
// against the layer's annotations. It returns what the manifest is.
func receive(ctx context.Context, repo *remote.Repository, li layerInfo, stage string) (received, error) {
	rc, err := repo.Fetch(ctx, li.desc)
	if err != nil {
		return received{}, missingBlob(announcedMismatch(err, li.desc), li.desc)
	}
	defer rc.Close()
	if err := extractLayer(rc, li.desc, stage); err != nil {
		return received{}, err
	}
	m, sum, err := artifacts.ReadManifestSum(stage)
	if err != nil {
		return received{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if m.Checksum != li.manifest {
		return received{}, fmt.Errorf("%w: its manifest.json has checksum %.12s…, the layer's annotation says %.12s…", ErrInvalid, m.Checksum, li.manifest)
	}
	if !strings.EqualFold(m.Library.ID, li.library) || m.Version != li.version {
		return received{}, fmt.Errorf("%w: its manifest.json is for %s@%s", ErrInvalid, m.Library.ID, m.Version)
	}
	if li.commit != "" && m.Commit != li.commit {
		return received{}, fmt.Errorf("%w: its manifest.json is of commit %.12s, the layer's annotation says %.12s", ErrInvalid, m.Commit, li.commit)
	}
	if probs := artifacts.VerifyVersion(stage); len(probs) > 0 {
		return received{}, fmt.Errorf("%w: %s%s", probs[0].Err, probs[0], more(len(probs)-1))
	}
	return received{commit: m.Commit, sum: sum}, nil
}

// refusable says whether err condemns one version's content (refused,
// the pull goes on) rather than the pull itself (network, disk, context).
func refusable(err error) bool {
	for _, e := range []error{ErrDigest, ErrInvalid, artifacts.ErrChecksum, artifacts.ErrMissing, artifacts.ErrUnexpected, artifacts.ErrCorrupt, artifacts.ErrFormatVersion} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// fetchAll reads a small blob whole, checked against its digest.
func fetchAll(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor) ([]byte, error) {
	rc, err := repo.Fetch(ctx, desc)
	if err != nil {
		return nil, announcedMismatch(err, desc)
	}
	defer rc.Close()
	return content.ReadAll(rc, desc)
}

// announcedMismatch reports as ErrDigest oras' refusal of a blob whose
// answer announces other content than desc: a Content-Length other than
// its size (a blob the registry holds cut short or grown), or a
// Docker-Content-Digest other than its digest (for a manifest pinned by
// digest, also bytes that hash to another). That is the blob's content
// not matching, as much as bytes that hash to something else are, so a
// version layer is refused alone and not the whole pull. oras says so
// only in its message; other errors, and nil, are returned as they are.
func announcedMismatch(err error, desc ocispec.Descriptor) error {
	if err == nil {
		return nil
	}
	if msg := err.Error(); strings.Contains(msg, "mismatch Content-Length") || strings.Contains(msg, "digest mismatch in Docker-Content-Digest") {
		return fmt.Errorf("%w: the registry's answer for %s announces other content: %v", ErrDigest, desc.Digest, err)
	}
	return err
}

// missingBlob reports a blob the manifest lists and the registry answers
// 404 for as ErrRegistry, naming the blob. It is not ErrNotFound, which
// is for a reference that does not exist: the manifest is there, so this
// is no first run ('pull --missing-ok' must fail), but a registry that
// lost the blob (garbage collection, an incomplete copy or replication).
// Other errors, and nil, are returned as they are.
func missingBlob(err error, desc ocispec.Descriptor) error {
	var resp *errcode.ErrorResponse
	notFound := errors.Is(err, errdef.ErrNotFound) || (errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound)
	if err == nil || !notFound {
		return err
	}
	// err only as text: classify must not take it for a missing tag.
	said := strings.TrimPrefix(err.Error(), desc.Digest.String()+": ")
	return fmt.Errorf("%w: blob %s, which the manifest lists, is missing (%s): the registry lost it (garbage collection, an incomplete copy); push the dist again ('indexer push') to upload it", ErrRegistry, desc.Digest, said)
}

// blobError names a mismatch between a blob and its descriptor as
// ErrDigest.
func blobError(what string, err error) error {
	if errors.Is(err, ErrDigest) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w: %v", what, ErrDigest, err)
	}
	return err
}

// installFiltered writes the catalog of a pull that refused some
// versions: each refused version is replaced by dir's previous copy when
// that copy verifies, else left out (with its library when none is left).
func installFiltered(dir string, cat *artifacts.Catalog, refused map[string]error) error {
	out := &artifacts.Catalog{Libraries: []artifacts.CatalogLib{}}
	for _, l := range cat.Libraries {
		lib := l
		lib.Versions = nil
		for _, v := range l.Versions {
			if refused[v.Path] == nil {
				lib.Versions = append(lib.Versions, v)
				continue
			}
			vdir := filepath.Join(dir, filepath.FromSlash(v.Path))
			m, sum, err := artifacts.ReadManifestSum(vdir)
			if err != nil || !strings.EqualFold(m.Library.ID, l.ID) || m.Version != v.Version || len(artifacts.VerifyVersion(vdir)) > 0 {
				continue
			}
			// No Topics: a server reads the previous copy's tree itself.
			lib.Versions = append(lib.Versions, artifacts.NewCatalogVersion(v.Path, m, sum))
		}
		if len(lib.Versions) == 0 {
			continue
		}
		if lib.Version(lib.Latest) == nil {
			names := make([]string, len(lib.Versions))
			for i, v := range lib.Versions {
				names[i] = v.Version
			}
			lib.Latest = artifacts.LatestOf(names)
		}
		out.Libraries = append(out.Libraries, lib)
	}
	data, err := artifacts.EncodeCatalog(out)
	if err != nil {
		return err
	}
	return artifacts.InstallCatalog(dir, data)
}

// prune removes the version directories of dir that its catalog does not
// list, and returns their paths. A directory three levels down that holds
// no manifest.json is no version (a web build's assets/img/icons, notes
// kept beside the artifacts): neither a build nor a pull wrote it, and it
// is left alone.
// looksLikeVersion reports whether the directory p holds a version's
// manifest.json and topics.json: a directory of other files (a web build's
// dist/assets/img/icons, even with a manifest.json of its own) is no
// version, and prune leaves it alone.
func looksLikeVersion(p string) bool {
	for _, name := range []string{artifacts.ManifestFile, artifacts.TopicsFile} {
		if _, err := os.Lstat(filepath.Join(p, name)); err != nil {
			return false
		}
	}
	return true
}

func prune(dir string) ([]string, error) {
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, l := range cat.Libraries {
		for _, v := range l.Versions {
			listed[v.Path] = true
		}
	}
	onDisk, err := filepath.Glob(filepath.Join(dir, "*", "*", "*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, p := range onDisk {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() || strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") || listed[rel] {
			continue
		}
		if !looksLikeVersion(p) {
			continue
		}
		if err := artifacts.Remove(dir, rel); err != nil {
			return removed, err
		}
		removed = append(removed, rel)
	}
	return removed, nil
}
