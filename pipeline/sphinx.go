package pipeline

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// sourceSuffixRE finds a Sphinx conf.py's source_suffix assignment and
// what follows it up to the end of the statement's brackets or line: a
// string, a list of strings, or a dict from suffix to parser name.
var sourceSuffixRE = regexp.MustCompile(`(?m)^source_suffix\s*=\s*(\[[^\]]*\]|\{[^}]*\}|\([^)]*\)|[^\n#]*)`)

// suffixRE finds the quoted suffixes in that right-hand side.
var suffixRE = regexp.MustCompile(`["'](\.[A-Za-z0-9_]+)["']`)

// sphinxSuffixes reads the source suffixes a Sphinx conf.py declares
// (source_suffix), lower case, or none. It reads the assignment as text:
// conf.py is Python, never run.
func sphinxSuffixes(conf []byte) []string {
	m := sourceSuffixRE.FindSubmatch(conf)
	if m == nil {
		return nil
	}
	var out []string
	for _, s := range suffixRE.FindAllSubmatch(m[1], -1) {
		out = append(out, strings.ToLower(string(s[1])))
	}
	return out
}

// sphinxTextRoots returns the folders (slash paths, "." for the root) of
// the Sphinx projects in fsys, among confs (paths of conf.py files), that
// declare .txt a source suffix: Django writes its reStructuredText in .txt
// files, found so without a config.
func sphinxTextRoots(fsys fs.FS, confs []string) []string {
	var roots []string
	for _, c := range confs {
		data, err := fs.ReadFile(fsys, c)
		if err != nil {
			continue
		}
		for _, s := range sphinxSuffixes(data) {
			if s == ".txt" {
				roots = append(roots, path.Dir(c))
				break
			}
		}
	}
	return roots
}

// under reports whether p lies in one of the folders roots.
func under(p string, roots []string) bool {
	for _, r := range roots {
		if r == "." || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}
