package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// layerFiles is a small version directory: slash path → contents. A path
// ending in "/" is an empty directory.
var layerFiles = map[string]string{
	"manifest.json": `{"format_version":6,"library":{"id":"/acme/widgets"},"version":"1.0"}` + "\n",
	"topics.json":   `{"topics":["install","usage"]}` + "\n",
	"index/a":       "first index file\n",
	"index/b":       strings.Repeat("second index file, compressible\n", 40),
}

// makeLayerDir writes files under a new directory and returns it. Files
// are created in the order of paths (all of files' keys) with the given
// file mode, and every entry gets the modification time mtime.
func makeLayerDir(t *testing.T, files map[string]string, paths []string, mode fs.FileMode, mtime time.Time) string {
	t.Helper()
	dir := t.TempDir()
	for _, rel := range paths {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[rel]), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// packLayer runs writeLayer on dir and checks that the descriptor it
// returns describes the bytes it wrote.
func packLayer(t *testing.T, dir string) ([]byte, ocispec.Descriptor) {
	t.Helper()
	var buf bytes.Buffer
	desc, err := writeLayer(dir, &buf)
	if err != nil {
		t.Fatalf("writeLayer(%s): %v", dir, err)
	}
	if desc.MediaType != MediaTypeVersion {
		t.Errorf("writeLayer: got media type %q, want %q", desc.MediaType, MediaTypeVersion)
	}
	if want := digest.FromBytes(buf.Bytes()); desc.Digest != want {
		t.Errorf("writeLayer: got digest %s, want %s (the digest of the bytes written)", desc.Digest, want)
	}
	if desc.Size != int64(buf.Len()) {
		t.Errorf("writeLayer: got size %d, want %d (the bytes written)", desc.Size, buf.Len())
	}
	return buf.Bytes(), desc
}

// readTree returns the files under dir (slash path → contents, "/" ending
// an empty directory), failing on anything but files and directories.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			entries, err := os.ReadDir(p)
			if err != nil {
				return err
			}
			if len(entries) == 0 {
				got[rel+"/"] = ""
			}
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got[rel] = string(b)
		default:
			t.Errorf("%s: got mode %v, want a regular file or a directory", rel, d.Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWriteLayerIsReproducible(t *testing.T) {
	paths := slices.Sorted(maps.Keys(layerFiles))
	reversed := slices.Clone(paths)
	slices.Reverse(reversed)
	base := makeLayerDir(t, layerFiles, paths, 0o644, time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC))
	want, wantDesc := packLayer(t, base)

	// The same files, made another day in another order with other modes.
	other := makeLayerDir(t, layerFiles, reversed, 0o600, time.Date(2025, 6, 7, 8, 9, 10, 11, time.Local))
	if err := os.Chmod(filepath.Join(other, "index"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, gotDesc := packLayer(t, other)
	if !bytes.Equal(got, want) {
		t.Errorf("writeLayer of the same files made differently: got %d bytes (%s), want the same %d bytes (%s)", len(got), gotDesc.Digest, len(want), wantDesc.Digest)
	}
	if gotDesc.Digest != wantDesc.Digest || gotDesc.Size != wantDesc.Size {
		t.Errorf("writeLayer of the same files made differently: got %s (%d bytes), want %s (%d bytes)", gotDesc.Digest, gotDesc.Size, wantDesc.Digest, wantDesc.Size)
	}

	changes := []struct {
		name   string
		change func(files map[string]string)
	}{
		{"one byte of index/a", func(f map[string]string) { f["index/a"] = "First index file\n" }},
		{"one byte of manifest.json", func(f map[string]string) { f["manifest.json"] = strings.Replace(f["manifest.json"], "1.0", "1.1", 1) }},
		{"a byte more", func(f map[string]string) { f["topics.json"] += " " }},
		{"an empty file", func(f map[string]string) { f["index/c"] = "" }},
		{"an empty directory", func(f map[string]string) { f["empty/"] = "" }},
		{"a file renamed", func(f map[string]string) { f["index/c"] = f["index/b"]; delete(f, "index/b") }},
		{"a file moved", func(f map[string]string) { f["b"] = f["index/b"]; delete(f, "index/b") }},
	}
	for _, tt := range changes {
		t.Run(tt.name, func(t *testing.T) {
			files := maps.Clone(layerFiles)
			tt.change(files)
			dir := makeLayerDir(t, files, slices.Sorted(maps.Keys(files)), 0o644, time.Unix(0, 0))
			_, desc := packLayer(t, dir)
			if desc.Digest == wantDesc.Digest {
				t.Errorf("writeLayer after %s: got digest %s, want another one", tt.name, desc.Digest)
			}
		})
	}
}

// goldenLayerFiles is the tree whose layer digest testdata/layer.digest
// pins. Changing it means running the golden test with -update.
var goldenLayerFiles = map[string]string{
	"manifest.json":  `{"format_version":6,"library":{"id":"/acme/golden"},"version":"1.0.0"}` + "\n",
	"topics.json":    `{"topics":[]}` + "\n",
	"index/a":        "alpha\n",
	"index/b":        strings.Repeat("beta, beta, beta\n", 100),
	"index/empty/":   "",
	"index/z/deeper": "zeta\n",
}

// TestWriteLayerGolden pins the digest of one layer. writeLayer's output
// depends only on file names and contents, and on archive/tar and
// klauspost/compress/gzip: a change there changes every published digest once.
func TestWriteLayerGolden(t *testing.T) {
	golden := filepath.Join("testdata", "layer.digest")
	dir := makeLayerDir(t, goldenLayerFiles, slices.Sorted(maps.Keys(goldenLayerFiles)), 0o644, time.Now())
	_, desc := packLayer(t, dir)
	got := desc.Digest.String() + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./oci -run TestWriteLayerGolden -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("writeLayer of the fixed tree: got digest %s, want %s.\n"+
			"The same files now make other layer bytes: the output of klauspost/compress/gzip or archive/tar changed (an upgrade in go.mod, a new Go release?), or writeLayer did. "+
			"This changes every published layer digest once: each version packed from now on gets a new digest for unchanged files, "+
			"so registries store it a second time and digests published earlier can no longer be reproduced. "+
			"If that is intended, run go test ./oci -run TestWriteLayerGolden -update and say so in the release notes.",
			strings.TrimSpace(got), strings.TrimSpace(string(want)))
	}
}

func TestWriteLayerRefusesSymlinks(t *testing.T) {
	dir := makeLayerDir(t, layerFiles, slices.Sorted(maps.Keys(layerFiles)), 0o644, time.Unix(0, 0))
	if err := os.Symlink("a", filepath.Join(dir, "index", "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	var buf bytes.Buffer
	if desc, err := writeLayer(dir, &buf); err == nil {
		t.Errorf("writeLayer of a directory with a symlink = %s, want an error", desc.Digest)
	}
}

func TestExtractLayerRoundTrip(t *testing.T) {
	files := maps.Clone(layerFiles)
	files["empty/"] = ""
	files["index/deep/er/c"] = "c"
	files["zero"] = ""
	src := makeLayerDir(t, files, slices.Sorted(maps.Keys(files)), 0o640, time.Unix(1e9, 0))
	blob, desc := packLayer(t, src)

	root := t.TempDir()
	dst := filepath.Join(root, "x")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := extractLayer(bytes.NewReader(blob), desc, dst); err != nil {
		t.Fatalf("extractLayer of writeLayer's output: %v", err)
	}
	got := readTree(t, dst)
	for _, k := range slices.Sorted(maps.Keys(files)) {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: missing after extraction", k)
		} else if g != files[k] {
			t.Errorf("%s: got %q, want %q", k, g, files[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := files[k]; !ok {
			t.Errorf("%s: extracted, want only the files packed", k)
		}
	}
	checkOnlyDst(t, root)

	// Packing what was extracted makes the same layer again.
	if again, _ := packLayer(t, dst); !bytes.Equal(again, blob) {
		t.Errorf("writeLayer of the extracted files: got other bytes, want the layer extracted")
	}
}

// tarEntry is one entry of a hand-made archive.
type tarEntry struct {
	hdr  tar.Header
	body string
}

func regEntry(name, body string) tarEntry {
	return tarEntry{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}, body}
}

func dirEntry(name string) tarEntry {
	return tarEntry{tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}, ""}
}

// makeTarGz returns entries as a tar+gzip. The archive is left unclosed
// (no end blocks) when open is set, so that an entry may claim more bytes
// than follow it.
func makeTarGz(t testing.TB, entries []tarEntry, open bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := e.hdr
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatalf("tar header %q: %v", hdr.Name, err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatalf("tar body %q: %v", hdr.Name, err)
		}
	}
	if !open {
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// blobDesc returns the descriptor a manifest would give b.
func blobDesc(b []byte) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: MediaTypeVersion, Digest: digest.FromBytes(b), Size: int64(len(b))}
}

// hostileLayers are archives extractLayer must refuse although their
// descriptor matches their bytes (what a hostile registry would serve).
func hostileLayers(t testing.TB) []struct {
	name string
	blob []byte
} {
	manifest := regEntry("manifest.json", "{}")
	layers := []struct {
		name    string
		entries []tarEntry
		open    bool
	}{
		{"parent", []tarEntry{manifest, regEntry("../x", "escaped")}, false},
		{"parent directory", []tarEntry{dirEntry("../x/")}, false},
		{"parent alone", []tarEntry{dirEntry("../")}, false},
		{"absolute", []tarEntry{regEntry("/abs", "escaped")}, false},
		{"absolute directory", []tarEntry{dirEntry("/tmp/abs/")}, false},
		{"parent inside", []tarEntry{dirEntry("a/"), regEntry("a/../../x", "escaped")}, false},
		{"dot prefix", []tarEntry{regEntry("./x", "x")}, false},
		{"double slash", []tarEntry{regEntry("a//x", "x")}, false},
		{"backslash", []tarEntry{regEntry(`..\x`, "escaped")}, false},
		{"colon", []tarEntry{regEntry("c:x", "x")}, false},
		{"empty name", []tarEntry{regEntry("", "x")}, false},
		{"symlink", []tarEntry{manifest, {tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd", Mode: 0o777}, ""}}, false},
		{"symlink then file through it", []tarEntry{{tar.Header{Name: "d", Typeflag: tar.TypeSymlink, Linkname: "..", Mode: 0o777}, ""}, regEntry("d/x", "escaped")}, false},
		{"hardlink", []tarEntry{manifest, {tar.Header{Name: "link", Typeflag: tar.TypeLink, Linkname: "manifest.json"}, ""}}, false},
		{"hardlink outside", []tarEntry{{tar.Header{Name: "link", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"}, ""}}, false},
		{"character device", []tarEntry{{tar.Header{Name: "null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3, Mode: 0o666}, ""}}, false},
		{"block device", []tarEntry{{tar.Header{Name: "sda", Typeflag: tar.TypeBlock, Devmajor: 8, Mode: 0o660}, ""}}, false},
		{"fifo", []tarEntry{{tar.Header{Name: "fifo", Typeflag: tar.TypeFifo, Mode: 0o644}, ""}}, false},
		{"directory then file over it", []tarEntry{dirEntry("a/"), regEntry("a", "over")}, false},
		{"file twice", []tarEntry{regEntry("a", "first"), regEntry("a", "second")}, false},
		{"file over manifest.json", []tarEntry{manifest, regEntry("manifest.json", `{"evil":true}`)}, false},
		{"file then directory over it", []tarEntry{regEntry("a", "file"), dirEntry("a/")}, false},
		{"file then file under it", []tarEntry{regEntry("a", "file"), regEntry("a/b", "under")}, false},
		{"file larger than a layer", []tarEntry{{tar.Header{Name: "big", Typeflag: tar.TypeReg, Mode: 0o644, Size: maxLayerBytes + 1}, ""}}, true},
		{"file shorter than its header", []tarEntry{{tar.Header{Name: "short", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 20}, ""}}, true},
	}
	var out []struct {
		name string
		blob []byte
	}
	for _, l := range layers {
		out = append(out, struct {
			name string
			blob []byte
		}{l.name, makeTarGz(t, l.entries, l.open)})
	}
	out = append(out, []struct {
		name string
		blob []byte
	}{
		{"not gzip", []byte("this is not a gzip stream at all")},
		{"empty blob", nil},
		{"gzip of not a tar", gzipBytes(t, []byte("hello, not a tar archive"))},
		{"plain tar", func() []byte { // a tar, not gzipped
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			tw.WriteHeader(&tar.Header{Name: "a", Typeflag: tar.TypeReg, Size: 1})
			tw.Write([]byte("a"))
			tw.Close()
			return buf.Bytes()
		}()},
		{"gzip with a bad checksum", func() []byte {
			b := makeTarGz(t, []tarEntry{regEntry("a", "a")}, false)
			b = slices.Clone(b)
			b[len(b)-8] ^= 0xff // the CRC-32 of the trailer
			return b
		}()},
	}...)
	return out
}

// sparseLayer returns a tar+gzip of one PAX (GNU 0.1) sparse file of the
// given size that is all hole: a few hundred bytes that extract to size.
// archive/tar writes no sparse files, so the blocks are made by hand.
func sparseLayer(t testing.TB, size int64) []byte {
	t.Helper()
	block := func(name string, typeflag byte, n int) []byte {
		b := make([]byte, 512)
		copy(b[0:], name)
		copy(b[100:], "0000644\x00")
		copy(b[108:], "0000000\x00")
		copy(b[116:], "0000000\x00")
		copy(b[124:], fmt.Sprintf("%011o\x00", n))
		copy(b[136:], "00000000000\x00")
		copy(b[148:], "        ") // the checksum counts itself as spaces
		b[156] = typeflag
		copy(b[257:], "ustar\x0000")
		sum := 0
		for _, c := range b {
			sum += int(c)
		}
		copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
		return b
	}
	record := func(k, v string) string { // "LEN key=value\n", LEN counting itself
		for n := len(k) + len(v) + 3; ; n++ {
			if r := fmt.Sprintf("%d %s=%s\n", n, k, v); len(r) == n {
				return r
			}
		}
	}
	pax := record("GNU.sparse.map", "0,0") + record("GNU.sparse.numblocks", "1") + record("GNU.sparse.size", strconv.FormatInt(size, 10))
	var raw bytes.Buffer
	raw.Write(block("PaxHeaders/big", tar.TypeXHeader, len(pax)))
	raw.WriteString(pax)
	raw.Write(make([]byte, 511-(len(pax)+511)%512))
	raw.Write(block("big", tar.TypeReg, 0))
	raw.Write(make([]byte, 1024))
	return gzipBytes(t, raw.Bytes())
}

func TestExtractLayerRefusesHostileArchives(t *testing.T) {
	// A sparse file is left out of hostileLayers, which seed the fuzzer:
	// mutating its size would make the fuzzer write gigabytes.
	layers := append(hostileLayers(t), struct {
		name string
		blob []byte
	}{"PAX sparse file", sparseLayer(t, 1<<20)})
	for _, l := range layers {
		t.Run(l.name, func(t *testing.T) {
			root := t.TempDir()
			dst := filepath.Join(root, "x")
			if err := os.Mkdir(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			err := extractLayer(bytes.NewReader(l.blob), blobDesc(l.blob), dst)
			checkOnlyDst(t, root)
			readTree(t, dst)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("extractLayer: got error %v, want one wrapping ErrInvalid", err)
			}
			if errors.Is(err, ErrDigest) {
				t.Errorf("extractLayer: got error %v, want no ErrDigest: the bytes match the descriptor", err)
			}
		})
	}
}

func TestExtractLayerChecksDigest(t *testing.T) {
	dir := makeLayerDir(t, layerFiles, slices.Sorted(maps.Keys(layerFiles)), 0o644, time.Unix(0, 0))
	good, desc := packLayer(t, dir)
	flip := func(i int) []byte {
		b := slices.Clone(good)
		b[i] ^= 0x01
		return b
	}
	withSize := func(n int64) ocispec.Descriptor { d := desc; d.Size = n; return d }
	otherDigest := desc
	otherDigest.Digest = digest.FromString("another layer")
	tests := []struct {
		name string
		blob []byte
		desc ocispec.Descriptor
	}{
		{"a byte of the compressed data", flip(len(good) / 2), desc},
		{"a byte of the gzip header", flip(4), desc},              // MTIME: still a valid gzip
		{"a byte of the gzip trailer", flip(len(good) - 1), desc}, // ISIZE
		{"the gzip magic", flip(0), desc},
		{"another digest", good, otherDigest},
		{"size one more", good, withSize(desc.Size + 1)},
		{"size one less", good, withSize(desc.Size - 1)},
		{"size zero", good, withSize(0)},
		{"truncated to half", good[:len(good)/2], desc},
		{"truncated trailer", good[:len(good)-4], desc},
		{"truncated to the gzip header", good[:10], desc},
		{"empty", nil, desc},
		{"a byte more", append(slices.Clone(good), 0), desc},
		{"a gzip member more", append(slices.Clone(good), gzipBytes(t, []byte("more"))...), desc},
		{"a hostile archive", makeTarGz(t, []tarEntry{regEntry("../x", "escaped")}, false), desc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dst := filepath.Join(root, "x")
			if err := os.Mkdir(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			err := extractLayer(bytes.NewReader(tt.blob), tt.desc, dst)
			checkOnlyDst(t, root)
			if !errors.Is(err, ErrDigest) {
				t.Fatalf("extractLayer: got error %v, want one wrapping ErrDigest", err)
			}
			if errors.Is(err, ErrInvalid) {
				t.Errorf("extractLayer: got error %v, want ErrDigest alone", err)
			}
			if !strings.Contains(err.Error(), tt.desc.Digest.String()) {
				t.Errorf("extractLayer: got error %q, want it to name the digest %s", err, tt.desc.Digest)
			}
		})
	}
}

// cutReader yields the bytes of r, then err instead of EOF: a download
// cut by the network, or by the pull's context, after some of its bytes.
type cutReader struct {
	r   io.Reader
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		return n, c.err
	}
	return n, err
}

// TestExtractLayerReadError: when reading the layer fails (a reset
// connection, a cancelled pull, a body cut short of its Content-Length),
// nothing is known of the layer's content: the error is the read error,
// wrapped and naming the layer, and neither ErrDigest nor ErrInvalid,
// which Pull takes for the version's content condemned (refused, the rest
// installed) instead of a failed pull. A clean body that ends early is
// still ErrDigest (TestExtractLayerChecksDigest).
func TestExtractLayerReadError(t *testing.T) {
	dir := makeLayerDir(t, layerFiles, slices.Sorted(maps.Keys(layerFiles)), 0o644, time.Unix(0, 0))
	good, desc := packLayer(t, dir)
	for _, cause := range []error{syscall.ECONNRESET, context.Canceled, io.ErrUnexpectedEOF} {
		for _, at := range []int{0, 10, len(good) / 2, len(good) - 4, len(good)} {
			t.Run(fmt.Sprintf("%v after %d bytes", cause, at), func(t *testing.T) {
				root := t.TempDir()
				dst := filepath.Join(root, "x")
				if err := os.Mkdir(dst, 0o755); err != nil {
					t.Fatal(err)
				}
				readErr := cause
				if cause != io.ErrUnexpectedEOF {
					readErr = &net.OpError{Op: "read", Net: "tcp", Err: cause}
				}
				err := extractLayer(&cutReader{r: bytes.NewReader(good[:at]), err: readErr}, desc, dst)
				checkOnlyDst(t, root)
				if !errors.Is(err, cause) {
					t.Fatalf("extractLayer of a download cut by %v: %v, want it wrapped", cause, err)
				}
				if errors.Is(err, ErrDigest) || errors.Is(err, ErrInvalid) || refusable(err) {
					t.Errorf("extractLayer of a download cut by %v: %v; want the read error, not a refusal of the content", cause, err)
				}
				if !strings.Contains(err.Error(), "read layer "+desc.Digest.String()) {
					t.Errorf("extractLayer: %v, want it to name the layer %s", err, desc.Digest)
				}
			})
		}
	}
}

func TestExtractLayerBoundsEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts 100,000 entries")
	}
	// One directory named maxLayerFiles+1 times: its 512-byte header block
	// repeated, then the two zero blocks that end an archive.
	var one bytes.Buffer
	if err := tar.NewWriter(&one).WriteHeader(&tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755, Format: tar.FormatUSTAR}); err != nil {
		t.Fatal(err)
	}
	if one.Len() != 512 {
		t.Fatalf("a directory header of %d bytes, want 512", one.Len())
	}
	blob := gzipBytes(t, append(bytes.Repeat(one.Bytes(), maxLayerFiles+1), make([]byte, 1024)...))
	root := t.TempDir()
	dst := filepath.Join(root, "x")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	err := extractLayer(bytes.NewReader(blob), blobDesc(blob), dst)
	checkOnlyDst(t, root)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "entries") {
		t.Errorf("extractLayer of %d entries: got error %v, want ErrInvalid naming the bound", maxLayerFiles+1, err)
	}
}

// TestExtractLayerEdgeCases checks archives that are odd but harmless.
func TestExtractLayerEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		entries []tarEntry
		want    map[string]string
	}{
		{"empty archive", nil, map[string]string{}},
		{"files without their directories", []tarEntry{regEntry("a/b/c", "c")}, map[string]string{"a/b/c": "c"}},
		{"directory twice", []tarEntry{dirEntry("a/"), dirEntry("a/"), regEntry("a/b", "b")}, map[string]string{"a/b": "b"}},
		{"directory without slash", []tarEntry{{tar.Header{Name: "a", Typeflag: tar.TypeDir, Mode: 0o755}, ""}}, map[string]string{"a/": ""}},
		{"dot names", []tarEntry{regEntry(".hidden", "h"), regEntry("a/..b", "b")}, map[string]string{".hidden": "h", "a/..b": "b"}},
		{"modes ignored", []tarEntry{{tar.Header{Name: "x", Typeflag: tar.TypeReg, Mode: 0o4777, Size: 1}, "x"}}, map[string]string{"x": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blob := makeTarGz(t, tt.entries, false)
			root := t.TempDir()
			dst := filepath.Join(root, "x")
			if err := os.Mkdir(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := extractLayer(bytes.NewReader(blob), blobDesc(blob), dst); err != nil {
				t.Fatalf("extractLayer: %v", err)
			}
			checkOnlyDst(t, root)
			got := readTree(t, dst)
			if !maps.Equal(got, tt.want) {
				t.Errorf("extractLayer: got files %q, want %q", got, tt.want)
			}
			err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				fi, err := d.Info()
				if err != nil {
					return err
				}
				if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 || (!d.IsDir() && fi.Mode().Perm()&0o111 != 0) {
					t.Errorf("%s: got mode %v, want no special or executable bits", p, fi.Mode())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkOnlyDst checks that root holds x and nothing else, and that nothing
// under it is anything but a regular file or a directory.
func checkOnlyDst(t testing.TB, root string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "x" || !entries[0].IsDir() {
		t.Fatalf("after extractLayer into %s/x, %s holds %q, want only the directory x", root, root, names)
	}
	err = filepath.WalkDir(filepath.Join(root, "x"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			t.Errorf("%s: got mode %v, want a regular file or a directory", p, d.Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzExtractLayer feeds extractLayer arbitrary blobs, each with the
// descriptor of its own bytes so that the digest check passes and the
// gzip and tar parsing is what gets exercised. Whatever the blob,
// extractLayer must not panic nor write anything but regular files and
// directories under dst.
func FuzzExtractLayer(f *testing.F) {
	dir := f.TempDir()
	for rel, body := range layerFiles {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	var real bytes.Buffer
	if _, err := writeLayer(dir, &real); err != nil {
		f.Fatal(err)
	}
	f.Add(real.Bytes())
	for _, l := range hostileLayers(f) {
		f.Add(l.blob)
	}
	f.Fuzz(func(t *testing.T, blob []byte) {
		root := t.TempDir()
		dst := filepath.Join(root, "x")
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		err := extractLayer(bytes.NewReader(blob), blobDesc(blob), dst)
		checkOnlyDst(t, root)
		if errors.Is(err, ErrDigest) {
			t.Errorf("extractLayer: got error %v, want no ErrDigest: the bytes match the descriptor", err)
		}
	})
}
