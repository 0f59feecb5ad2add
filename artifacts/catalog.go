package artifacts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Catalog lists every library version under an output directory.
type Catalog struct {
	FormatVersion int          `json:"format_version"`
	Libraries     []CatalogLib `json:"libraries"`
	// Checksum is the sha256 in hex of catalog.json's own bytes as written
	// with Checksum empty (see seal). It stays the last field.
	Checksum string `json:"checksum"`
}

// CatalogLib is one library of the catalog.
type CatalogLib struct {
	Library
	// Latest is the version agents get when they name none.
	Latest   string           `json:"latest"`
	Versions []CatalogVersion `json:"versions"`
}

// CatalogVersion is one built version of a library.
type CatalogVersion struct {
	Version string    `json:"version"`
	Ref     string    `json:"ref"`
	Commit  string    `json:"commit"`
	BuiltAt time.Time `json:"built_at"`
	Counts  Counts    `json:"counts"`
	// Path is the version directory relative to the catalog, slash-separated.
	Path string `json:"path"`
	// Manifest is the sha256 (hex) of the version's manifest.json bytes:
	// it identifies the build, and lets a server that trusts this catalog
	// serve the version without reading its manifest until first use
	// (the manifest, read then, lists its files' checksums). Empty in
	// catalogs written before it was added.
	Manifest string `json:"manifest,omitempty"`
	// Topics are the names of the version's topic categories and topics,
	// in tree order (topics.Tree.Names), written for the library's latest
	// version only: a server ranks libraries by them without reading
	// 50,000 trees. They describe the build Manifest names, and are only
	// to be trusted with it.
	Topics []string `json:"topics,omitempty"`
}

// Library returns the catalog entry for id, or nil.
func (c *Catalog) Library(id string) *CatalogLib {
	for i := range c.Libraries {
		if strings.EqualFold(c.Libraries[i].ID, id) {
			return &c.Libraries[i]
		}
	}
	return nil
}

// Version returns the named version, or nil.
func (l *CatalogLib) Version(name string) *CatalogVersion {
	for i := range l.Versions {
		if l.Versions[i].Version == name {
			return &l.Versions[i]
		}
	}
	return nil
}

// WriteCatalog rebuilds catalog.json from the manifests under out and
// replaces it atomically. latest gives each library's latest version as the
// config says; a library it does not name keeps the latest of the previous
// catalog if that version still exists, else its highest semver version,
// else its first. The caller holds Lock.
func WriteCatalog(out string, latest map[string]string) (*Catalog, error) {
	cat, _, err := WriteCatalogKeeping(out, latest, nil)
	return cat, err
}

// WriteCatalogKeeping is WriteCatalog listing only the versions keep
// accepts (every one when keep is nil), by library id and version name as
// their manifests say. It returns the version directories left out, as
// catalog paths (org/project/version), for the caller to Remove now that
// no catalog lists them. The caller holds Lock.
func WriteCatalogKeeping(out string, latest map[string]string, keep func(libraryID, version string) bool) (*Catalog, []string, error) {
	manifests, err := scanManifests(out)
	if err != nil {
		return nil, nil, err
	}
	var dropped []string
	if keep != nil {
		kept := manifests[:0]
		for _, sm := range manifests {
			if keep(sm.m.Library.ID, sm.m.Version) {
				kept = append(kept, sm)
			} else {
				dropped = append(dropped, sm.rel)
			}
		}
		manifests = kept
	}
	prev, _ := ReadCatalog(out)
	byID := map[string]*CatalogLib{}
	meta := map[string]map[string]Library{} // id → version → library metadata
	var ids []string
	for _, sm := range manifests {
		m := sm.m
		lib := byID[m.Library.ID]
		if lib == nil {
			lib = &CatalogLib{Library: m.Library}
			byID[m.Library.ID] = lib
			meta[m.Library.ID] = map[string]Library{}
			ids = append(ids, m.Library.ID)
		}
		meta[m.Library.ID][m.Version] = m.Library
		lib.Versions = append(lib.Versions, NewCatalogVersion(sm.rel, m, sm.sum))
	}
	sort.Strings(ids)
	// What prev says, looked up by path and by library (a scan of prev
	// for each of 50,000 libraries would cost more than the rest).
	prevVersions := map[string]*CatalogVersion{}
	prevLatest := map[string]string{} // lower-case library id → latest
	if prev != nil {
		for i := range prev.Libraries {
			prevLatest[strings.ToLower(prev.Libraries[i].ID)] = prev.Libraries[i].Latest
			for j := range prev.Libraries[i].Versions {
				v := &prev.Libraries[i].Versions[j]
				prevVersions[v.Path] = v
			}
		}
	}
	cat := &Catalog{FormatVersion: FormatVersion, Libraries: []CatalogLib{}}
	for _, id := range ids {
		lib := byID[id]
		sort.Slice(lib.Versions, func(i, j int) bool { return lib.Versions[i].Version < lib.Versions[j].Version })
		lib.Latest = pickLatest(lib, latest[id], prevLatest)
		lib.Library = meta[id][lib.Latest] // title and description as of the latest version
		addTopics(out, lib.Version(lib.Latest), prevVersions)
		cat.Libraries = append(cat.Libraries, *lib)
	}
	data, err := EncodeCatalog(cat)
	if err != nil {
		return nil, nil, err
	}
	if err := writeFileAtomic(filepath.Join(out, CatalogFile), data); err != nil {
		return nil, nil, fmt.Errorf("write catalog: %w", err)
	}
	return cat, dropped, nil
}

// NewCatalogVersion is the catalog's entry for the version directory rel
// whose manifest is m, with sum the sha256 (hex) of the manifest's bytes.
func NewCatalogVersion(rel string, m *Manifest, sum string) CatalogVersion {
	return CatalogVersion{Version: m.Version, Ref: m.Ref, Commit: m.Commit, BuiltAt: m.BuiltAt,
		Counts: m.Counts, Path: rel, Manifest: sum}
}

// addTopics sets v.Topics from the version's topics.json, or from prev's
// entry for the same build (same path and manifest sum), which a rebuild
// that changed nothing finds for every library: no tree is read again. A
// topics.json that cannot be read leaves them out: a server reads the
// tree itself (and refuses the version if it is damaged), as for a
// catalog written before catalogs listed topics.
func addTopics(out string, v *CatalogVersion, prev map[string]*CatalogVersion) {
	if v == nil {
		return
	}
	if pv := prev[v.Path]; pv != nil && pv.Manifest == v.Manifest && pv.Manifest != "" && pv.Topics != nil {
		v.Topics = pv.Topics
		return
	}
	if t, err := ReadTopics(filepath.Join(out, filepath.FromSlash(v.Path))); err == nil {
		v.Topics = t.Names()
	}
}

// pickLatest is the latest version of lib: the one the build asks for
// (want), else the one the previous catalog named (prevLatest, by
// lower-case library id) if it is still built, else the highest.
func pickLatest(lib *CatalogLib, want string, prevLatest map[string]string) string {
	if want != "" && lib.Version(want) != nil {
		return want
	}
	if p, ok := prevLatest[strings.ToLower(lib.ID)]; ok && lib.Version(p) != nil {
		return p
	}
	names := make([]string, len(lib.Versions))
	for i, v := range lib.Versions {
		names[i] = v.Version
	}
	return LatestOf(names)
}

// LatestOf returns the highest semver-looking name ("v1.2.0", "2.0"), else
// the first name, else "".
func LatestOf(names []string) string {
	best, bestV := "", []int(nil)
	for _, n := range names {
		if v := semver(n); v != nil && (bestV == nil || slices.Compare(v, bestV) > 0) {
			best, bestV = n, v
		}
	}
	if best == "" && len(names) > 0 {
		return names[0]
	}
	return best
}

// semver parses "v1.2.3", "1.2" and the like (pre-release suffixes make it
// not a release and return nil).
func semver(s string) []int {
	s = strings.TrimPrefix(s, "v")
	if s == "" || strings.ContainsAny(s, "-+") {
		return nil
	}
	var out []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil
		}
		out = append(out, n)
	}
	return out
}

type scannedManifest struct {
	rel string
	m   *Manifest
	sum string // sha256 (hex) of the manifest's bytes
}

// scanManifests finds <org>/<project>/<version>/manifest.json under out,
// skipping hidden entries (staging, lock) and unreadable manifests. It
// lists the org and project directories and reads each version's manifest
// without listing the version directory (filepath.Glob would: 50,000
// directory reads more for a catalog of 50,000 versions).
func scanManifests(out string) ([]scannedManifest, error) {
	var rels []string
	orgs, err := subdirs(out)
	if err != nil {
		return nil, err
	}
	for _, org := range orgs {
		projects, _ := subdirs(filepath.Join(out, org))
		for _, project := range projects {
			versions, _ := subdirs(filepath.Join(out, org, project))
			for _, version := range versions {
				rels = append(rels, org+"/"+project+"/"+version)
			}
		}
	}
	sort.Strings(rels)
	var found []scannedManifest
	for _, rel := range rels {
		m, sum, err := ReadManifestSum(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			continue // verify reports it; the catalog lists what is usable
		}
		found = append(found, scannedManifest{rel: rel, m: m, sum: sum})
	}
	return found, nil
}

// subdirs returns the names of dir's subdirectories that are not hidden,
// sorted.
func subdirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && (e.IsDir() || e.Type()&fs.ModeSymlink != 0) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func hidden(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// ReadCatalog reads out/catalog.json. Errors name the file and wrap
// ErrMissing, ErrCorrupt, ErrFormatVersion or ErrChecksum when it is not
// a sound catalog of this format.
func ReadCatalog(out string) (*Catalog, error) {
	p := filepath.Join(out, CatalogFile)
	data, err := readFile(p)
	if err != nil {
		return nil, err
	}
	c, err := ParseCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return c, nil
}

// ParseCatalog decodes the bytes of a catalog.json and checks its format
// version and its own checksum. Errors wrap ErrCorrupt, ErrFormatVersion
// or ErrChecksum and do not name the file.
func ParseCatalog(data []byte) (*Catalog, error) {
	var c Catalog
	if err := parseSealed(data, &c, &c.FormatVersion, &c.Checksum); err != nil {
		return nil, err
	}
	return &c, nil
}

// InstallCatalog replaces out/catalog.json with data, a catalog received
// whole (indexer pull), atomically, after checking that it parses as a
// sound catalog, so that the file is byte-identical to the one published.
// The caller holds Lock and has installed every version it lists.
func InstallCatalog(out string, data []byte) error {
	if _, err := ParseCatalog(data); err != nil {
		return fmt.Errorf("install catalog: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(out, CatalogFile), data); err != nil {
		return fmt.Errorf("install catalog: %w", err)
	}
	return nil
}

// ReadManifest reads the manifest of the version directory dir. Errors
// name the file and wrap ErrMissing, ErrCorrupt, ErrFormatVersion or
// ErrChecksum when it is not a sound manifest of this format.
func ReadManifest(dir string) (*Manifest, error) {
	m, _, err := ReadManifestSum(dir)
	return m, err
}

// ReadManifestSum is ReadManifest that also returns the sha256 (hex) of
// the manifest's bytes, which identifies the build (CatalogVersion.Manifest).
func ReadManifestSum(dir string) (*Manifest, string, error) {
	p := filepath.Join(dir, ManifestFile)
	data, err := readFile(p)
	if err != nil {
		return nil, "", err
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", p, err)
	}
	sum := sha256.Sum256(data)
	return m, hex.EncodeToString(sum[:]), nil
}

// ParseManifest decodes the bytes of a manifest.json and checks its
// format version and its own checksum. Errors wrap ErrCorrupt,
// ErrFormatVersion or ErrChecksum and do not name the file.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := parseSealed(data, &m, &m.FormatVersion, &m.Checksum); err != nil {
		return nil, err
	}
	// The files are opened and hashed below the version's directory: a
	// name that leaves it ("../../dev/zero", from a hostile registry's
	// layer) would read anything the process can.
	for name := range m.Files {
		if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
			return nil, fmt.Errorf("%w: it lists the file %q, not a path inside the version's directory", ErrCorrupt, name)
		}
	}
	return &m, nil
}

// parseSealed decodes data, written by seal, into v, whose format version
// and checksum fields format and sum point to, and checks both: the
// format first, so that a file of another format is reported as such.
func parseSealed(data []byte, v any, format *int, sum *string) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if *format != FormatVersion {
		return fmt.Errorf("%w %d (this program reads %d): rebuild the artifacts with this indexer", ErrFormatVersion, *format, FormatVersion)
	}
	return checkSeal(data, *sum)
}

// EncodeManifest renders m as Publish writes manifest.json: indented JSON
// whose Checksum is set to match (m's is overwritten). Programs and tests
// that rewrite a manifest use it so that readers accept the result.
func EncodeManifest(m *Manifest) ([]byte, error) {
	m.FormatVersion = FormatVersion
	return seal(m, &m.Checksum)
}

// EncodeCatalog renders c as WriteCatalog writes catalog.json, with its
// Checksum set to match (c's is overwritten).
func EncodeCatalog(c *Catalog) ([]byte, error) {
	c.FormatVersion = FormatVersion
	return seal(c, &c.Checksum)
}

// seal renders v, a manifest or catalog whose Checksum field sum points
// to, with that field set to the sha256 of v rendered with it empty.
// checkSeal undoes it: the field is the only difference between the two
// renderings, so the bytes checked are exactly the bytes hashed.
func seal(v any, sum *string) ([]byte, error) {
	*sum = ""
	data, err := marshal(v)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(data)
	*sum = hex.EncodeToString(h[:])
	// v rendered again with the sum, without rendering it again (half of
	// writing a catalog of 50,000 libraries): the field is v's last, so
	// its last occurrence is the field and not text inside a value.
	i := bytes.LastIndex(data, checksumField(""))
	if i < 0 {
		return nil, fmt.Errorf("seal: no checksum field in %T", v)
	}
	return slices.Concat(data[:i], checksumField(*sum), data[i+len(checksumField("")):]), nil
}

// checksumField is the checksum field as marshal renders it, with value.
func checksumField(value string) []byte { return []byte(`"checksum": "` + value + `"`) }

// checkSeal checks that data, a file seal wrote, hashes to sum, the
// checksum decoded from it. The encoder escapes every quote inside
// strings, so the field's bytes cannot occur anywhere else in the file.
func checkSeal(data []byte, sum string) error {
	if len(sum) != sha256.Size*2 {
		return fmt.Errorf("%w: no checksum of its own", ErrCorrupt)
	}
	field := checksumField(sum)
	i := bytes.LastIndex(data, field)
	if i < 0 {
		return fmt.Errorf("%w: its checksum field is not as written", ErrCorrupt)
	}
	h := sha256.New()
	h.Write(data[:i])
	h.Write(checksumField(""))
	h.Write(data[i+len(field):])
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("%w: the file says %.12s…, its content is %.12s… (it changed after it was written)", ErrChecksum, sum, got)
	}
	return nil
}

// ReadDocuments reads the documents.json of the version directory dir.
func ReadDocuments(dir string) ([]DocumentInfo, error) {
	var d Documents
	if err := readJSON(filepath.Join(dir, DocumentsFile), &d); err != nil {
		return nil, err
	}
	return d.Documents, nil
}

// readFile reads p; a file not there is ErrMissing.
func readFile(p string) ([]byte, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", p, ErrMissing)
	}
	return data, err
}

func readJSON(p string, v any) error {
	data, err := readFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w: %v", p, ErrCorrupt, err)
	}
	return nil
}
