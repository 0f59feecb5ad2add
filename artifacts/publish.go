package artifacts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codex7/codex7/index"
)

// Dir returns the directory of a library version under out: the library id
// "/org/project" and the version name become path segments.
func Dir(out, libraryID, version string) string {
	return filepath.Join(out, filepath.FromSlash(strings.Trim(libraryID, "/")), version)
}

// checkPlace refuses a library id or version that would not name a
// directory of its own under out (Dir): the org, the project and the
// version must each be one path element, not hidden (the staging area and
// the lock are) and not "." or "..". The config and the build check names
// before this; it is the last guard before anything is replaced.
func checkPlace(libraryID, version string) error {
	segs := strings.Split(strings.TrimPrefix(libraryID, "/"), "/")
	if len(segs) != 2 {
		return fmt.Errorf("%w: library id %q is not /org/project", ErrBadName, libraryID)
	}
	for _, e := range append(segs, version) {
		if e == "" || e[0] == '.' || strings.ContainsAny(e, "/\\\x00") || e != filepath.Base(e) {
			return fmt.Errorf("%w: %q in %s@%s is not a directory name of its own", ErrBadName, e, libraryID, version)
		}
	}
	return nil
}

// lockWait is how long Lock waits for another holder to let go.
const lockWait = 2 * time.Second

// Lock takes an exclusive lock on out for one build, creates out if needed
// and removes what crashed or killed builds left behind: everything in its
// staging area, and catalog.json's temporary files (see WriteCatalog).
// When another process holds the lock for over lockWait it fails with
// ErrLocked. Release it with the returned func.
func Lock(out string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Join(out, stagingDir), 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(out, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock output directory: %w", err)
	}
	// A build killed a moment ago may leave a child process that was
	// forked but had not yet exec'd holding the lock's descriptor for a few
	// milliseconds (on Windows, the system may take as long to release a
	// dead process's lock): wait a little before calling the directory busy.
	deadline := time.Now().Add(lockWait)
	for {
		err := tryLock(f)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: %s (wait for it to finish)", ErrLocked, out)
		}
		time.Sleep(25 * time.Millisecond)
	}
	removeLeftovers(out)
	return func() {
		unlock(f)
		f.Close()
	}, nil
}

// removeLeftovers removes what a build killed at any moment can leave in
// out besides complete, published versions: staged version directories,
// and the temporary file of a catalog.json being replaced. The caller
// holds Lock, so none of them is still being written. Failures are
// ignored: a leftover wastes space but is never read.
func removeLeftovers(out string) {
	stale, _ := os.ReadDir(filepath.Join(out, stagingDir))
	for _, e := range stale {
		os.RemoveAll(filepath.Join(out, stagingDir, e.Name()))
	}
	temps, _ := filepath.Glob(filepath.Join(out, tempPattern(CatalogFile)))
	for _, p := range temps {
		os.Remove(p)
	}
}

// tempPattern is the name pattern of writeFileAtomic's temporary files
// for a file named name: hidden, so that nothing scanning the directory
// takes one for an artifact.
func tempPattern(name string) string { return "." + name + "-*" }

// Publish writes v into a staging directory under out, checksums it, and
// swaps it into place at Dir(out, id, version) atomically. The caller holds
// Lock. On error nothing under out changes except the staging area. The
// catalog is not touched: call WriteCatalog once all versions are published.
func Publish(ctx context.Context, out string, v *Version) (err error) {
	m := v.Manifest
	stage, err := Stage(out, m.Library.ID, m.Version)
	if err != nil {
		return fmt.Errorf("publish %s@%s: %w", m.Library.ID, m.Version, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(stage)
			err = fmt.Errorf("publish %s@%s: %w", m.Library.ID, m.Version, err)
		}
	}()
	if err := writeJSON(filepath.Join(stage, TopicsFile), v.Topics); err != nil {
		return err
	}
	if err := writeDocuments(filepath.Join(stage, DocumentsFile), v.Documents); err != nil {
		return err
	}
	if err := index.Write(ctx, filepath.Join(stage, IndexDir), v.Entries); err != nil {
		return err
	}
	if m.Files, err = checksums(stage); err != nil {
		return err
	}
	data, err := EncodeManifest(&m)
	if err != nil {
		return fmt.Errorf("encode %s: %w", ManifestFile, err)
	}
	if err := os.WriteFile(filepath.Join(stage, ManifestFile), data, 0o644); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return install(stage, out, m.Library.ID, m.Version)
}

// Stage creates an empty directory in out's staging area for a version of
// libraryID being written or received; Install or Publish moves it into
// place, and the next Lock removes it if neither does. The caller holds
// Lock.
func Stage(out, libraryID, version string) (string, error) {
	if err := checkPlace(libraryID, version); err != nil {
		return "", err
	}
	return os.MkdirTemp(filepath.Join(out, stagingDir), strings.ReplaceAll(strings.Trim(libraryID, "/"), "/", "__")+"@"+version+"-")
}

// Install swaps stage, a complete version directory made by Stage (as
// indexer pull receives one), into place at Dir(out, libraryID, version)
// atomically, as Publish does: the version is at every instant either the
// previous directory or the new one. It checks nothing: verify stage
// first (VerifyVersion). The caller holds Lock; on error stage is removed.
func Install(stage, out, libraryID, version string) (err error) {
	defer func() {
		if err != nil {
			os.RemoveAll(stage)
			err = fmt.Errorf("install %s@%s: %w", libraryID, version, err)
		}
	}()
	return install(stage, out, libraryID, version)
}

func install(stage, out, libraryID, version string) error {
	if err := checkPlace(libraryID, version); err != nil {
		return err
	}
	if err := publishModes(stage); err != nil {
		return err
	}
	if err := syncTree(stage); err != nil {
		return err
	}
	final := Dir(out, libraryID, version)
	if err := makeParents(final); err != nil {
		return err
	}
	if err := swap(stage, final); err != nil {
		return err
	}
	os.RemoveAll(stage) // after a swap it holds the previous version
	return syncDir(filepath.Dir(final))
}

// makeParents creates the org and project directories that the version
// directory final goes in, each synced into its parent when it is new: the swap syncs only the project directory, so a crash could
// otherwise lose a new library's directories, and with them a version
// that catalog.json (synced when written) already lists.
func makeParents(final string) error {
	project := filepath.Dir(final)
	org := filepath.Dir(project)
	for _, d := range []string{org, project} {
		if _, err := os.Lstat(d); err == nil {
			continue
		}
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// syncDir is syncDirectory; tests replace it to see which directories
// are synced.
var syncDir = syncDirectory

// Remove takes the version directory rel (org/project/version, as a
// catalog's Path says) out of out: it is moved into the staging area in
// one rename, so it is never seen half-deleted, then deleted. Call it only
// once catalog.json no longer lists the version. The caller holds Lock.
func Remove(out, rel string) error {
	org, rest, _ := strings.Cut(rel, "/")
	project, version, _ := strings.Cut(rest, "/")
	if err := checkPlace("/"+org+"/"+project, version); err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	final := filepath.Join(out, filepath.FromSlash(rel))
	gone, err := os.MkdirTemp(filepath.Join(out, stagingDir), "removed-")
	if err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	if err := rename(final, filepath.Join(gone, "v")); err != nil {
		os.Remove(gone)
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	syncDir(filepath.Dir(final))
	// Empty project and org directories go too, so that the tree holds
	// only what the catalog lists.
	for d := filepath.Dir(final); d != filepath.Clean(out); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return os.RemoveAll(gone)
}

// swap moves the directory stage to final, replacing final if it exists, so
// that final is at every instant either the old or the new directory.
func swap(stage, final string) error {
	if _, err := os.Lstat(final); errors.Is(err, fs.ErrNotExist) {
		return rename(stage, final)
	}
	return exchange(stage, final)
}

// checksums returns the sha256 of every file under dir, by slash path.
func checksums(dir string) (map[string]string, error) {
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sums[filepath.ToSlash(rel)] = sum
		return nil
	})
	return sums, err
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readSHA256(f)
}

// readSHA256 returns the hex sha256 of what r holds.
func readSHA256(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// marshal renders v as indented JSON with a final newline. encoding/json
// sorts map keys, and callers keep slices in a stable order, so the bytes
// depend only on v.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(p string, v any) error {
	data, err := marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(p), err)
	}
	return os.WriteFile(p, data, 0o644)
}

// writeDocuments writes documents.json with one compact document per line:
// a third of the indented size for libraries with thousands of pages, and
// still a readable, line-by-line diff between builds.
func writeDocuments(p string, docs []DocumentInfo) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	w.WriteString("{\"documents\": [")
	for i := range docs {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n")
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&docs[i]); err != nil {
			f.Close()
			return fmt.Errorf("encode %s: %w", DocumentsFile, err)
		}
		w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeFileAtomic replaces p with data through a temporary file and a
// rename. A process killed before the rename leaves the temporary file,
// named by tempPattern, which the next Lock removes.
func writeFileAtomic(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), tempPattern(filepath.Base(p)))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := rename(tmp.Name(), p); err != nil {
		return err
	}
	return syncDir(filepath.Dir(p))
}

// publishModes makes the staged tree world-readable (MkdirTemp and bluge
// create private modes), since servers often run as another user.
func publishModes(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
}

// syncTree fsyncs every file and directory under dir so a rename published
// after it never exposes unwritten data.
func syncTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return syncFile(p)
	})
	if err != nil {
		return err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}
