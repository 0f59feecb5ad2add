package oci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/codex7/codex7/artifacts"
)

// uploads is how many layers a push or pull moves at once.
const uploads = 4

// PushOptions tune Push.
type PushOptions struct {
	Options
	// Tags are more tags to point at the pushed manifest (the reference's
	// own tag is always set), e.g. a release name a deployment can pin.
	Tags []string
	// Logger receives one line per version; nil discards them.
	Logger *slog.Logger
}

// PushResult says what a push did.
type PushResult struct {
	// Digest is the pushed manifest's digest; Pinned is the reference by
	// digest, which never moves.
	Digest string
	Pinned Reference
	// Tagged are the references that now point at the manifest.
	Tagged []Reference
	// Pushed are the versions uploaded; Present those the registry held
	// already (same layer digest), which were not uploaded again.
	Pushed, Present []PushedVersion
	// BytesSent counts the layer and manifest bytes uploaded.
	BytesSent int64
}

// PushedVersion is one library version of a push.
type PushedVersion struct {
	Library, Version, Digest string
	Size                     int64
}

// Push publishes the dist in dir at ref: it checks opts.Tags
// (ErrReference) and verifies the dist first, refusing a damaged one
// (ErrBadDist), uploads each version layer the registry does not hold yet,
// then catalog.json, then the manifest, and tags it last, so that a push stopped at any moment leaves the tag where
// it was. Versions whose layer the tag's current manifest lists with the
// same manifest checksum are checked by digest without being packed again.
// It holds artifacts.Lock on dir from the verification until the tag is
// set, so that a build (or pull) into dir waits, or fails with
// artifacts.ErrLocked, instead of changing what is being pushed; each
// version's manifest.json is checked against the catalog as it is packed
// all the same (ErrBadDist: the dist changed during the push), for a dist
// that cannot be locked (read-only) or a writer that takes no lock.
func Push(ctx context.Context, dir string, ref Reference, opts PushOptions) (*PushResult, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if ref.IsDigest() {
		return nil, fmt.Errorf("%w %s: push to a tag; the digest is printed afterwards", ErrReference, ref)
	}
	// Every tag is checked before the registry is contacted: a bad one
	// found when tagging would come after every layer was uploaded.
	for _, tag := range opts.Tags {
		if err := CheckTag(tag); err != nil {
			return nil, fmt.Errorf("push %s: %w", ref, err)
		}
	}
	release, err := lockForPush(dir, log)
	if err != nil {
		return nil, err
	}
	defer release()
	probs, err := artifacts.Verify(dir)
	if err != nil {
		return nil, fmt.Errorf("push %s: %w", dir, err)
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("push %s: %w: %s%s (run 'indexer verify %s', then rebuild)", dir, ErrBadDist, probs[0], more(len(probs)-1), dir)
	}
	catData, err := os.ReadFile(filepath.Join(dir, artifacts.CatalogFile))
	if err != nil {
		return nil, fmt.Errorf("push %s: %w", dir, err)
	}
	cat, err := artifacts.ParseCatalog(catData)
	if err != nil {
		return nil, fmt.Errorf("push %s: %w", dir, err)
	}
	repo, err := opts.repository(ref)
	if err != nil {
		return nil, err
	}
	known := previousLayers(ctx, repo, ref, log)

	type job struct {
		lib string
		v   artifacts.CatalogVersion
	}
	var jobs []job
	for _, l := range cat.Libraries {
		for _, v := range l.Versions {
			jobs = append(jobs, job{l.ID, v})
		}
	}
	layers := make([]ocispec.Descriptor, len(jobs))
	res := &PushResult{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(uploads)
	for i, j := range jobs {
		g.Go(func() error {
			vdir := filepath.Join(dir, filepath.FromSlash(j.v.Path))
			m, err := sameVersion(dir, j.lib, j.v)
			if err != nil {
				return err
			}
			pv := PushedVersion{Library: j.lib, Version: j.v.Version}
			desc, sent, err := pushVersion(gctx, repo, vdir, known[m.Checksum])
			if err != nil {
				return classify(ref, "push", fmt.Errorf("%s@%s: %w", j.lib, j.v.Version, err))
			}
			// Again once packed: the layer holds what was read meanwhile.
			if _, err := sameVersion(dir, j.lib, j.v); err != nil {
				return err
			}
			desc.Annotations = versionAnnotations(j.lib, j.v, m.Commit, m.Checksum)
			layers[i] = desc
			pv.Digest, pv.Size = desc.Digest.String(), desc.Size
			mu.Lock()
			defer mu.Unlock()
			if sent {
				res.Pushed = append(res.Pushed, pv)
				res.BytesSent += desc.Size
				log.Info("pushed", "library", j.lib, "version", j.v.Version, "bytes", desc.Size, "digest", pv.Digest)
			} else {
				res.Present = append(res.Present, pv)
				log.Debug("already in the registry", "library", j.lib, "version", j.v.Version, "digest", pv.Digest)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	catDesc := content.NewDescriptorFromBytes(MediaTypeCatalog, catData)
	catDesc.Annotations = map[string]string{ocispec.AnnotationTitle: artifacts.CatalogFile}
	if sent, err := pushIfAbsent(ctx, repo, catDesc, bytes.NewReader(catData)); err != nil {
		return nil, classify(ref, "push", err)
	} else if sent {
		res.BytesSent += catDesc.Size
	}
	manDesc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		Layers:              append([]ocispec.Descriptor{catDesc}, layers...),
		ManifestAnnotations: manifestAnnotations(cat),
	})
	if err != nil {
		return nil, classify(ref, "push", uploadError("manifest", err))
	}
	res.BytesSent += manDesc.Size
	res.Digest = manDesc.Digest.String()
	res.Pinned = ref.WithDigest(res.Digest)
	for _, tag := range append([]string{ref.Tag()}, opts.Tags...) {
		if err := repo.Tag(ctx, manDesc, tag); err != nil {
			return nil, classify(ref.WithTag(tag), "tag", err)
		}
		res.Tagged = append(res.Tagged, ref.WithTag(tag))
	}
	sortVersions(res.Pushed)
	sortVersions(res.Present)
	return res, nil
}

// lockForPush takes artifacts.Lock on dir for a push. A directory without
// catalog.json is no dist (Verify says so) and is not locked, which would
// leave the lock's files in it. A directory this process may not write (a
// read-only mount, another user's dist) cannot be locked, and cannot be
// written by a build of this user either: the push goes on without the
// lock, relying on sameVersion's checks.
func lockForPush(dir string, log *slog.Logger) (release func(), err error) {
	if _, err := os.Stat(filepath.Join(dir, artifacts.CatalogFile)); err != nil {
		return func() {}, nil
	}
	release, err = artifacts.Lock(dir)
	switch {
	case err == nil:
		return release, nil
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		log.Warn("artifact directory not writable: pushed without its lock", "dir", dir, "err", err)
		return func() {}, nil
	}
	return nil, fmt.Errorf("push %s: %w", dir, err)
}

// sameVersion reads the manifest.json of version v of lib in dir and
// checks that it is still the one the catalog describes (its commit, and
// its sha256 when the catalog lists one), so that the layer, and its
// annotations, are of the build the pushed catalog lists.
func sameVersion(dir, lib string, v artifacts.CatalogVersion) (*artifacts.Manifest, error) {
	m, sum, err := artifacts.ReadManifestSum(filepath.Join(dir, filepath.FromSlash(v.Path)))
	if err != nil {
		return nil, fmt.Errorf("push %s: %w: %s@%s: %w: the dist changed during the push (a build is running?): push again once it is done", dir, ErrBadDist, lib, v.Version, err)
	}
	if (v.Manifest != "" && sum != v.Manifest) || m.Commit != v.Commit {
		return nil, fmt.Errorf("push %s: %w: %s@%s: its manifest.json (commit %.12s, sha256 %.12s…) is not the one %s lists (commit %.12s, sha256 %.12s…): the dist changed during the push (a build is running?): push again once it is done",
			dir, ErrBadDist, lib, v.Version, m.Commit, sum, artifacts.CatalogFile, v.Commit, v.Manifest)
	}
	return m, nil
}

// manifestAnnotations annotate a dist's manifest. The creation time is
// the newest build time in the catalog, not the time of the push, so that
// pushing the same dist twice makes the same manifest.
func manifestAnnotations(cat *artifacts.Catalog) map[string]string {
	var newest time.Time
	for _, l := range cat.Libraries {
		for _, v := range l.Versions {
			if v.BuiltAt.After(newest) {
				newest = v.BuiltAt
			}
		}
	}
	if newest.IsZero() {
		newest = layerEpoch
	}
	return map[string]string{
		ocispec.AnnotationCreated: newest.UTC().Format(time.RFC3339),
		AnnotationFormat:          strconv.Itoa(artifacts.FormatVersion),
	}
}

// previousLayers returns the version layers of the manifest ref points at
// now, by the checksum of their manifest.json, so that unchanged versions
// need not be packed again to learn their digest. Any failure (no such
// tag yet, another kind of artifact) just means nothing is known.
func previousLayers(ctx context.Context, repo *remote.Repository, ref Reference, log *slog.Logger) map[string]ocispec.Descriptor {
	known := map[string]ocispec.Descriptor{}
	desc, rc, err := repo.FetchReference(ctx, ref.ref.Reference)
	if err != nil {
		log.Debug("no previous manifest at the tag", "ref", ref.String(), "err", err)
		return known
	}
	if err := checkManifestSize(desc); err != nil {
		rc.Close()
		return known
	}
	data, err := content.ReadAll(rc, desc)
	rc.Close()
	if err != nil {
		return known
	}
	_, versions, err := parseManifest(data)
	if err != nil {
		return known
	}
	for _, v := range versions {
		known[v.manifest] = ocispec.Descriptor{MediaType: v.desc.MediaType, Digest: v.desc.Digest, Size: v.desc.Size}
	}
	return known
}

// pushVersion uploads the layer of the version directory vdir unless the
// registry has it. prev, when its digest is set, is the layer the tag's
// current manifest lists for the same manifest.json: if the registry
// still has that blob, nothing is packed. Otherwise the layer is packed
// once to learn its digest and, when the registry lacks it, packed again
// as it is uploaded: packing is reproducible, so nothing is written to
// disk (a push killed midway leaves no temporary file), and the registry
// checks the upload against the digest.
func pushVersion(ctx context.Context, repo *remote.Repository, vdir string, prev ocispec.Descriptor) (ocispec.Descriptor, bool, error) {
	if prev.Digest != "" {
		if ok, err := repo.Exists(ctx, prev); err == nil && ok {
			return prev, false, nil
		}
	}
	desc, err := writeLayer(vdir, io.Discard)
	if err != nil {
		return ocispec.Descriptor{}, false, err
	}
	if ok, err := repo.Exists(ctx, desc); err != nil {
		return ocispec.Descriptor{}, false, err
	} else if ok {
		return desc, false, nil
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := writeLayer(vdir, pw)
		pw.CloseWithError(err)
	}()
	err = repo.Push(ctx, desc, pr)
	pr.CloseWithError(err) // stops the packer if the upload failed
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return desc, false, nil
	}
	return desc, err == nil, uploadError("layer "+desc.Digest.String(), err)
}

// pushIfAbsent uploads r as desc unless the registry has the blob.
func pushIfAbsent(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, r io.Reader) (bool, error) {
	if ok, err := repo.Exists(ctx, desc); err != nil {
		return false, err
	} else if ok {
		return false, nil
	}
	if err := repo.Push(ctx, desc, r); err != nil {
		if errors.Is(err, errdef.ErrAlreadyExists) {
			return false, nil
		}
		return false, uploadError(strings.TrimSpace(desc.Annotations[ocispec.AnnotationTitle]+" "+desc.Digest.String()), err)
	}
	return true, nil
}

// uploadError names the blob (what) of an upload the registry stopped
// taking (a stallError). The HTTP client wraps the stallError in a
// url.Error naming the upload's URL, an opaque session of the registry's,
// of which classify keeps only the cause, losing whatever names the blob
// around it; here the url.Error is replaced by the blob's name.
func uploadError(what string, err error) error {
	var stall *stallError
	if errors.As(err, &stall) && stall.upload {
		return fmt.Errorf("upload %s: %w", what, stall)
	}
	return err
}

func sortVersions(vs []PushedVersion) {
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].Library != vs[j].Library {
			return vs[i].Library < vs[j].Library
		}
		return vs[i].Version < vs[j].Version
	})
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d more)", n)
}
