package contextitems

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/codex7/codex7/artifacts"
)

// Query returns what is searched for a prompt: its prose, without fenced
// code blocks (unless it is all code), control and invisible characters
// made spaces (see visible), spaces collapsed, at most 1,000 bytes cut at
// a word.
func Query(prompt string) string {
	var prose []string
	fence := ""
	for _, line := range strings.Split(prompt, "\n") {
		t := strings.TrimSpace(line)
		if m := fenceOf(t); m != "" && (fence == "" || strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "") {
			if fence == "" {
				fence = m
			} else {
				fence = ""
			}
			continue
		}
		if fence == "" {
			prose = append(prose, t)
		}
	}
	q := strings.Join(strings.Fields(visible(strings.Join(prose, " "))), " ")
	if q == "" {
		q = strings.Join(strings.Fields(visible(prompt)), " ")
	}
	if len(q) > maxQueryBytes {
		cut := strings.LastIndexByte(q[:maxQueryBytes+1], ' ')
		if cut <= 0 {
			cut = maxQueryBytes
			for cut > 0 && !utf8.RuneStart(q[cut]) {
				cut--
			}
		}
		q = q[:cut]
	}
	return q
}

// visible returns s with every control character (the ESC of a terminal's
// colour codes, NUL, tabs), invisible format character (Unicode Cf: the
// zero-width joiner inside an emoji such as 🧑‍💻, a zero-width space or a
// byte order mark pasted from a web page) and byte of invalid UTF-8
// replaced by a space. The query is sent as the topic of remote services,
// which refuse such characters (request.CheckText): one of them in a
// prompt would otherwise fail every library the prompt names. Emoji and
// other visible characters are kept.
func visible(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				r = ' ' // an invalid byte; a real U+FFFD is kept
			}
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, as many
// as written), or "".
func fenceOf(t string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(t, c+c+c) {
			return t[:len(t)-len(strings.TrimLeft(t, c))]
		}
	}
	return ""
}

// maxSummaryRunes bounds Summary.
const maxSummaryRunes = 200

var (
	mdLinkRe  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	listMark  = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+`)
	htmlBlock = regexp.MustCompile(`^<[^>]*>$`)
)

// Summary returns the start of the first paragraph of prose of a
// section's Markdown (headings, code blocks, tables and HTML skipped,
// links reduced to their text) — or, when it has none, of its first code
// block or table — at most 200 characters cut at a word.
func Summary(md string) string {
	var para, code, other []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		if m := fenceOf(t); m != "" {
			if len(para) > 0 {
				break
			}
			if fence == "" {
				fence = m
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			if t != "" && len(code) < 8 {
				code = append(code, t)
			}
			continue
		}
		if isUnderline(t) {
			para = nil // what it underlines is a setext heading, not prose
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "<!--") || htmlBlock.MatchString(t) {
			if len(para) > 0 {
				break
			}
			if strings.HasPrefix(t, "|") && strings.Trim(t, "|-: ") != "" && len(other) < 8 {
				other = append(other, strings.Join(strings.Fields(strings.ReplaceAll(strings.Trim(t, "|"), "|", ";")), " "))
			}
			continue
		}
		t = listMark.ReplaceAllString(strings.TrimLeft(t, "> "), "")
		para = append(para, t)
	}
	if len(para) == 0 {
		para = code
	}
	if len(para) == 0 {
		para = other
	}
	s := mdLinkRe.ReplaceAllString(strings.Join(para, " "), "$1")
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	if utf8.RuneCountInString(s) <= maxSummaryRunes {
		return s
	}
	r := []rune(s)[:maxSummaryRunes]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > maxSummaryRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// isUnderline reports whether t underlines a setext heading.
func isUnderline(t string) bool {
	return len(t) >= 2 && (strings.Trim(t, "-") == "" || strings.Trim(t, "=") == "")
}

// scpRe matches an scp-style git address: git@github.com:org/project.git.
var scpRe = regexp.MustCompile(`^[\w.-]+@([\w.-]+):([^/].*)$`)

// SourceURL returns the web page of a section on its repository's forge,
// at the commit it was built from: GitHub, GitLab, Bitbucket, Codeberg and
// Gitea-like hosts whose name says so, the path escaped. Other hosts and
// local repositories give "".
func SourceURL(repo, commit, path, anchor string) string {
	if repo == "" || commit == "" || path == "" {
		return ""
	}
	if m := scpRe.FindStringSubmatch(repo); m != nil {
		repo = "https://" + m[1] + "/" + m[2]
	}
	u, err := url.Parse(repo)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "ssh" && u.Scheme != "git") {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	base := "https://" + host + "/" + strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	if strings.Count(strings.Trim(u.Path, "/"), "/") < 1 {
		return ""
	}
	// A file name may hold spaces, "#" or "?": escaped, the URL is one
	// (and an autolink in Markdown), and names the file, not a fragment.
	path = (&url.URL{Path: path}).EscapedPath()
	var page string
	switch {
	case host == "github.com":
		page = base + "/blob/" + commit + "/" + path
	case host == "gitlab.com" || strings.HasPrefix(host, "gitlab."):
		page = base + "/-/blob/" + commit + "/" + path
	case host == "bitbucket.org":
		page = base + "/src/" + commit + "/" + path
	case host == "codeberg.org" || strings.HasPrefix(host, "gitea."):
		page = base + "/src/commit/" + commit + "/" + path
	default:
		return ""
	}
	if anchor != "" {
		page += "#" + anchor
	}
	return page
}

// ManifestRepos returns a Repos function for Options that reads the
// repository URL from each version's manifest under the artifact
// directory dir, once per version. It is safe for concurrent use.
func ManifestRepos(dir string, cat *artifacts.Catalog) func(library, version string) string {
	var mu sync.Mutex
	repos := map[string]string{}
	return func(library, version string) string {
		key := library + "@" + version
		mu.Lock()
		defer mu.Unlock()
		if r, ok := repos[key]; ok {
			return r
		}
		repo := ""
		if l := catalogLibrary(cat, library); l != nil {
			if v := l.Version(version); v != nil {
				if m, err := artifacts.ReadManifest(filepath.Join(dir, filepath.FromSlash(v.Path))); err == nil {
					repo = m.Repo
				}
			}
		}
		repos[key] = repo
		return repo
	}
}

// catalogLibrary is cat.Library, nil for a nil catalog.
func catalogLibrary(cat *artifacts.Catalog, id string) *artifacts.CatalogLib {
	if cat == nil {
		return nil
	}
	return cat.Library(id)
}
