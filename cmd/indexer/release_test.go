package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// releaseEpoch is the SOURCE_DATE_EPOCH TestRelease passes: every file in
// the archives, and each SBOM, must carry this time.
const releaseEpoch = 1700000000

// TestRelease runs deploy/release/release.sh as `task release` does, but
// for two of its six targets to keep it quick: linux on this machine's
// architecture (linux/amd64 in CI), whose binary it runs, and
// windows/arm64, whose binary it inspects. It checks the archives' names
// and contents (the stamped binary and README.md, owned by 0:0 and dated
// SOURCE_DATE_EPOCH), checksums.txt against SHA-256 computed here, the
// CycloneDX SBOMs (the main module, known dependencies, the target's own
// modules), and that a second run makes byte-identical files. release.sh
// runs on a snapshot of this checkout made into a git repository, so that
// edits made meanwhile cannot change what the two runs build.
func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the indexer for two targets, twice")
	}
	if runtime.GOOS != "linux" {
		t.Skip("release.sh needs GNU tar, sed and coreutils, and the linux binary must run here")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	src, commit := releaseSnapshot(t)
	linux := "linux/" + runtime.GOARCH
	targets := []string{linux, "windows/arm64"}
	const version = "v0.0.0-test"
	linuxTar := "indexer_" + version + "_linux_" + runtime.GOARCH + ".tar.gz"
	windowsZip := "indexer_" + version + "_windows_arm64.zip"
	linuxSBOM := "indexer_" + version + "_linux_" + runtime.GOARCH + ".sbom.cdx.json"
	windowsSBOM := "indexer_" + version + "_windows_arm64.sbom.cdx.json"
	epoch := time.Unix(releaseEpoch, 0).UTC()
	created := epoch.Format(time.RFC3339)

	out := filepath.Join(t.TempDir(), "release")
	release := func() map[string][]byte {
		t.Helper()
		cmd := exec.Command(filepath.Join(src, "deploy/release/release.sh"))
		cmd.Env = append(os.Environ(), "OUT="+out, "TARGETS="+strings.Join(targets, " "),
			"VERSION="+version, "SOURCE_DATE_EPOCH="+strconv.Itoa(releaseEpoch))
		start := time.Now()
		msg, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("release.sh: %v\n%s", err, msg)
		}
		t.Logf("release.sh for %s took %s\n%s", strings.Join(targets, " "), time.Since(start).Round(time.Second), msg)
		files := map[string][]byte{}
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(out, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = b
		}
		return files
	}
	files := release()

	want := []string{"checksums.txt", linuxSBOM, linuxTar, windowsSBOM, windowsZip}
	slices.Sort(want)
	if got := releaseKeys(files); !slices.Equal(got, want) {
		t.Fatalf("release.sh wrote %q, want %q", got, want)
	}
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Besides the binary, each archive holds README.md, and LICENSE once
	// the repository has one.
	docs := []string{"README.md"}
	if _, err := os.Stat(filepath.Join(src, "LICENSE")); err == nil {
		docs = append(docs, "LICENSE")
	}
	contents := func(bin string) []string { return slices.Sorted(slices.Values(append(slices.Clone(docs), bin))) }

	t.Run("linux archive", func(t *testing.T) {
		entries := releaseUntar(t, files[linuxTar])
		if got, want := releaseNames(entries), contents("indexer"); !slices.Equal(got, want) {
			t.Fatalf("%s holds %q, want %q", linuxTar, got, want)
		}
		data := map[string][]byte{}
		for _, e := range entries {
			data[e.hdr.Name] = e.data
			wantMode := int64(0o644)
			if e.hdr.Name == "indexer" {
				wantMode = 0o755
			}
			if h := e.hdr; h.Typeflag != tar.TypeReg || h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(epoch) || h.Mode != wantMode {
				t.Errorf("%s: type %c, owner %d:%d, mtime %s, mode %o; want a regular file, 0:0, %s, %o",
					h.Name, h.Typeflag, h.Uid, h.Gid, h.ModTime.UTC().Format(time.RFC3339), h.Mode, created, wantMode)
			}
		}
		if !bytes.Equal(data["README.md"], readme) {
			t.Errorf("README.md in %s differs from the repository's", linuxTar)
		}

		bin := filepath.Join(t.TempDir(), "indexer")
		if err := os.WriteFile(bin, data["indexer"], 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatalf("the linux binary is not ELF: %v", err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				t.Errorf("the linux binary is dynamically linked (program header %s), want static", p.Type)
			}
		}
		f.Close()
		got, err := exec.Command(bin, "version").CombinedOutput()
		if err != nil {
			t.Fatalf("indexer version: %v\n%s", err, got)
		}
		for _, line := range []string{"indexer " + version, "commit " + commit, "built " + created, "linux/" + runtime.GOARCH} {
			if !strings.Contains(string(got), line) {
				t.Errorf("indexer version printed\n%s\nwant a line with %q", got, line)
			}
		}
	})

	t.Run("windows archive", func(t *testing.T) {
		zr, err := zip.NewReader(bytes.NewReader(files[windowsZip]), int64(len(files[windowsZip])))
		if err != nil {
			t.Fatalf("%s: %v", windowsZip, err)
		}
		var names []string
		data := map[string][]byte{}
		for _, f := range zr.File {
			names = append(names, f.Name)
			if !f.Modified.Equal(epoch) {
				t.Errorf("%s: modified %s, want %s", f.Name, f.Modified.UTC().Format(time.RFC3339), created)
			}
			data[f.Name] = releaseUnzip(t, f)
		}
		if want := contents("indexer.exe"); !slices.Equal(names, want) {
			t.Fatalf("%s holds %q, want %q", windowsZip, names, want)
		}
		if !bytes.Equal(data["README.md"], readme) {
			t.Errorf("README.md in %s differs from the repository's", windowsZip)
		}
		exe := data["indexer.exe"]
		if !bytes.HasPrefix(exe, []byte("MZ")) {
			t.Fatalf("indexer.exe starts %q, want MZ (a PE file)", exe[:min(len(exe), 2)])
		}
		f, err := pe.NewFile(bytes.NewReader(exe))
		if err != nil {
			t.Fatalf("indexer.exe: %v", err)
		}
		if f.Machine != pe.IMAGE_FILE_MACHINE_ARM64 {
			t.Errorf("indexer.exe machine %#x, want IMAGE_FILE_MACHINE_ARM64 (%#x)", f.Machine, pe.IMAGE_FILE_MACHINE_ARM64)
		}
	})

	t.Run("checksums", func(t *testing.T) {
		var names []string
		sc := bufio.NewScanner(bytes.NewReader(files["checksums.txt"]))
		for sc.Scan() {
			// sha256sum's format: the hex digest, two spaces, the name.
			sum, name, ok := strings.Cut(sc.Text(), "  ")
			if !ok {
				t.Fatalf("checksums.txt line %q is not sha256sum's format", sc.Text())
			}
			names = append(names, name)
			b, ok := files[name]
			if !ok {
				t.Errorf("checksums.txt lists %s, which release.sh did not write", name)
				continue
			}
			if h := sha256.Sum256(b); sum != hex.EncodeToString(h[:]) {
				t.Errorf("checksums.txt: %s has SHA-256 %s, listed as %s", name, hex.EncodeToString(h[:]), sum)
			}
		}
		if want := slices.DeleteFunc(slices.Clone(want), func(n string) bool { return n == "checksums.txt" }); !slices.Equal(names, want) {
			t.Errorf("checksums.txt lists %q, want every archive and SBOM, sorted: %q", names, want)
		}
	})

	t.Run("sbom", func(t *testing.T) {
		for _, tt := range []struct {
			file, target string
			want, not    []string
		}{
			// go-winio is linked only into windows binaries: each SBOM
			// lists its own target's modules.
			{linuxSBOM, linux, []string{"github.com/blugelabs/bluge", "github.com/modelcontextprotocol/go-sdk", "go.yaml.in/yaml/v3"}, []string{"github.com/Microsoft/go-winio"}},
			{windowsSBOM, "windows/arm64", []string{"github.com/blugelabs/bluge", "github.com/modelcontextprotocol/go-sdk", "github.com/Microsoft/go-winio"}, nil},
		} {
			t.Run(tt.target, func(t *testing.T) {
				var bom struct {
					BOMFormat   string `json:"bomFormat"`
					SpecVersion string `json:"specVersion"`
					Metadata    struct {
						Timestamp string `json:"timestamp"`
						Component struct {
							Type       string `json:"type"`
							Name       string `json:"name"`
							Properties []struct {
								Name  string `json:"name"`
								Value string `json:"value"`
							} `json:"properties"`
						} `json:"component"`
					} `json:"metadata"`
					Components []struct {
						Name    string `json:"name"`
						Version string `json:"version"`
					} `json:"components"`
				}
				if err := json.Unmarshal(files[tt.file], &bom); err != nil {
					t.Fatalf("%s: %v", tt.file, err)
				}
				if bom.BOMFormat != "CycloneDX" || bom.SpecVersion == "" {
					t.Errorf("bomFormat %q, specVersion %q; want CycloneDX and a version", bom.BOMFormat, bom.SpecVersion)
				}
				if bom.Metadata.Timestamp != created {
					t.Errorf("metadata.timestamp %q, want %q (SOURCE_DATE_EPOCH)", bom.Metadata.Timestamp, created)
				}
				if c := bom.Metadata.Component; c.Type != "application" || c.Name != "github.com/codex7/codex7" {
					t.Errorf("main component %s %q, want application github.com/codex7/codex7", c.Type, c.Name)
				}
				props := map[string]string{}
				for _, p := range bom.Metadata.Component.Properties {
					props[p.Name] = p.Value
				}
				if got := props["cdx:gomod:build:env:GOOS"] + "/" + props["cdx:gomod:build:env:GOARCH"]; got != tt.target {
					t.Errorf("SBOM made for %s, want %s", got, tt.target)
				}
				have := map[string]bool{}
				for _, c := range bom.Components {
					if c.Version == "" {
						t.Errorf("component %s has no version", c.Name)
					}
					have[c.Name] = true
				}
				for _, m := range tt.want {
					if !have[m] {
						t.Errorf("no component %s among %d", m, len(bom.Components))
					}
				}
				for _, m := range tt.not {
					if have[m] {
						t.Errorf("component %s, which %s binaries do not link", m, tt.target)
					}
				}
			})
		}
	})

	// A second run with the same inputs wipes OUT and makes the same bytes.
	if err := os.WriteFile(filepath.Join(out, "stale.txt"), []byte("from an older release"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := release()
	if got := releaseKeys(again); !slices.Equal(got, want) {
		t.Fatalf("the second run left %q, want %q", got, want)
	}
	for _, name := range want {
		if !bytes.Equal(files[name], again[name]) {
			t.Errorf("%s differs between two runs with the same inputs: the release is not reproducible", name)
		}
	}
}

// releaseSnapshot copies this checkout's files (tracked and untracked, as
// git sees them, but no build output) into a new git repository with one
// commit, and returns its directory and that commit.
func releaseSnapshot(t *testing.T) (dir, commit string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	dir = filepath.Join(t.TempDir(), "codex7")
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		if name == "" || strings.HasPrefix(name, "build/") {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=@1600000000 +0000", "GIT_COMMITTER_DATE=@1600000000 +0000")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	return dir, git("rev-parse", "HEAD")
}

// releaseEntry is one file read from a tar archive.
type releaseEntry struct {
	hdr  *tar.Header
	data []byte
}

// releaseUntar reads every entry of the gzipped tar archive b, in order.
func releaseUntar(t *testing.T, b []byte) []releaseEntry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header records name %q and time %s, want neither (gzip -n)", zr.Name, zr.ModTime)
	}
	var entries []releaseEntry
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, releaseEntry{h, data})
	}
}

// releaseUnzip returns the contents of f.
func releaseUnzip(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return b
}

func releaseNames(entries []releaseEntry) []string {
	var names []string
	for _, e := range entries {
		names = append(names, e.hdr.Name)
	}
	return names
}

func releaseKeys(m map[string][]byte) []string {
	return slices.Sorted(maps.Keys(m))
}
