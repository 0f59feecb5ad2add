package oci

import (
	"archive/tar"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Bounds on one extracted version, far above any real one.
const (
	maxLayerFiles = 100_000
	maxLayerBytes = 8 << 30
)

// layerEpoch is the modification time of every entry: the layer's bytes
// then depend only on the files' names and contents.
var layerEpoch = time.Unix(0, 0).UTC()

// writeLayer writes the version directory dir as a reproducible tar+gzip
// to w and returns its descriptor (MediaTypeVersion). Entries are the
// directory's files and subdirectories in byte order of their slash
// paths, owned by 0:0, with modes 0644 and 0755 and the time layerEpoch;
// the gzip header has no name or time. The same files thus always make
// the same bytes with the same compressor: klauspost/compress's gzip,
// pinned in go.mod (about four times as fast as the standard library's
// for 5% more bytes); an upgrade that changed its output would change
// every digest once, which TestWriteLayerGolden reports.
func writeLayer(dir string, w io.Writer) (ocispec.Descriptor, error) {
	var entries []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		rel, _ := filepath.Rel(dir, p)
		entries = append(entries, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	sort.Strings(entries)
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(w, h)}
	zw, _ := gzip.NewWriterLevel(cw, gzip.DefaultCompression)
	tw := tar.NewWriter(zw)
	for _, rel := range entries {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		fi, err := os.Stat(p)
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		hdr := &tar.Header{Name: rel, Mode: 0o644, ModTime: layerEpoch, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: fi.Size()}
		if fi.IsDir() {
			hdr.Name, hdr.Mode, hdr.Typeflag, hdr.Size = rel+"/", 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return ocispec.Descriptor{}, err
		}
		if fi.IsDir() {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		n, err := io.Copy(tw, f)
		f.Close()
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		if n != fi.Size() {
			return ocispec.Descriptor{}, fmt.Errorf("%s changed while it was read", p)
		}
	}
	if err := tw.Close(); err != nil {
		return ocispec.Descriptor{}, err
	}
	if err := zw.Close(); err != nil {
		return ocispec.Descriptor{}, err
	}
	return ocispec.Descriptor{MediaType: MediaTypeVersion, Digest: digest.NewDigestFromBytes(digest.SHA256, h.Sum(nil)), Size: cw.n}, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// extractLayer reads a version layer from r, checking it against desc
// (size and digest, once it is read to the end), and writes its files
// under dst, an empty directory. It takes only directories and regular
// files with clean relative names inside dst; anything else (links,
// devices, absolute or parent paths, too many or too large files) is
// refused. On error dst may hold some files: the caller discards it.
func extractLayer(r io.Reader, desc ocispec.Descriptor, dst string) error {
	vr := &verifyReader{r: io.LimitReader(r, desc.Size+1), v: desc.Digest.Verifier()}
	zr, err := gzip.NewReader(vr)
	if err != nil {
		return layerError(vr, desc, fmt.Errorf("not gzip: %w", err))
	}
	zr.Multistream(false)
	tr := tar.NewReader(zr)
	var files int
	var total int64
	// bad refuses the layer for what its entries say, unless its bytes do
	// not match the digest, which is then the reason named.
	bad := func(format string, args ...any) error { return layerError(vr, desc, fmt.Errorf(format, args...)) }
	// Deflate expands at most about 1032 to 1: more is no gzip of ours.
	maxTotal := min(int64(maxLayerBytes), 1032*desc.Size+1<<20)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bad("tar: %v", err)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if name == "" || path.Clean(name) != name || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || strings.ContainsAny(name, "\\:\x00") {
			return bad("entry %q is outside the version directory", hdr.Name)
		}
		if files++; files > maxLayerFiles {
			return bad("more than %d entries", maxLayerFiles)
		}
		for k := range hdr.PAXRecords {
			if strings.HasPrefix(k, "GNU.sparse.") {
				return bad("entry %q is a sparse file", hdr.Name)
			}
		}
		p := filepath.Join(dst, filepath.FromSlash(name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return entryError(vr, desc, hdr.Name, p, err)
			}
		case tar.TypeReg:
			if total += hdr.Size; hdr.Size < 0 || total > maxTotal {
				return bad("more than %d bytes", maxTotal)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return entryError(vr, desc, hdr.Name, filepath.Dir(p), err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return entryError(vr, desc, hdr.Name, p, err)
			}
			w := &errWriter{w: f}
			_, err = io.Copy(w, tr)
			if cerr := f.Close(); w.err == nil {
				w.err = cerr
			}
			switch {
			case w.err != nil:
				return fmt.Errorf("extract %s: %w", hdr.Name, w.err) // this machine's disk
			case err != nil:
				return bad("entry %q: %v", hdr.Name, err)
			}
		default:
			return bad("entry %q is not a file or directory (type %q)", hdr.Name, hdr.Typeflag)
		}
	}
	// Read what follows the archive (gzip trailer, padding) so that the
	// digest covers every byte.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return layerError(vr, desc, err)
	}
	io.Copy(io.Discard, vr) // a failure is vr.err, which check reports
	return vr.check(desc)
}

// verifyReader hashes and counts what passes through it, and records the
// first error of its reader other than EOF: a download that failed (a
// reset connection, a cancelled pull), which says nothing of the layer's
// content and must not be taken for a digest mismatch.
type verifyReader struct {
	r   io.Reader
	v   digest.Verifier
	n   int64
	err error
}

func (v *verifyReader) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.n += int64(n)
	v.v.Write(p[:n])
	if err != nil && err != io.EOF && v.err == nil {
		v.err = err
	}
	return n, err
}

// readError is the reader's failure, naming the layer, or nil.
func (v *verifyReader) readError(desc ocispec.Descriptor) error {
	if v.err == nil {
		return nil
	}
	return fmt.Errorf("read layer %s: %w", desc.Digest, v.err)
}

// check says whether everything read matches desc: the reader's failure
// when it failed, else ErrDigest when the bytes (all of them, a clean
// body that ended early, or one too long) do not match.
func (v *verifyReader) check(desc ocispec.Descriptor) error {
	if err := v.readError(desc); err != nil {
		return err
	}
	if v.n != desc.Size {
		return fmt.Errorf("%w: %s is %d bytes, the manifest says %d", ErrDigest, desc.Digest, v.n, desc.Size)
	}
	if !v.v.Verified() {
		return fmt.Errorf("%w: the bytes received for %s hash to something else", ErrDigest, desc.Digest)
	}
	return nil
}

// errWriter records the error of its writer, so that a failed write to
// this machine's disk is told apart from a layer that failed to decode.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// entryError reports a failure to create an entry's file or directory:
// the layer's fault when the entry collides with another (a name twice, a
// file where a directory is wanted), this machine's otherwise (a full or
// read-only disk), which is no reason to refuse the version. path is what
// was being created: something already there (a file where a directory
// goes, a directory where a file goes, which Windows reports as access
// denied) is the layer's fault on every OS.
func entryError(vr *verifyReader, desc ocispec.Descriptor, name, path string, err error) error {
	_, there := os.Lstat(path)
	if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) || there == nil {
		return layerError(vr, desc, fmt.Errorf("entry %q collides with another: %v", name, err))
	}
	return fmt.Errorf("extract %s: %w", name, err)
}

// layerError reports a layer that failed to decode: as the read error
// when the download failed (the archive was cut, not bad), as a digest
// mismatch when its bytes do not match (the likelier cause, and the one
// to name), else as err.
func layerError(vr *verifyReader, desc ocispec.Descriptor, err error) error {
	io.Copy(io.Discard, vr)
	if cerr := vr.check(desc); cerr != nil {
		return cerr
	}
	return fmt.Errorf("%w: %v", ErrInvalid, err)
}
