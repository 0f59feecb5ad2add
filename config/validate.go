package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/request"
)

var (
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	shaRE     = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)
	schemeRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
	helperRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*::`)
)

// tokenPrefixes start well-known access tokens (GitHub, GitLab, Bitbucket).
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "ATBB"}

func looksLikeToken(s string) bool {
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(s, p) && len(s) > len(p)+8 {
			return true
		}
	}
	return false
}

// VersionName returns the name of v in artifacts and ids: v.Name if set,
// else v.Ref without a refs/heads/ or refs/tags/ prefix and with every
// character a library id does not take replaced by '-' (see
// versionNameOf).
func (l Library) VersionName(v Version) string {
	if v.Name != "" {
		return v.Name
	}
	ref := strings.TrimPrefix(v.Ref, "refs/heads/")
	ref = strings.TrimPrefix(ref, "refs/tags/")
	return versionNameOf(ref)
}

// versionNameOf makes a ref a name agents can write in a library id: every
// character a key segment does not take ('/' of release/1.x, '@' of a
// monorepo's widgets@1.0.0, '+' of semver build metadata) becomes '-'.
func versionNameOf(ref string) string {
	return strings.Map(func(r rune) rune {
		if request.IsVersionRune(r) {
			return r
		}
		return '-'
	}, ref)
}

// Slug returns the identity of a topic name, its id in topics.json:
// lowercase, with every run of characters other than letters and digits
// replaced by one '-', and no leading or trailing '-' ("Data Fetching" and
// "data_fetching" are both "data-fetching"). It is the one implementation
// of topic slugs: topics.Slug, which names the generated topics, is this
// function (it lives here because topics imports config), so an override
// replaces the generated topic of its name. The ids of existing artifacts
// depend on it: topics' golden tests pin its output.
//
// It is deliberately not markdown.Slug, GitHub's rule for heading anchors,
// which keeps '_', does not collapse or trim '-' and must match the links
// GitHub renders; a topic id instead must not depend on punctuation.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// line returns the line of field, else fallback.
func (c *Config) line(field string, fallback int) int {
	if l, ok := c.lines[field]; ok {
		return l
	}
	return fallback
}

// Validate checks every library and returns all problems, sorted by line and
// joined with errors.Join, each an *Error; nil if there are none. It does not
// touch the network or the file system: unreachable repos are found at fetch
// time. Validate does not modify c.
func (c *Config) Validate() error {
	return joinErrors(c.problems())
}

// problems returns the problems Validate reports, unsorted and uncapped.
func (c *Config) problems() []*Error {
	v := validator{c: c}
	if len(c.Libraries) == 0 {
		v.add(c.line("libraries", 0), "libraries",
			"no libraries to index; add a libraries: list, for example: %s", exampleConfig)
	}
	v.allow()
	type seenAt struct {
		field string
		line  int
	}
	ids := map[string]seenAt{}
	for i, l := range c.Libraries {
		v.lib, v.prefix = l, fmt.Sprintf("libraries[%d]", i)
		v.library()
		if key := strings.ToLower(l.ID); l.ID != "" {
			if first, dup := ids[key]; dup {
				at := first.field
				if first.line > 0 {
					at += fmt.Sprintf(" at line %d", first.line)
				}
				v.fieldf("id", "duplicate id %q, already used by %s (ids are case-insensitive); give each library its own id", l.ID, at)
			} else {
				ids[key] = seenAt{v.prefix, v.lineOf("id")}
			}
		}
	}
	for _, e := range v.errs {
		e.File = c.File
	}
	return v.errs
}

type validator struct {
	c      *Config
	lib    Library
	prefix string // "libraries[2]"
	errs   []*Error
}

func (v *validator) add(line int, field, format string, args ...any) {
	v.errs = append(v.errs, &Error{Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// lineOf returns the line of a field of the current library, falling back
// to the enclosing values and then to the library's entry.
func (v *validator) lineOf(field string) int {
	p := v.prefix + "." + field
	for {
		if l, ok := v.c.lines[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= len(v.prefix) {
			return v.c.line(v.prefix, v.lib.Line)
		}
		p = p[:i]
	}
}

// fieldf reports a problem with a field of the current library.
func (v *validator) fieldf(field, format string, args ...any) {
	v.add(v.lineOf(field), v.prefix+"."+field, format, args...)
}

func (v *validator) library() {
	l := v.lib
	if msg := checkID(l.ID); msg != "" {
		v.fieldf("id", "%s", msg)
	}
	for i, a := range l.Aliases {
		if strings.TrimSpace(a) == "" {
			v.fieldf(fmt.Sprintf("aliases[%d]", i), "empty alias; remove it")
		}
	}
	if msg := checkRepo(l.Repo); msg != "" {
		v.fieldf("repo", "%s", msg)
	} else if msg := v.c.checkAllowed(l.Repo); msg != "" {
		v.fieldf("repo", "%s", msg)
	}
	v.versions()
	for i, g := range l.Docs {
		if msg := checkGlob(g); msg != "" {
			v.fieldf(fmt.Sprintf("docs[%d]", i), "%s", msg)
		}
	}
	for i, g := range l.Exclude {
		if msg := checkGlob(g); msg != "" {
			v.fieldf(fmt.Sprintf("exclude[%d]", i), "%s", msg)
		}
	}
	for i, f := range l.Formats {
		if _, err := formats.Parse([]string{f}); err != nil {
			v.fieldf(fmt.Sprintf("formats[%d]", i), "%s", strings.TrimPrefix(err.Error(), formats.ErrUnknown.Error()+" "))
		}
	}
	v.topics()
	if l.TokenEnv != "" {
		// The value is never echoed: people paste the token itself here.
		switch {
		case looksLikeToken(l.TokenEnv):
			v.fieldf("token_env", "this looks like a token, not the name of an environment variable; revoke it if this file was shared, put it in an environment variable (e.g. CODEX7_GIT_TOKEN) and name that variable here")
		case !envNameRE.MatchString(l.TokenEnv):
			v.fieldf("token_env", "not a valid environment variable name; use letters, digits and '_', not starting with a digit, e.g. GITHUB_TOKEN")
		}
	}
}

func (v *validator) versions() {
	l := v.lib
	names := map[string]string{} // lowercased name -> field
	var listed []string
	for i, ver := range l.Versions {
		f := fmt.Sprintf("versions[%d]", i)
		refOK := true
		switch ref := ver.Ref; {
		case strings.TrimSpace(ref) == "":
			v.fieldf(f+".ref", "missing; set ref: to a branch or tag, e.g. main or v1.2.0")
			refOK = false
		case shaRE.MatchString(ref):
			v.fieldf(f+".ref", "%q looks like a commit SHA; pin a branch or tag; shallow clones cannot fetch a bare commit (if it really is a branch or tag named so, write refs/heads/%s or refs/tags/%s)", ref, ref, ref)
			refOK = false
		default:
			if msg := checkRef(ref); msg != "" {
				v.fieldf(f+".ref", "%s", msg)
				refOK = false
			}
		}
		name := l.VersionName(ver)
		nameField := f + ".name"
		if ver.Name == "" {
			if !refOK {
				continue
			}
			nameField = f + ".ref"
		}
		if msg := checkVersionName(name); msg != "" {
			v.fieldf(nameField, "%s", msg)
			continue
		}
		key := strings.ToLower(name)
		if first, dup := names[key]; dup {
			at := first
			if line := v.lineOf(first); line > 0 {
				at += fmt.Sprintf(" at line %d", line)
			}
			v.fieldf(nameField, "duplicate version name %q, also used by %s (names are case-insensitive); remove one or set a distinct name:", name, at)
			continue
		}
		names[key] = f
		listed = append(listed, name)
	}
	if l.Latest != "" && len(l.Versions) > 0 {
		for _, ver := range l.Versions {
			if l.Latest == ver.Ref || l.Latest == l.VersionName(ver) {
				return
			}
		}
		v.fieldf("latest", "%q is not one of this library's versions (%s); set latest: to one of their names or refs, or remove it", l.Latest, strings.Join(listed, ", "))
	}
}

func (v *validator) topics() {
	slugs := map[string]string{}
	for i, t := range v.lib.Topics {
		f := fmt.Sprintf("topics[%d]", i)
		switch sl := Slug(t.Name); {
		case strings.TrimSpace(t.Name) == "":
			v.fieldf(f+".name", "missing; set name: to the topic's display name, e.g. Routing")
		case sl == "":
			v.fieldf(f+".name", "%q has no letters or digits; topics are identified by them", t.Name)
		default:
			if first, dup := slugs[sl]; dup {
				at := first
				if line := v.lineOf(first + ".name"); line > 0 {
					at += fmt.Sprintf(" at line %d", line)
				}
				v.fieldf(f+".name", "topic %q is the same topic as %s (both are %q once normalized); merge them or rename one", t.Name, at, sl)
			} else {
				slugs[sl] = f
			}
		}
		for j, g := range t.Paths {
			if msg := checkGlob(g); msg != "" {
				v.fieldf(fmt.Sprintf("%s.paths[%d]", f, j), "%s", msg)
			}
		}
		for j, h := range t.Headings {
			if strings.TrimSpace(h) == "" {
				v.fieldf(fmt.Sprintf("%s.headings[%d]", f, j), "empty heading would match every section; remove it")
			}
		}
	}
}

// checkID returns what is wrong with a library id, or "".
// CheckID returns what is wrong with id as a library id (/org/project,
// two segments of letters, digits, '.', '_' and '-', each not starting
// with '.'), with the fix, or nil. Other packages ask it so that they
// hold ids to the rule the build does (indexer token's patterns).
func CheckID(id string) error {
	if msg := checkID(id); msg != "" {
		return errors.New(msg)
	}
	return nil
}

func checkID(id string) string {
	const form = "ids are /org/project: two segments of letters, digits, '.', '_' and '-', each not starting with '.'"
	if strings.TrimSpace(id) == "" {
		return `missing; set id: to /org/project, e.g. "/vercel/next.js"`
	}
	fix := ""
	if s := suggestID(id); s != "" && s != id {
		fix = fmt.Sprintf("; write %q", s)
	}
	if !strings.HasPrefix(id, "/") {
		if fix == "" {
			return fmt.Sprintf(`%q must be /org/project, starting with "/", e.g. "/vercel/next.js"`, id)
		}
		return fmt.Sprintf("%q must start with \"/\"%s", id, fix)
	}
	segs := strings.Split(id[1:], "/")
	if len(segs) != 2 {
		return fmt.Sprintf("%q has %d segments, want exactly two (/org/project)%s; list versions under versions:, not in the id", id, len(segs), fix)
	}
	for _, s := range segs {
		if s == "" {
			return fmt.Sprintf("%q has an empty segment%s", id, fix)
		}
		if !request.IsIDSegment(s) {
			return fmt.Sprintf("%q: segment %q is not allowed; %s%s", id, s, form, fix)
		}
		if len(s) > maxNameBytes {
			return fmt.Sprintf("%q: segment %q is %d bytes long, and each names a directory of the artifacts, which a file system takes up to %d", id, s[:16]+"…", len(s), maxNameBytes)
		}
	}
	return ""
}

// suggestID guesses the id meant by a malformed one ("vercel/next.js",
// "https://github.com/vercel/next.js.git/"), or returns "".
func suggestID(id string) string {
	s := strings.TrimSpace(id)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if j := strings.Index(s, "/"); j >= 0 {
			s = s[j:]
		} else {
			return ""
		}
	}
	s = strings.TrimSuffix(strings.Trim(s, "/"), ".git")
	var segs []string
	for _, p := range strings.Split(s, "/") {
		if p != "" {
			segs = append(segs, p)
		}
	}
	if len(segs) < 2 {
		return ""
	}
	cand := "/" + segs[0] + "/" + segs[1]
	if len(segs) != 2 && !strings.Contains(id, "://") {
		return ""
	}
	if !request.IsIDSegment(segs[0]) || !request.IsIDSegment(segs[1]) {
		return ""
	}
	return cand
}

// Transports a repo: address may use, as allow.transports names them.
const (
	transportHTTPS = "https"
	transportHTTP  = "http"
	transportSSH   = "ssh"
	transportGit   = "git"
	transportFile  = "file"
)

// knownTransports lists them in the order messages name them.
var knownTransports = []string{transportHTTPS, transportHTTP, transportSSH, transportGit, transportFile}

// AllowedTransports returns the transports repo: addresses may use:
// allow.transports, else https and file. The caller owns the slice.
func (c *Config) AllowedTransports() []string {
	if len(c.Allow.Transports) == 0 {
		return []string{transportHTTPS, transportFile}
	}
	out := make([]string, len(c.Allow.Transports))
	for i, t := range c.Allow.Transports {
		out[i] = strings.ToLower(t)
	}
	return out
}

// LocalRoots returns the absolute, cleaned directories local repositories
// may lie in: Dir, then allow.local_roots (relative ones resolved against
// Dir, or against the working directory when Dir is empty). It returns nil
// when Dir is empty and no roots are listed: a config built in code or
// parsed from a reader confines local repositories only if it says so.
// Symbolic links are not resolved here; fetch resolves them.
func (c *Config) LocalRoots() []string {
	var out []string
	if c.Dir != "" {
		out = append(out, filepath.Clean(c.Dir))
	}
	for _, r := range c.Allow.LocalRoots {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, c.absPath(r))
		}
	}
	return out
}

// LocalRepoPath returns the absolute, cleaned path of a local repo: value
// (a path, relative to Dir, or a file:// URL), or "" for a remote one.
func (c *Config) LocalRepoPath(repo string) string {
	if transportOf(repo) != transportFile {
		return ""
	}
	if strings.Contains(repo, "://") {
		u, err := url.Parse(repo)
		if err != nil {
			return ""
		}
		return filepath.Clean(fileURLPath(u.Path))
	}
	return c.absPath(repo)
}

// fileURLPath returns the file path that p, the path of a file:// URL,
// names: p itself on Unix, and on Windows p with backslashes and without
// the slash before a drive letter ("/C:/repos/b" → `C:\repos\b`).
func fileURLPath(p string) string {
	if len(p) > 1 && p[0] == '/' && filepath.VolumeName(p[1:]) != "" {
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

// absPath resolves p against Dir (or the working directory).
func (c *Config) absPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if c.Dir != "" {
		return filepath.Join(c.Dir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// transportOf names the transport of a repo value that checkRepo accepts,
// as git reads it (fetch.Transport is the same rule, enforced again before
// any contact): a scheme, scp-like [user@]host:path for ssh, else file.
func transportOf(repo string) string {
	if i := strings.Index(repo, "://"); i >= 0 {
		switch s := strings.ToLower(repo[:i]); s {
		case "git+ssh", "ssh+git":
			return transportSSH
		default:
			return s
		}
	}
	if colon := strings.Index(repo, ":"); colon > 1 && !strings.Contains(repo[:colon], "/") {
		return transportSSH
	}
	return transportFile
}

// checkAllowed returns why allow: does not let the build fetch repo (a
// value checkRepo accepts), or "". Local repositories are judged against
// the roots only when Dir is known (Load sets it); fetch checks again, with
// symbolic links resolved.
func (c *Config) checkAllowed(repo string) string {
	t := transportOf(repo)
	allowed := c.AllowedTransports()
	if !slices.Contains(allowed, t) {
		why := ""
		switch t {
		case transportSSH:
			why = " (ssh signs in with the SSH agent's keys, so it is off unless listed)"
		case transportHTTP, transportGit:
			why = " (it is not encrypted, so it is off unless listed)"
		case transportFile:
			return fmt.Sprintf("is a local repository, but allow.transports (%s) does not list file; add file to allow.transports, or use a remote URL", strings.Join(allowed, ", "))
		}
		return fmt.Sprintf("uses the %s transport, which allow.transports does not list%s; add %s to allow.transports (now %s) if this repository is meant to be fetched so, or use an https URL",
			t, why, t, strings.Join(allowed, ", "))
	}
	if t != transportFile || c.Dir == "" {
		return ""
	}
	p := c.LocalRepoPath(repo)
	roots := c.LocalRoots()
	for _, r := range roots {
		if within(r, p) {
			return ""
		}
	}
	return fmt.Sprintf("local repository %s is outside the directories local repositories may be in (%s); move it under one, or add its directory to allow.local_roots",
		p, strings.Join(roots, ", "))
}

// within reports whether path is root or below it; both are clean and
// absolute.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// allow checks the allow: mapping.
func (v *validator) allow() {
	a := v.c.Allow
	field := func(f string) string { return "allow." + f }
	if a.Transports != nil && len(a.Transports) == 0 {
		v.add(v.c.line(field("transports"), 0), field("transports"),
			"lists no transports, so nothing could be fetched; remove it for the defaults (https, file) or list the ones to allow, e.g. [https, ssh]")
	}
	for i, t := range a.Transports {
		f := fmt.Sprintf("transports[%d]", i)
		lt := strings.ToLower(strings.TrimSpace(t))
		switch {
		case slices.Contains(knownTransports, lt):
		case lt == "ext" || lt == "fd" || strings.HasSuffix(lt, "::"):
			v.add(v.c.line(field(f), 0), field(f), "git remote helpers (%q) are never allowed: they run programs; list only %s", t, strings.Join(knownTransports, ", "))
		default:
			v.add(v.c.line(field(f), 0), field(f), "unknown transport %q; list only %s (file covers local paths and file:// URLs)", t, strings.Join(knownTransports, ", "))
		}
	}
	for i, r := range a.LocalRoots {
		f := fmt.Sprintf("local_roots[%d]", i)
		switch {
		case strings.TrimSpace(r) == "":
			v.add(v.c.line(field(f), 0), field(f), "empty root; remove it or name a directory, e.g. /srv/git")
		case strings.ContainsFunc(r, unicode.IsControl):
			v.add(v.c.line(field(f), 0), field(f), "contains control characters; name a directory, e.g. /srv/git")
		}
	}
	if len(a.LocalRoots) > 0 && !slices.Contains(v.c.AllowedTransports(), transportFile) {
		v.add(v.c.line(field("local_roots"), 0), field("local_roots"),
			"lists roots for local repositories, but allow.transports does not list file; add file to allow.transports, or remove local_roots")
	}
}

// checkRepo returns what is wrong with a repo value, or "". Messages never
// repeat the value, which may hold a secret.
func checkRepo(repo string) string {
	const forms = "a git URL (https://, http://, ssh://, git://, git@host:org/repo.git), a local path or a file:// URL"
	switch {
	case strings.TrimSpace(repo) == "":
		return "missing; set repo: to " + forms
	case strings.TrimSpace(repo) != repo:
		return "has leading or trailing spaces; remove them"
	case strings.ContainsFunc(repo, unicode.IsControl):
		return "contains control characters (tabs, newlines); set repo: to " + forms
	case strings.HasPrefix(repo, "-"):
		return `must not start with "-"; set repo: to ` + forms
	}
	if i := strings.Index(repo, "://"); i >= 0 {
		scheme := strings.ToLower(repo[:i])
		if !schemeRE.MatchString(scheme) || len(scheme) > 16 {
			return "is not a valid URL; set repo: to " + forms
		}
		switch scheme {
		case "https", "http", "ssh", "git", "file":
		default:
			return fmt.Sprintf("URL scheme %q is not supported; use %s", scheme, forms)
		}
		if strings.ContainsFunc(repo, unicode.IsSpace) {
			return "URL contains whitespace; remove it (spaces in a URL are written %20)"
		}
		u, err := url.Parse(repo)
		if err != nil { // err repeats the URL: do not show it.
			return "is not a valid URL; set repo: to " + forms
		}
		if msg := checkUserinfo(u.User); msg != "" {
			return msg
		}
		if secretInQuery(u.RawQuery) {
			return secretMsg
		}
		if scheme == "file" {
			if u.Path == "" {
				return `file:// URL has no path; write file:///absolute/path/to/repo`
			}
		} else if u.Host == "" || u.Hostname() == "" {
			return scheme + ":// URL has no host; write e.g. https://github.com/org/repo"
		}
		return ""
	}
	if helperRE.MatchString(repo) {
		return `git remote-helper addresses ("transport::address") are not supported; set repo: to ` + forms
	}
	// user:password@host:path (scp-like with a password).
	if at := strings.LastIndex(repo, "@"); at > 0 && !strings.Contains(repo[:at], "/") && strings.Contains(repo[:at], ":") {
		return secretMsg
	}
	// scp-like, as git reads it: a ':' before any '/', and more than a drive letter.
	if colon := strings.Index(repo, ":"); colon > 1 && !strings.Contains(repo[:colon], "/") {
		if strings.ContainsFunc(repo, unicode.IsSpace) {
			return "address contains whitespace; remove it"
		}
		host := repo[:colon]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			if looksLikeToken(host[:at]) {
				return secretMsg
			}
			if at == 0 {
				return `address has an empty user before "@"; write e.g. git@github.com:org/repo.git`
			}
			host = host[at+1:]
		}
		if host == "" {
			return "address has no host; write e.g. git@github.com:org/repo.git"
		}
		if repo[colon+1:] == "" {
			return `address has no path after ":"; write e.g. git@github.com:org/repo.git`
		}
	}
	return ""
}

const secretMsg = "contains a password or token; remove it from the URL, put the token in an environment variable and name it in token_env: (default CODEX7_GIT_TOKEN); revoke the token if this file was shared"

// secretInQuery reports whether a URL's query holds what reads as a
// credential (access_token=..., a parameter named for a token, key or
// password, or a value that looks like a token): a repo URL is recorded in
// the artifacts' manifests and in logs.
func secretInQuery(raw string) bool {
	if raw == "" {
		return false
	}
	q, _ := url.ParseQuery(raw) // what it can read, past a malformed pair
	for name, values := range q {
		n := strings.ToLower(name)
		if strings.Contains(n, "token") || strings.Contains(n, "key") || strings.Contains(n, "pass") || strings.Contains(n, "secret") || n == "sig" || n == "auth" {
			return true
		}
		if slices.ContainsFunc(values, looksLikeToken) {
			return true
		}
	}
	return false
}

func checkUserinfo(u *url.Userinfo) string {
	if u == nil {
		return ""
	}
	if _, ok := u.Password(); ok || looksLikeToken(u.Username()) {
		return secretMsg
	}
	return ""
}

// checkRef returns what is wrong with a git ref name, or "": the rules of
// git check-ref-format (with --allow-onelevel, as a branch or tag name is
// given), so that a ref git would refuse is refused here, with the line,
// rather than when the build fetches it.
func checkRef(ref string) string {
	bad := ""
	switch {
	case strings.TrimSpace(ref) != ref || strings.ContainsFunc(ref, unicode.IsSpace):
		bad = "contains whitespace"
	case strings.ContainsFunc(ref, unicode.IsControl):
		bad = "contains control characters"
	case strings.HasPrefix(ref, "-"):
		bad = `starts with "-"`
	case strings.Contains(ref, ".."):
		bad = `contains ".."`
	case strings.ContainsAny(ref, "~^:?*[\\"):
		bad = `contains one of ~ ^ : ? * [ \`
	case strings.Contains(ref, "@{"):
		bad = `contains "@{"`
	case ref == "@":
		bad = `is "@", which git reads as HEAD`
	case strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") || strings.Contains(ref, "//"):
		bad = `starts or ends with "/", ends with ".", or has an empty component`
	case slices.ContainsFunc(strings.Split(ref, "/"), func(c string) bool { return strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") }):
		bad = `has a part (between slashes) that starts with "." or ends with ".lock"`
	default:
		return ""
	}
	return fmt.Sprintf("%q is not a valid git ref: it %s; write a branch or tag name, e.g. main or v1.2.0", ref, bad)
}

// CheckVersionName returns what is wrong with name as a version's name: it
// names a directory of the artifacts, so it must be one safe path element,
// and agents write it in library ids. The build checks the names it derives
// from a repository's refs with it too (its default branch and the versions
// its context7.json lists), which a config's check never sees.
func CheckVersionName(name string) error {
	if msg := checkVersionName(name); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// maxNameBytes is the longest name of a file or directory most file
// systems take (ext4, XFS, APFS; NTFS counts 255 UTF-16 units).
const maxNameBytes = 255

// checkVersionName returns why name cannot be a directory name, or "".
func checkVersionName(name string) string {
	bad := ""
	switch {
	case name == "":
		bad = "it is empty"
	case len(name) > maxNameBytes:
		bad = fmt.Sprintf("it is %d bytes long, more than a file system allows (%d)", len(name), maxNameBytes)
	case strings.HasPrefix(name, "."):
		bad = `it starts with "."`
	case strings.Contains(name, ".."):
		bad = `it contains ".."`
	case strings.ContainsAny(name, "/\\"):
		bad = "it contains a slash or backslash"
	case strings.ContainsFunc(name, unicode.IsControl):
		bad = "it contains control characters"
	case strings.ContainsFunc(name, func(r rune) bool { return !request.IsVersionRune(r) }):
		return fmt.Sprintf("version name %q cannot be asked for: an agent writes it in a library id (/org/project@version), which takes letters, digits, '.', '_' and '-'; set name: to something like %q", name, versionNameOf(name))
	default:
		return ""
	}
	return fmt.Sprintf("version name %q cannot be used as a directory name: %s; set name: to something like \"v1.2\"", name, bad)
}

// checkGlob returns what is wrong with a glob, or "".
func checkGlob(g string) string {
	switch {
	case strings.TrimSpace(g) == "":
		return `empty glob; remove it or write one such as "docs/**"`
	case !doublestar.ValidatePattern(g):
		return fmt.Sprintf("glob %q is malformed; check its brackets and braces (doublestar syntax)", g)
	case strings.HasPrefix(g, "/") || strings.HasPrefix(g, `\`) || (len(g) >= 2 && g[1] == ':' && unicode.IsLetter(rune(g[0]))):
		return fmt.Sprintf("glob %q is absolute; globs are relative to the repository root, e.g. %q", g, strings.TrimLeft(g, `/\`))
	case strings.HasPrefix(g, "./"):
		fixed := g
		for strings.HasPrefix(fixed, "./") {
			fixed = fixed[2:]
		}
		return fmt.Sprintf("glob %q starts with \"./\" and would never match; write %q", g, fixed)
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." {
			return fmt.Sprintf("glob %q has a \"..\" segment; globs are relative to the repository root and cannot leave it", g)
		}
	}
	return ""
}
