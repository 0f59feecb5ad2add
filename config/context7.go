package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DefaultExcludes returns the built-in exclude globs, applied to every
// library in addition to its own Exclude: changelogs, licences, codes of
// conduct, dependency and vendored trees, hidden folders, and Docusaurus'
// copies of older versions. Each matches at the repository root and at any
// depth, but for hidden folders: scoped says the selection is chosen docs
// (include globs, context7.json folders), where only the repository's
// top-level hidden folders (.github) are left out; a selection of the
// whole repository leaves out every hidden folder. The caller owns the
// returned slice.
func DefaultExcludes(scoped bool) []string {
	hidden := "**/.*/**/*"
	if scoped {
		// Within chosen docs, nested hidden folders hold real pages
		// (generated references such as error catalogs live in
		// .generated/); the repository's own (.github) stay out.
		hidden = ".*/**/*"
	}
	return []string{
		"**/CHANGELOG*",
		"**/CHANGES*",
		"**/HISTORY*",
		"**/LICENSE*",
		"**/LICENCE*",
		"**/COPYING*",
		"**/CODE_OF_CONDUCT*",
		"**/node_modules/**",
		"**/vendor/**",
		"**/third_party/**",
		// Files in hidden folders (.github, .vitepress…). Not hidden files:
		// "**/.*/**" would match those too, as a trailing /** also matches
		// nothing, and tldr's page for the "." command is named "..md".
		hidden,
		"**/versioned_docs/**",
		"**/versioned_sidebars/**",
	}
}

// ParseContext7 parses a repository's context7.json leniently: unknown keys
// ($schema, rules, url, public_key…) are ignored, a UTF-8 byte order mark is
// skipped, and strings are trimmed with empty ones dropped. Malformed JSON,
// or known keys of the wrong type, are errors. The file comes from the
// repository, so treat its contents as untrusted: Context7Globs filters them.
func ParseContext7(data []byte) (*Context7, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var c Context7
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("config: parse context7.json: %w", err)
	}
	c.ProjectTitle = strings.TrimSpace(c.ProjectTitle)
	c.Branch = strings.TrimSpace(c.Branch)
	c.Description = strings.TrimSpace(c.Description)
	c.Folders = cleanStrings(c.Folders)
	c.ExcludeFolders = cleanStrings(c.ExcludeFolders)
	c.ExcludeFiles = cleanStrings(c.ExcludeFiles)
	prev := c.PreviousVersions[:0]
	for _, v := range c.PreviousVersions {
		if v.Tag = strings.TrimSpace(v.Tag); v.Tag != "" {
			v.Title = strings.TrimSpace(v.Title)
			prev = append(prev, v)
		}
	}
	c.PreviousVersions = prev
	branches := c.BranchVersions[:0]
	for _, b := range c.BranchVersions {
		if b.Branch = strings.TrimSpace(b.Branch); b.Branch != "" {
			b.Title = strings.TrimSpace(b.Title)
			branches = append(branches, b)
		}
	}
	c.BranchVersions = branches
	return &c, nil
}

func cleanStrings(in []string) []string {
	out := in[:0]
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Context7Globs returns the library's include and exclude globs, taking
// them from c (a repository's context7.json, may be nil) where codex7.yaml is
// silent: include is l.Docs if set, else "folder/**" for each of c's folders;
// exclude is l.Exclude if set, else globs for c's excludeFolders and
// excludeFiles. Neither includes DefaultExcludes, which the caller adds.
//
// From context7.json: "./" prefixes and trailing "/" are stripped; an
// excludeFolders entry that starts with "./" or contains "/" is rooted
// ("x/**"), a bare name matches at any depth ("**/test/**"), and an entry
// with glob metacharacters is used as given; excludeFiles are file names at
// any depth ("**/NAME"). Entries that are not valid globs or that contain a
// ".." segment are dropped, as are duplicates. A nil result means no globs
// (for include: every markdown file). The caller owns the returned slices.
func (l Library) Context7Globs(c *Context7) (include, exclude []string) {
	if c == nil {
		c = &Context7{}
	}
	if len(l.Docs) > 0 {
		include = append([]string(nil), l.Docs...)
	} else {
		var globs []string
		for _, f := range c.Folders {
			f = trimFolder(f)
			switch {
			case f == "" || f == ".":
				globs = append(globs, "**")
			case strings.HasSuffix(f, "**"):
				globs = append(globs, f)
			default:
				globs = append(globs, f+"/**")
			}
		}
		include = cleanGlobs(globs)
	}
	if len(l.Exclude) > 0 {
		exclude = append([]string(nil), l.Exclude...)
	} else {
		var globs []string
		for _, f := range c.ExcludeFolders {
			rooted := strings.HasPrefix(f, "./") || strings.HasPrefix(f, "/")
			f = trimFolder(f)
			switch {
			case f == "" || f == ".":
				continue // excluding the whole repository is surely a mistake
			case hasMeta(f):
				globs = append(globs, f)
			case rooted || strings.Contains(f, "/"):
				globs = append(globs, f+"/**")
			default:
				globs = append(globs, "**/"+f+"/**")
			}
		}
		for _, f := range c.ExcludeFiles {
			f = strings.TrimPrefix(trimFolder(f), "**/")
			if f != "" && f != "." {
				globs = append(globs, "**/"+f)
			}
		}
		exclude = cleanGlobs(globs)
	}
	return include, exclude
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[{") }

// trimFolder strips leading "./" and "/" and trailing "/" from a path.
func trimFolder(f string) string {
	f = strings.TrimSpace(f)
	for {
		switch {
		case strings.HasPrefix(f, "./"):
			f = f[2:]
		case strings.HasPrefix(f, "/"):
			f = f[1:]
		default:
			return strings.TrimRight(f, "/")
		}
	}
}

// cleanGlobs drops invalid, escaping and duplicate globs, keeping order.
func cleanGlobs(globs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range globs {
		if seen[g] || checkGlob(g) != "" {
			continue
		}
		seen[g] = true
		out = append(out, g)
	}
	return out
}
