package artifacts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/codex7/codex7/topics"
)

// ReadTopics reads the topics.json of the version directory dir.
func ReadTopics(dir string) (*topics.Tree, error) {
	var t topics.Tree
	if err := readJSON(filepath.Join(dir, TopicsFile), &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Problem is one thing wrong with an output directory.
type Problem struct {
	// Path is the bad file, relative to the output directory.
	Path string
	// Err wraps one of ErrChecksum, ErrMissing, ErrUnexpected, ErrCorrupt,
	// ErrFormatVersion or ErrStale.
	Err error
}

func (p Problem) String() string { return p.Path + ": " + p.Err.Error() }

// Verify checks an output directory: the catalog's format version, that
// every version it lists exists and that the catalog describes it as its
// manifest does (ErrStale otherwise), and for every version directory on disk
// its manifest's format version and the sha256 of every file it lists, and
// that no unlisted file is present. It returns every problem found, sorted
// by path; an empty result means the directory is sound.
func Verify(out string) ([]Problem, error) {
	if _, err := os.Stat(out); err != nil {
		return nil, err
	}
	var probs []Problem
	add := func(p string, err error) { probs = append(probs, Problem{Path: filepath.ToSlash(p), Err: err}) }

	dirs := map[string]bool{}
	if cat, err := ReadCatalog(out); err != nil {
		add(CatalogFile, trimPath(err, out))
	} else {
		for _, l := range cat.Libraries {
			for _, v := range l.Versions {
				dirs[v.Path] = true
				vdir := filepath.Join(out, filepath.FromSlash(v.Path))
				if _, err := os.Stat(filepath.Join(vdir, ManifestFile)); err != nil {
					add(v.Path+"/"+ManifestFile, fmt.Errorf("%w (listed in %s for %s@%s)", ErrMissing, CatalogFile, l.ID, v.Version))
				} else if m, sum, err := ReadManifestSum(vdir); err == nil {
					if d := disagreement(&v, m, sum); d != "" {
						add(CatalogFile, fmt.Errorf("%w: it lists %s@%s with %s, its manifest says %s: a build or pull stopped before writing the catalog; run it again", ErrStale, l.ID, v.Version, d, describe(m)))
					}
				}
			}
		}
	}
	onDisk, err := filepath.Glob(filepath.Join(out, "*", "*", "*"))
	if err != nil {
		return nil, err
	}
	for _, d := range onDisk {
		rel, _ := filepath.Rel(out, d)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !hidden(filepath.ToSlash(rel)) {
			dirs[filepath.ToSlash(rel)] = true
		}
	}
	rels := make([]string, 0, len(dirs))
	for rel := range dirs {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		dir := filepath.Join(out, filepath.FromSlash(rel))
		if _, err := os.Stat(dir); err != nil {
			continue // reported above as a missing manifest
		}
		for _, p := range VerifyVersion(dir) {
			add(rel+"/"+p.Path, p.Err)
		}
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Path < probs[j].Path })
	return probs, nil
}

// disagreement says how the catalog's entry v differs from the version's
// manifest m, whose bytes hash to sum ("" when it does not): what the
// catalog says.
func disagreement(v *CatalogVersion, m *Manifest, sum string) string {
	if v.Commit != m.Commit || !v.BuiltAt.Equal(m.BuiltAt) || v.Counts != m.Counts {
		return describe(&Manifest{Commit: v.Commit, BuiltAt: v.BuiltAt, Counts: v.Counts})
	}
	if v.Manifest != "" && v.Manifest != sum {
		return fmt.Sprintf("manifest sha256 %.12s… (the manifest's is %.12s…)", v.Manifest, sum)
	}
	return ""
}

func describe(m *Manifest) string {
	return fmt.Sprintf("commit %.12s built %s (%d sections)", m.Commit, m.BuiltAt.UTC().Format("2006-01-02T15:04:05Z"), m.Counts.Sections)
}

// VerifyVersion checks one version directory against its manifest; paths
// in the problems are relative to dir.
func VerifyVersion(dir string) []Problem {
	var probs []Problem
	m, err := ReadManifest(dir)
	if err != nil {
		return []Problem{{Path: ManifestFile, Err: trimPath(err, dir)}}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return []Problem{{Path: ManifestFile, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}}
	}
	defer root.Close()
	listed := map[string]bool{ManifestFile: true}
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		listed[name] = true
		sum, err := rootFileSHA256(root, name)
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			probs = append(probs, Problem{Path: name, Err: ErrMissing})
		case err != nil:
			probs = append(probs, Problem{Path: name, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)})
		case sum != m.Files[name]:
			probs = append(probs, Problem{Path: name, Err: fmt.Errorf("%w: manifest says %.12s…, file is %.12s…", ErrChecksum, m.Files[name], sum)})
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); !listed[rel] {
			probs = append(probs, Problem{Path: rel, Err: ErrUnexpected})
		}
		return nil
	})
	return probs
}

// errNotRegular means a file the manifest lists is not a regular file (a
// link, a device, a directory): artifacts hold none.
var errNotRegular = errors.New("not a regular file")

// rootFileSHA256 returns the sha256 of the regular file name (a slash
// path, as manifests list them) inside root: os.Root refuses a name or a
// link that leads outside it, and only the file's size on disk is read,
// so a listed "/dev/zero" or link cannot make verification read without
// end.
func rootFileSHA256(root *os.Root, name string) (string, error) {
	fi, err := root.Lstat(filepath.FromSlash(name))
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
	}
	f, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return "", err
	}
	defer f.Close()
	// What was opened, should the name have been replaced since Lstat.
	if fi, err = f.Stat(); err != nil {
		return "", err
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
	}
	return readSHA256(io.LimitReader(f, fi.Size()))
}

// trimPath drops the directory prefix errors carry, since Problem.Path says it.
func trimPath(err error, dir string) error {
	return &trimmed{err: err, dir: dir}
}

type trimmed struct {
	err error
	dir string
}

func (t *trimmed) Error() string {
	msg := t.err.Error()
	for _, prefix := range []string{filepath.Join(t.dir, ManifestFile) + ": ", filepath.Join(t.dir, CatalogFile) + ": "} {
		if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
			return msg[len(prefix):]
		}
	}
	return msg
}

func (t *trimmed) Unwrap() error { return t.err }
