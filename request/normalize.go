package request

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxTopics is the most topics NormalizeTopics keeps.
	maxTopics = 20
	// maxKeyLen is the longest library id ParseKey reads, in bytes, before
	// any cleanup.
	maxKeyLen = 1024
)

// keyForms is the advice every ErrInvalidKey message ends with.
const keyForms = `use "/org/project", "/org/project@version" or a bare library name such as "next.js"`

// Key is a normalized library reference. Exactly one of ID and Name is set.
type Key struct {
	// ID is "/org/project" with a leading slash, or "" when only a bare
	// name was given.
	ID string
	// Name is a bare library name without an org ("next.js"), to be
	// resolved by search, or "" when ID is set.
	Name string
	// Version is the explicit version as given ("v16.0.3", "15.1.0",
	// "canary"), or "" for none.
	Version string
}

// String returns the key in the form ParseKey reads back to the same Key:
// "/org/project", "/org/project@version", "name" or "name@version".
func (k Key) String() string {
	s := k.ID
	if s == "" {
		s = k.Name
	}
	if k.Version != "" {
		s += "@" + k.Version
	}
	return s
}

// ParseKey normalizes what agents send as a library id.
//
// It first refuses invalid UTF-8, control characters and invisible format
// characters (zero-width spaces, byte order marks) anywhere (see
// CheckText), then trims whitespace, stray quotes (' " ` and their
// typographic forms) and backslashes from both ends. Whitespace around path segments, leading,
// trailing and doubled slashes are ignored. It accepts:
//
//   - "org/project" and "/org/project";
//   - "/org/project/version", "/org/project@version" and "org/project@version";
//   - GitHub URLs, with or without a scheme, "www." or ".git", including
//     "git@github.com:org/project.git"; anything after org/project (such as
//     /tree/<ref>/docs) is dropped and gives no version;
//   - context7.com URLs, with or without a scheme: /org/project and
//     /org/project/version, optionally followed by /llms.txt;
//   - a bare name without a slash ("next.js", or "react@18" with a version),
//     returned as Key.Name for search to resolve.
//
// Query strings and fragments of URLs are ignored; case is kept as given.
// Org, project, name and version may only use A-Z, a-z, 0-9, '.', '_' and
// '-', and none may consist of dots alone. Every error wraps ErrInvalidKey
// and says what form to use instead: for empty input, input longer than
// 1024 bytes, more than three path segments (org/project/version), an
// @version after a three-segment path, URLs of other hosts, and
// characters outside that set; control and invisible characters anywhere
// also wrap ErrInvalidCharacter (see CheckText). Spaces and quotes around
// the id are trimmed.
func ParseKey(s string) (Key, error) {
	if len(s) > maxKeyLen {
		return Key{}, keyError(s, fmt.Sprintf("it is longer than %d bytes", maxKeyLen))
	}
	if why := badCharacter(s); why != "" {
		return Key{}, fmt.Errorf("%w %q: %w: it %s; remove control and invisible characters; %s", ErrInvalidKey, shortKey(strings.ToValidUTF8(s, "\ufffd")), ErrInvalidCharacter, why, keyForms)
	}
	c := cleanKey(s)
	if c == "" {
		return Key{}, keyError(s, "it is empty")
	}
	host, path, isURL := splitKeyURL(c)
	if !isURL {
		return parseKeyPath(s, c, true)
	}
	segs := keySegments(path)
	switch host {
	case "github.com":
		if len(segs) < 2 {
			return Key{}, keyError(s, "a GitHub URL must name the org and the project, as in https://github.com/vercel/next.js")
		}
		project := segs[1]
		if strings.HasSuffix(strings.ToLower(project), ".git") {
			project = project[:len(project)-len(".git")]
		}
		return parseKeyPath(s, segs[0]+"/"+project, false)
	case "context7.com":
		if n := len(segs); n > 0 {
			if last := strings.ToLower(segs[n-1]); last == "llms.txt" || last == "llms-full.txt" {
				segs = segs[:n-1]
			}
		}
		if len(segs) < 2 {
			return Key{}, keyError(s, "a context7.com URL must name the org and the project, as in https://context7.com/vercel/next.js")
		}
		return parseKeyPath(s, strings.Join(segs, "/"), false)
	default:
		return Key{}, keyError(s, fmt.Sprintf("URLs of %q are not library ids", shortKey(host)))
	}
}

// parseKeyPath reads "org/project", "org/project/version",
// "org/project@version" and, when allowName is set, "name" or
// "name@version". orig is the caller's input, for error messages.
func parseKeyPath(orig, path string, allowName bool) (Key, error) {
	segs := keySegments(path)
	n := len(segs)
	if n == 0 {
		return Key{}, keyError(orig, "it names no org or project")
	}
	if n > 3 {
		return Key{}, keyError(orig, fmt.Sprintf("it has %d path segments, at most 3 (org/project/version) are allowed", n))
	}
	var version string
	if name, v, ok := strings.Cut(segs[n-1], "@"); ok {
		if n == 3 {
			return Key{}, keyError(orig, "an @version must follow org/project directly")
		}
		if name == "" {
			return Key{}, keyError(orig, "a name must come before @")
		}
		if v == "" {
			return Key{}, keyError(orig, "the version after @ is empty")
		}
		segs[n-1], version = name, v
	} else if n == 3 {
		segs, version = segs[:2], segs[2]
	}
	if host := canonicalHost(segs[0]); host == "github.com" || host == "context7.com" {
		return Key{}, keyError(orig, fmt.Sprintf("the org %q is a host name; give the org and project from the URL", shortKey(segs[0])))
	}
	for _, seg := range segs {
		if err := checkKeySegment(orig, seg); err != nil {
			return Key{}, err
		}
	}
	if version != "" {
		if err := checkKeySegment(orig, version); err != nil {
			return Key{}, err
		}
	}
	if len(segs) == 1 {
		if !allowName {
			return Key{}, keyError(orig, "it needs both an org and a project")
		}
		return Key{Name: segs[0], Version: version}, nil
	}
	return Key{ID: "/" + segs[0] + "/" + segs[1], Version: version}, nil
}

// checkKeySegment reports an error for a segment with characters outside
// [A-Za-z0-9._-] or made of dots only.
func checkKeySegment(orig, seg string) error {
	for _, r := range seg {
		if !isKeyRune(r) {
			return keyError(orig, fmt.Sprintf("character %q is not allowed in %q", r, shortKey(seg)))
		}
	}
	if strings.Trim(seg, ".") == "" {
		return keyError(orig, fmt.Sprintf("%q is not a name", shortKey(seg)))
	}
	return nil
}

// IsVersionRune reports whether r may appear in a version name: an
// agent writes the version into a library id (/org/project@v1.2), whose
// segments take letters, digits, '.', '_' and '-'.
func IsVersionRune(r rune) bool { return isKeyRune(r) }

// IsIDSegment reports whether s can be the org or the project of a library
// id that a build config accepts: letters, digits, '.', '_' and '-', not
// starting with '.'. The config's ids, access patterns and `indexer token`
// share this one rule, so that a pattern is refused exactly when no id
// could match it.
func IsIDSegment(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !isKeyRune(r) {
			return false
		}
	}
	return true
}

func isKeyRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '.' || r == '_' || r == '-'
}

// keyError wraps ErrInvalidKey with the input, why it was refused and the
// forms to use instead.
func keyError(orig, why string) error {
	return fmt.Errorf("%w %q: %s; %s", ErrInvalidKey, shortKey(orig), why, keyForms)
}

// maxShownRunes is the most runes of an agent's input an error quotes.
const maxShownRunes = 80

// shortKey returns s cut to maxShownRunes runes, with "…" when it was longer,
// so that an error about a long input stays short.
func shortKey(s string) string {
	if utf8.RuneCountInString(s) > maxShownRunes {
		return string([]rune(s)[:maxShownRunes]) + "…"
	}
	return s
}

// cleanKey trims whitespace, quotes and backslashes from both ends of s,
// which CheckText passed.
func cleanKey(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || isQuote(r) || r == '\\'
	})
}

// splitKeyURL recognizes a URL (any scheme), an scp-style
// "git@github.com:" address, or a scheme-less path whose first segment is
// github.com or context7.com. It returns the host, lowercased and without
// "www.", and the path without query or fragment.
func splitKeyURL(s string) (host, path string, ok bool) {
	const scp = "git@github.com:"
	if i := strings.Index(s, "://"); i > 0 && isScheme(s[:i]) {
		rest := s[i+len("://"):]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		authority := rest[:end]
		if j := strings.LastIndexByte(authority, '@'); j >= 0 {
			authority = authority[j+1:]
		}
		if j := strings.IndexByte(authority, ':'); j >= 0 {
			authority = authority[:j]
		}
		host, path, ok = canonicalHost(authority), rest[end:], true
	} else if len(s) >= len(scp) && strings.EqualFold(s[:len(scp)], scp) {
		host, path, ok = "github.com", s[len(scp):], true
	} else {
		first, rest, _ := strings.Cut(strings.TrimLeft(s, "/"), "/")
		if h := canonicalHost(strings.TrimSpace(first)); h == "github.com" || h == "context7.com" {
			host, path, ok = h, rest, true
		}
	}
	if !ok {
		return "", "", false
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	return host, path, true
}

// isScheme reports whether s is a URL scheme such as "https" or "git+ssh".
func isScheme(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

func canonicalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	return strings.TrimPrefix(h, "www.")
}

// keySegments splits a path at slashes, trims whitespace around each
// segment and drops empty ones.
func keySegments(path string) []string {
	var segs []string
	for seg := range strings.SplitSeq(path, "/") {
		if seg = strings.TrimSpace(seg); seg != "" {
			segs = append(segs, seg)
		}
	}
	return segs
}

func isQuote(r rune) bool { return isDoubleQuote(r) || isSingleQuote(r) }

func isDoubleQuote(r rune) bool {
	switch r {
	case '"', '`', '“', '”', '„':
		return true
	}
	return false
}

func isSingleQuote(r rune) bool {
	switch r {
	case '\'', '‘', '’':
		return true
	}
	return false
}

// topicPlaceholders are whole topics that mean "no topic", compared after
// lowercasing, turning '-' and '_' into spaces and collapsing whitespace,
// with or without brackets around them.
var topicPlaceholders = map[string]bool{
	"":                      true,
	"topic":                 true,
	"topics":                true,
	"relevant topic":        true,
	"your topic":            true,
	"your topic here":       true,
	"topic here":            true,
	"insert topic here":     true,
	"extract from question": true,
	"n/a":                   true,
	"na":                    true,
	"none":                  true,
	"null":                  true,
	"nil":                   true,
	"undefined":             true,
	"general":               true,
	"any":                   true,
	"all":                   true,
	"...":                   true,
	"…":                     true,
	"*":                     true,
	"?":                     true,
}

// topicPlaceholderWords make a bracketed topic a placeholder when they
// appear in it as words: "<relevant topic>", "[search query]", "{keyword}".
var topicPlaceholderWords = map[string]bool{
	"topic":       true,
	"topics":      true,
	"query":       true,
	"keyword":     true,
	"keywords":    true,
	"placeholder": true,
}

// slugPrefixes are the word prefixes whose hyphen a path-like topic keeps:
// "pre-rendering" in "app/partial-pre-rendering/index".
var slugPrefixes = map[string]bool{
	"anti": true, "auto": true, "co": true, "cross": true, "de": true,
	"multi": true, "non": true, "post": true, "pre": true, "re": true,
	"self": true, "semi": true, "sub": true,
}

// NormalizeTopic cleans a topic or query string; "" means no topic (general
// documentation). The rules, applied in this order and repeated until the
// string stops changing, so that NormalizeTopic is idempotent:
//
//  1. Junk: invalid UTF-8, U+FFFD and invisible format characters are
//     dropped; other control characters count as spaces. (Requests never
//     get here with them: CheckLimits refuses a topic that has any, see
//     CheckText. The rule keeps NormalizeTopic total.)
//  2. Quotes: escaped quotes (\" \') and double quotes and backticks
//     (" ` “ ” „) are removed anywhere; single quotes (' ‘ ’) are removed
//     where they start or end a word, so apostrophes as in "what's" stay.
//  3. Whitespace is collapsed to single spaces and trimmed.
//  4. Placeholders give "": a topic that, lowercased with '-' and '_' as
//     spaces, is one of "topic", "topics", "relevant topic", "your topic",
//     "your topic here", "topic here", "insert topic here",
//     "extract from question", "n/a", "na", "none", "null", "nil",
//     "undefined", "general", "any", "all", "...", "…", "*", "?" or empty,
//     with or without brackets around it; and any text in <>, [], {},
//     {{}} or ${} containing the word topic, topics, query, keyword,
//     keywords or placeholder ("<relevant topic>", "[your topic]"). Other
//     bracketed text is kept as is ("<Suspense>", "[slug]").
//  5. Path-like topics give their last meaningful segment. A topic is
//     path-like when it has a slash, no space, no segment starting with
//     '@', and is a URL, starts or ends with a slash, has three or more
//     segments, or ends in a lowercase slug ("docs/getting-started"), an
//     index or README, or a documentation file (.md, .mdx, .markdown, .rst,
//     .txt, .html, .htm, .adoc). So "I/O", "async/await", "next/link" and
//     "@tanstack/react-query" stay. Segments named index, _index or README
//     (any case, extension dropped) are skipped, and the file extension of
//     the chosen segment is dropped. If that segment is a lowercase slug
//     (a-z and 0-9 words joined by single '-' or '_'), its separators become
//     spaces except a hyphen after one of the prefixes anti, auto, co,
//     cross, de, multi, non, post, pre, re, self, semi or sub, because the
//     slug was made from a page title in which "pre-rendering" is one
//     word: "app/partial-pre-rendering/index" gives "partial pre-rendering".
//  6. A topic that is a single lowercase slug is split at every separator:
//     "partial-pre-rendering" gives "partial pre rendering" and
//     "server_side_rendering" gives "server side rendering". Tokens with
//     capitals, dots or other characters ("useState", "app.use",
//     "NEXT_PUBLIC_URL", "Content-Type") and multi-word topics are kept,
//     which is why "partial pre-rendering" from rule 5 is stable, while
//     "docs/pre-rendering" gives "pre-rendering" and then "pre rendering".
//
// Case is kept. The result is never longer than s.
func NormalizeTopic(s string) string {
	s = strings.ToValidUTF8(s, "")
	// Every pass that changes s makes it shorter or replaces a '-', '_' or
	// a control or non-ASCII space without growing it, so the loop ends
	// well within this bound; the bound only guards against a mistake.
	for range 2*len(s) + 2 {
		next := normalizeTopicOnce(s)
		if next == s {
			break
		}
		s = next
	}
	return s
}

// normalizeTopicOnce applies the rules of NormalizeTopic once.
func normalizeTopicOnce(s string) string {
	s = cleanTopicText(s)
	if isTopicPlaceholder(s) {
		return ""
	}
	if isPathLikeTopic(s) {
		return pathTopic(s)
	}
	if isSlug(s) {
		return strings.Join(strings.FieldsFunc(s, isSlugSeparator), " ")
	}
	return s
}

// cleanTopicText drops junk and stray quotes and collapses whitespace.
func cleanTopicText(s string) string {
	rs := []rune(s)
	boundary := func(i int) bool {
		return i < 0 || i >= len(rs) || unicode.IsSpace(rs[i]) || unicode.IsControl(rs[i]) || isQuote(rs[i])
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && isQuote(rs[i+1]):
			i++
		case r == utf8.RuneError || unicode.Is(unicode.Cf, r) || isDoubleQuote(r):
		case isSingleQuote(r):
			if !boundary(i-1) && !boundary(i+1) {
				b.WriteRune(r)
			}
		case unicode.IsSpace(r) || unicode.IsControl(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// isTopicPlaceholder implements rule 4 of NormalizeTopic.
func isTopicPlaceholder(s string) bool {
	inner, bracketed := unwrapBrackets(s)
	key := strings.Join(strings.FieldsFunc(strings.ToLower(inner), func(r rune) bool {
		return unicode.IsSpace(r) || isSlugSeparator(r)
	}), " ")
	if topicPlaceholders[key] {
		return true
	}
	if bracketed {
		for _, w := range strings.Fields(key) {
			if topicPlaceholderWords[w] {
				return true
			}
		}
	}
	return false
}

// unwrapBrackets removes any number of enclosing <>, [], {} and ${}.
func unwrapBrackets(s string) (inner string, bracketed bool) {
	pairs := [][2]string{{"${", "}"}, {"<", ">"}, {"[", "]"}, {"{", "}"}}
	for {
		s = strings.TrimSpace(s)
		unwrapped := false
		for _, p := range pairs {
			if len(s) >= len(p[0])+len(p[1]) && strings.HasPrefix(s, p[0]) && strings.HasSuffix(s, p[1]) {
				s, unwrapped, bracketed = s[len(p[0]):len(s)-len(p[1])], true, true
				break
			}
		}
		if !unwrapped {
			return s, bracketed
		}
	}
}

// docExtensions are file extensions dropped from path-like topics.
var docExtensions = []string{".markdown", ".adoc", ".html", ".mdx", ".htm", ".rst", ".txt", ".md"}

// isPathLikeTopic implements the test of rule 5 of NormalizeTopic.
func isPathLikeTopic(s string) bool {
	if !strings.Contains(s, "/") || strings.Contains(s, " ") {
		return false
	}
	segs := strings.Split(s, "/")
	for _, seg := range segs {
		if strings.HasPrefix(seg, "@") {
			return false
		}
	}
	if strings.Contains(s, "://") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || len(segs) >= 3 {
		return true
	}
	last := segs[len(segs)-1]
	stem := trimDocExtension(last)
	return stem != last || isIndexName(stem) || isSlug(stem)
}

// pathTopic implements the rewrite of rule 5 of NormalizeTopic.
func pathTopic(s string) string {
	if _, rest, ok := strings.Cut(s, "://"); ok {
		_, s, _ = strings.Cut(rest, "/") // drop the host
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
	}
	segs := strings.Split(s, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		seg := trimDocExtension(segs[i])
		if strings.Trim(seg, ".") == "" || isIndexName(seg) {
			continue
		}
		return slugPhrase(seg)
	}
	return ""
}

func trimDocExtension(seg string) string {
	lower := strings.ToLower(seg)
	for _, ext := range docExtensions {
		if len(seg) > len(ext) && strings.HasSuffix(lower, ext) {
			return seg[:len(seg)-len(ext)]
		}
	}
	return seg
}

func isIndexName(seg string) bool {
	switch strings.ToLower(seg) {
	case "index", "_index", "readme":
		return true
	}
	return false
}

// slugPhrase turns a lowercase slug into words, keeping the hyphen after a
// prefix in slugPrefixes; other segments are returned as they are.
func slugPhrase(seg string) string {
	if !isSlug(seg) {
		return seg
	}
	var b strings.Builder
	start := 0
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; isSlugSeparator(rune(c)) {
			b.WriteString(seg[start:i])
			if c == '-' && slugPrefixes[seg[start:i]] {
				b.WriteByte('-')
			} else {
				b.WriteByte(' ')
			}
			start = i + 1
		}
	}
	b.WriteString(seg[start:])
	return b.String()
}

// isSlug reports whether s is words of a-z and 0-9 joined by single '-' or
// '_', with at least one separator.
func isSlug(s string) bool {
	if s == "" || isSlugSeparator(rune(s[0])) || isSlugSeparator(rune(s[len(s)-1])) {
		return false
	}
	seps := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case isSlugSeparator(rune(c)):
			if isSlugSeparator(rune(s[i-1])) {
				return false
			}
			seps++
		default:
			return false
		}
	}
	return seps > 0
}

func isSlugSeparator(r rune) bool { return r == '-' || r == '_' }

// NormalizeTopics applies NormalizeTopic to each topic, drops empty
// results and case-insensitive duplicates (the first spelling wins), and
// keeps the order. It keeps at most 20 topics and reports with capped
// whether there were more distinct ones. The returned slice is new and
// owned by the caller; it is nil when no topic remains.
func NormalizeTopics(in []string) (out []string, capped bool) {
	seen := make(map[string]bool, min(len(in), maxTopics))
	for _, t := range in {
		t = NormalizeTopic(t)
		if t == "" {
			continue
		}
		k := strings.ToLower(t)
		if seen[k] {
			continue
		}
		if len(out) == maxTopics {
			return out, true
		}
		seen[k] = true
		out = append(out, t)
	}
	return out, false
}
