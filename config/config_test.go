package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// lines joins its arguments into a YAML document, one per line, so that a
// test case's line numbers can be read off its index.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func parseString(t *testing.T, src string) (*Config, error) {
	t.Helper()
	return Parse(strings.NewReader(src), "codex7.yaml")
}

func TestParseFull(t *testing.T) {
	src := lines(
		"# every key, as in DESIGN.md §3",                  // 1
		"libraries:",                                       // 2
		"  - id: /vercel/next.js          # /org/project",  // 3
		"    title: Next.js",                               // 4
		"    description: The React framework for the web", // 5
		"    aliases: [nextjs, next]",                      // 6
		"    repo: https://github.com/vercel/next.js",      // 7
		"    versions:",                                    // 8
		"      - ref: v15.1.0",                             // 9
		"      - ref: canary",                              // 10
		"        name: next",                               // 11
		"      - ref: refs/heads/release/14.x",             // 12
		"    latest: v15.1.0",                              // 13
		`    docs: ["docs/**"]`,                            // 14
		`    exclude: ["**/CHANGELOG.md", "**/node_modules/**", "**/versioned_docs/**"]`, // 15
		"    topics:",                           // 16
		"      - name: Routing",                 // 17
		"        category: core",                // 18
		`        paths: ["docs/**/routing/**"]`, // 19
		"        headings: [router, routes]",    // 20
		"      - name: Data Fetching",           // 21
		"    token_env: GITHUB_TOKEN",           // 22
		"  - id: /acme/handbook",                // 23
		"    repo: ./handbook",                  // 24
		"    topics: {}",                        // 25
		"  - id: /acme/sdk",                     // 26
		"    repo: git@github.com:acme/sdk.git", // 27
		"allow:",                                // 28
		"  transports: [https, SSH, file]",      // 29
		"  local_roots: [/srv/git, ../mirrors]", // 30
	)
	cfg, err := parseString(t, src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := []Library{
		{
			ID:          "/vercel/next.js",
			Title:       "Next.js",
			Description: "The React framework for the web",
			Aliases:     []string{"nextjs", "next"},
			Repo:        "https://github.com/vercel/next.js",
			Versions: []Version{
				{Ref: "v15.1.0"},
				{Ref: "canary", Name: "next"},
				{Ref: "refs/heads/release/14.x"},
			},
			Latest:  "v15.1.0",
			Docs:    []string{"docs/**"},
			Exclude: []string{"**/CHANGELOG.md", "**/node_modules/**", "**/versioned_docs/**"},
			Topics: []TopicOverride{
				{Name: "Routing", Category: "core", Paths: []string{"docs/**/routing/**"}, Headings: []string{"router", "routes"}},
				{Name: "Data Fetching"},
			},
			TokenEnv: "GITHUB_TOKEN",
			Line:     3,
		},
		{ID: "/acme/handbook", Repo: "./handbook", Topics: []TopicOverride{}, Line: 23},
		{ID: "/acme/sdk", Repo: "git@github.com:acme/sdk.git", Line: 26},
	}
	if got, want := len(cfg.Libraries), len(want); got != want {
		t.Fatalf("got %d libraries, want %d", got, want)
	}
	for i := range want {
		if got := cfg.Libraries[i]; !reflect.DeepEqual(got, want[i]) {
			t.Errorf("libraries[%d]:\n got %#v\nwant %#v", i, got, want[i])
		}
	}
	if cfg.File != "codex7.yaml" || cfg.Dir != "" {
		t.Errorf("got File %q Dir %q, want codex7.yaml and empty", cfg.File, cfg.Dir)
	}
	if got := strings.Join(cfg.AllowedTransports(), " "); got != "https ssh file" {
		t.Errorf("AllowedTransports() = %q, want https ssh file", got)
	}
	if got := strings.Join(cfg.Allow.LocalRoots, " "); got != "/srv/git ../mirrors" {
		t.Errorf("allow.local_roots = %q", got)
	}
	lib := cfg.Libraries[0]
	var names []string
	for _, v := range lib.Versions {
		names = append(names, lib.VersionName(v))
	}
	if got, want := strings.Join(names, " "), "v15.1.0 next release-14.x"; got != want {
		t.Errorf("version names: got %q, want %q", got, want)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate after Parse: %v", err)
	}
}

func TestLoadExample(t *testing.T) {
	path := filepath.Join("testdata", "example.yaml")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	abs, _ := filepath.Abs("testdata")
	if cfg.File != path || cfg.Dir != abs {
		t.Errorf("got File %q Dir %q, want %q and %q", cfg.File, cfg.Dir, path, abs)
	}
	var ids []string
	for _, l := range cfg.Libraries {
		ids = append(ids, l.ID)
		if l.Line == 0 {
			t.Errorf("%s: Line not set", l.ID)
		}
	}
	if got, want := strings.Join(ids, " "), "/vercel/next.js /acme/handbook /acme/platform-sdk /acme/design-system"; got != want {
		t.Errorf("ids: got %q, want %q", got, want)
	}
	if got := cfg.Libraries[2].TokenEnv; got != "ACME_GITLAB_TOKEN" {
		t.Errorf("token_env: got %q", got)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "codex7.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want an error matching os.ErrNotExist", err)
	}
	if errors.Is(err, ErrInvalid) {
		t.Errorf("a missing file is not an invalid config: %v", err)
	}
}

type wantErr struct {
	line  int
	field string
	msg   string // a fragment of Msg
}

func TestParseErrors(t *testing.T) {
	const valid = "    repo: https://github.com/org/repo"
	tests := []struct {
		name string
		src  string
		want []wantErr
	}{
		{"empty file", "", []wantErr{{0, "libraries", "add a libraries: list, for example: libraries: [{id: /org/project"}}},
		{"only comments", "# nothing yet\n", []wantErr{{0, "libraries", "add a libraries: list"}}},
		{"empty list", "libraries: []\n", []wantErr{{1, "libraries", "no libraries to index"}}},
		{"null list", "libraries:\n", []wantErr{{1, "libraries", "no libraries to index"}}},
		{"root is a list", "- id: /a/b\n", []wantErr{{1, "", "the file must be a mapping with a libraries: list"}}},
		{"syntax error", lines("libraries:", `  - id: "/a/b`, valid), []wantErr{{2, "", "invalid YAML: found unexpected end of stream (check indentation"}}},
		{"colon in a plain value", lines("libraries:", "  - id: /a/b", valid, "    docs: a: b"), []wantErr{{4, "", "invalid YAML: mapping values are not allowed in this context"}}},
		{"indentation breaks a list", lines("libraries:", "  - id: /a/b", valid, "   title: X"), []wantErr{{4, "", "invalid YAML: did not find expected '-' indicator"}}},
		{"indentation breaks a later library", lines("libraries:", "  - id: /a/b", valid, "  - id: /a/c", valid, "    title: C", "   docs: [a]", "  - id: /a/d", valid), []wantErr{{7, "", "invalid YAML: did not find expected '-' indicator"}}},
		{"tab in the indentation", lines("libraries:", "  - id: /a/b", valid, "\ttitle: X"), []wantErr{{4, "", "invalid YAML: a tab in the indentation"}}},
		{"tab after spaces", lines("libraries:", "  - id: /a/b", valid, "    title: X", "  \t  docs: [a]"), []wantErr{{5, "", "a tab in the indentation"}}},
		{"two documents", lines("libraries:", "  - id: /a/b", valid, "---", "libraries: []"), []wantErr{{4, "", `only one YAML document is allowed; remove the "---" separator`}}},
		{
			"unknown key in library",
			lines("libraries:", "  - id: /a/b", "    repository: https://github.com/a/b"),
			[]wantErr{
				{2, "libraries[0].repo", "missing; set repo: to a git URL"},
				{3, "libraries[0].repository", `unknown key "repository" in libraries[0]; valid keys: id, title, description, aliases, repo, versions, latest, docs, exclude, formats, topics, token_env (did you mean "repo"?)`},
			},
		},
		{
			"unknown top-level key",
			lines("library:", "  - id: /a/b"),
			[]wantErr{
				{0, "libraries", "no libraries"},
				{1, "library", `unknown key "library" at the top level; valid keys: libraries, allow (did you mean "libraries"?)`},
			},
		},
		{
			"unknown key in version",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - tag: v1"),
			[]wantErr{
				{5, "libraries[0].versions[0].ref", "missing; set ref:"},
				{5, "libraries[0].versions[0].tag", `unknown key "tag" in libraries[0].versions[0]; valid keys: ref, name`},
			},
		},
		{
			"unknown key in topic",
			lines("libraries:", "  - id: /a/b", valid, "    topics:", "      - name: Routing", "        path: [x]"),
			[]wantErr{{6, "libraries[0].topics[0].path", `valid keys: name, category, paths, headings (did you mean "paths"?)`}},
		},
		{
			"key Line is not a YAML key",
			lines("libraries:", "  - id: /a/b", valid, "    line: 3"),
			[]wantErr{{4, "libraries[0].line", `unknown key "line"`}},
		},
		{
			"duplicate key",
			lines("libraries:", "  - id: /a/b", valid, "    id: /a/c"),
			[]wantErr{{4, "libraries[0].id", `key "id" appears twice in libraries[0] (first at line 2)`}},
		},
		{
			"key given three times",
			lines("libraries:", "  - id: /a/b", valid, "    title: a", "    title: b", "    title: c"),
			[]wantErr{
				{5, "libraries[0].title", `key "title" appears twice in libraries[0] (first at line 4)`},
				{6, "libraries[0].title", `key "title" appears twice in libraries[0] (first at line 4)`},
			},
		},
		{
			"unknown key given three times",
			lines("libraries:", "  - id: /a/b", valid, "x: 1", "x: 2", "x: 3"),
			[]wantErr{
				{4, "x", `unknown key "x" at the top level`},
				{5, "x", `key "x" appears twice at the top level (first at line 4)`},
				{6, "x", `unknown key "x" at the top level`},
			},
		},
		{
			"list given as a string",
			lines("libraries:", "  - id: /a/b", valid, "    docs: docs/**"),
			[]wantErr{{4, "libraries[0].docs", `must be a list, not a single value; write each item on its own line after "- ", e.g. ["docs/**"]`}},
		},
		{
			"string given as a list",
			lines("libraries:", "  - id: [a, b]", valid),
			[]wantErr{{2, "libraries[0].id", "must be a single value, not a list"}},
		},
		{
			"library is a string",
			lines("libraries:", "  - /a/b"),
			[]wantErr{{2, "libraries[0]", "must be a mapping of keys to values, not a single value; each library needs at least id: and repo:"}},
		},
		{
			"libraries is a mapping",
			lines("libraries:", "  id: /a/b"),
			[]wantErr{{2, "libraries", "must be a list, not a mapping"}},
		},
		{
			"empty library",
			lines("libraries:", "  -", "  - id: /a/b", valid),
			[]wantErr{{2, "libraries[0]", "must be a mapping of keys to values, not an empty value; each library needs at least id: and repo:"}},
		},
		{
			"empty allow",
			lines("libraries:", "  - id: /a/b", valid, "allow:"),
			[]wantErr{{4, "allow", "must be a mapping of keys to values, not an empty value"}},
		},
		{
			"wrong shapes keep the items after them in place",
			lines("libraries:", "  - /a/b", "  - id: [c, d]", "  - id: /e/f", "    bogus: 1"),
			[]wantErr{
				{2, "libraries[0]", "must be a mapping of keys to values, not a single value"},
				{3, "libraries[1].id", "must be a single value, not a list"},
				{3, "libraries[1].repo", "missing; set repo:"},
				{4, "libraries[2].repo", "missing; set repo:"},
				{5, "libraries[2].bogus", `unknown key "bogus" in libraries[2]`},
			},
		},
		{
			"empty items of a list of globs are dropped",
			lines("libraries:", "  - id: /a/b", valid, "    docs:", "      -", "      - /abs/**"),
			[]wantErr{{6, "libraries[0].docs[0]", `glob "/abs/**" is absolute`}},
		},
		{
			"keys that are not names",
			lines("libraries:", "  - id: /a/b", valid, "    [x]: 1", "    ~: 2", "    1: 3"),
			[]wantErr{
				{4, "libraries[0]", "keys must be plain names in libraries[0]; valid keys: id, title,"},
				{5, "libraries[0].~", `unknown key "~" in libraries[0]`},
				{6, "libraries[0].1", `unknown key "1" in libraries[0]`},
			},
		},
		{
			"duplicate key with other problems in its mapping",
			lines("libraries:", "  - id: /a/b", "    id: /a/c", "    bogus: 1", "    docs: x", "    versions:", "      - ref: v1", "        nmae: x"),
			[]wantErr{
				{2, "libraries[0].repo", "missing; set repo:"},
				{3, "libraries[0].id", `key "id" appears twice in libraries[0] (first at line 2)`},
				{4, "libraries[0].bogus", `unknown key "bogus" in libraries[0]`},
				{5, "libraries[0].docs", "must be a list, not a single value"},
				{8, "libraries[0].versions[0].nmae", `unknown key "nmae" in libraries[0].versions[0]; valid keys: ref, name (did you mean "name"?)`},
			},
		},
		{
			"merge key without an alias",
			lines("libraries:", "  - id: /a/b", valid, "    <<: {title: x}"),
			[]wantErr{{4, "libraries[0].<<", "merge key <<; YAML merge keys are not supported"}},
		},
		{
			"anchor and alias",
			lines("libraries:", "  - &lib", "    id: /a/b", valid, "  - *lib"),
			[]wantErr{
				{2, "libraries[0]", "anchor &lib; YAML anchors and aliases are not supported"},
				{5, "libraries[1]", "alias *lib; YAML anchors and aliases are not supported"},
			},
		},
		{
			"merge key",
			lines("x: &base {repo: a}", "libraries:", "  - <<: *base", "    id: /a/b"),
			[]wantErr{{1, "x", "anchor &base"}, {3, "libraries[0].<<", "alias *base"}},
		},
		{
			"explicit tag",
			lines("libraries:", "  - id: /a/b", "    repo: !!binary aGVsbG8="),
			[]wantErr{{3, "libraries[0].repo", "YAML tag !!binary is not supported in codex7.yaml; remove it"}},
		},
		{
			"missing id",
			lines("libraries:", "  - title: A", valid),
			[]wantErr{{2, "libraries[0].id", `missing; set id: to /org/project, e.g. "/vercel/next.js"`}},
		},
		{
			"id without leading slash",
			lines("libraries:", "  - id: vercel/next.js", valid),
			[]wantErr{{2, "libraries[0].id", `"vercel/next.js" must start with "/"; write "/vercel/next.js"`}},
		},
		{
			"id with one segment",
			lines("libraries:", "  - id: nextjs", valid),
			[]wantErr{{2, "libraries[0].id", `"nextjs" must be /org/project, starting with "/"`}},
		},
		{
			"id with three segments",
			lines("libraries:", "  - id: /vercel/next.js/v15", valid),
			[]wantErr{{2, "libraries[0].id", "has 3 segments, want exactly two (/org/project)"}},
		},
		{
			"id with a trailing slash",
			lines("libraries:", "  - id: /vercel/next.js/", valid),
			[]wantErr{{2, "libraries[0].id", `write "/vercel/next.js"`}},
		},
		{
			"id as a URL",
			lines("libraries:", "  - id: https://github.com/vercel/next.js", valid),
			[]wantErr{{2, "libraries[0].id", `write "/vercel/next.js"`}},
		},
		{
			"id with a bad character",
			lines("libraries:", "  - id: /vercel/next js", valid),
			[]wantErr{{2, "libraries[0].id", `segment "next js" is not allowed`}},
		},
		{
			"id segment starting with a dot",
			lines("libraries:", "  - id: /vercel/.next", valid),
			[]wantErr{{2, "libraries[0].id", "each not starting with '.'"}},
		},
		{
			"duplicate ids",
			lines("libraries:", "  - id: /Vercel/Next.js", valid, "  - id: /vercel/next.js", valid),
			[]wantErr{{4, "libraries[1].id", `duplicate id "/vercel/next.js", already used by libraries[0] at line 2 (ids are case-insensitive)`}},
		},
		{
			"missing repo",
			lines("libraries:", "  - id: /a/b"),
			[]wantErr{{2, "libraries[0].repo", "set repo: to a git URL (https://, http://, ssh://, git://, git@host:org/repo.git), a local path or a file:// URL"}},
		},
		{
			"empty repo",
			lines("libraries:", "  - id: /a/b", `    repo: ""`),
			[]wantErr{{3, "libraries[0].repo", "missing; set repo:"}},
		},
		{
			"repo with unsupported scheme",
			lines("libraries:", "  - id: /a/b", "    repo: ftp://example.com/a.git"),
			[]wantErr{{3, "libraries[0].repo", `URL scheme "ftp" is not supported`}},
		},
		{
			"repo URL with whitespace",
			lines("libraries:", "  - id: /a/b", `    repo: "https://github.com/a/b c"`),
			[]wantErr{{3, "libraries[0].repo", "URL contains whitespace"}},
		},
		{
			"repo with surrounding spaces",
			lines("libraries:", "  - id: /a/b", `    repo: " ./docs"`),
			[]wantErr{{3, "libraries[0].repo", "leading or trailing spaces"}},
		},
		{
			"repo with a newline",
			lines("libraries:", "  - id: /a/b", `    repo: "./a\nb"`),
			[]wantErr{{3, "libraries[0].repo", "control characters"}},
		},
		{
			"repo URL without host",
			lines("libraries:", "  - id: /a/b", "    repo: https:///a/b"),
			[]wantErr{{3, "libraries[0].repo", "https:// URL has no host"}},
		},
		{
			"repo file URL without path",
			lines("libraries:", "  - id: /a/b", "    repo: file://"),
			[]wantErr{{3, "libraries[0].repo", "file:// URL has no path"}},
		},
		{
			"repo with a password",
			lines("libraries:", "  - id: /a/b", "    repo: https://bob:hunter2@github.com/a/b"),
			[]wantErr{{3, "libraries[0].repo", "contains a password or token; remove it from the URL, put the token in an environment variable and name it in token_env:"}},
		},
		{
			"repo with a token as user name",
			lines("libraries:", "  - id: /a/b", "    repo: https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b"),
			[]wantErr{{3, "libraries[0].repo", "contains a password or token"}},
		},
		{
			"repo with a token in its query",
			lines("libraries:", "  - id: /a/b", "    repo: https://github.com/a/b?access_token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
			[]wantErr{{3, "libraries[0].repo", "contains a password or token"}},
		},
		{
			"repo with a token as a query value",
			lines("libraries:", "  - id: /a/b", "    repo: https://example.com/a/b.git?x=glpat-abcdefghijklmnopqrst"),
			[]wantErr{{3, "libraries[0].repo", "contains a password or token"}},
		},
		{
			"scp-like repo with a password",
			lines("libraries:", "  - id: /a/b", "    repo: git:hunter2@github.com:a/b.git"),
			[]wantErr{{3, "libraries[0].repo", "contains a password or token"}},
		},
		{
			"scp-like repo without path",
			lines("libraries:", "  - id: /a/b", "    repo: 'git@github.com:'"),
			[]wantErr{{3, "libraries[0].repo", `no path after ":"`}},
		},
		{
			"repo that is an option",
			lines("libraries:", "  - id: /a/b", "    repo: --upload-pack=touch /tmp/x"),
			[]wantErr{{3, "libraries[0].repo", `must not start with "-"`}},
		},
		{
			"repo with a remote helper",
			lines("libraries:", "  - id: /a/b", "    repo: ext::sh"),
			[]wantErr{{3, "libraries[0].repo", "remote-helper addresses"}},
		},
		{
			"version without ref",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - name: stable"),
			[]wantErr{{5, "libraries[0].versions[0].ref", "missing; set ref: to a branch or tag"}},
		},
		{
			"version pinned to a commit",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - ref: 3f2a9c1"),
			[]wantErr{{5, "libraries[0].versions[0].ref", `"3f2a9c1" looks like a commit SHA; pin a branch or tag; shallow clones cannot fetch a bare commit`}},
		},
		{
			"version pinned to a full commit",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - ref: 0123456789abcdef0123456789abcdef01234567"),
			[]wantErr{{5, "libraries[0].versions[0].ref", "looks like a commit SHA"}},
		},
		{
			"malformed ref",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - ref: v1..v2"),
			[]wantErr{{5, "libraries[0].versions[0].ref", `"v1..v2" is not a valid git ref: it contains ".."`}},
		},
		{
			"duplicate version names",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - ref: v1", "      - ref: refs/tags/v1"),
			[]wantErr{{6, "libraries[0].versions[1].ref", `duplicate version name "v1", also used by versions[0] at line 5`}},
		},
		{
			"duplicate explicit names",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - ref: main", "        name: stable", "      - ref: release", "        name: Stable"),
			[]wantErr{{8, "libraries[0].versions[1].name", `duplicate version name "Stable"`}},
		},
		{
			"version names unusable as directories",
			lines("libraries:", "  - id: /a/b", valid, "    versions:",
				"      - {ref: a, name: ..}",
				"      - {ref: b, name: .hidden}",
				`      - {ref: c, name: "a\\b"}`,
				`      - {ref: d, name: "a\0b"}`,
				"      - {ref: e, name: x/y}"),
			[]wantErr{
				{5, "libraries[0].versions[0].name", `version name ".." cannot be used as a directory name`},
				{6, "libraries[0].versions[1].name", `starts with "."`},
				{7, "libraries[0].versions[2].name", "slash or backslash"},
				{8, "libraries[0].versions[3].name", "control characters"},
				{9, "libraries[0].versions[4].name", "slash or backslash"},
			},
		},
		{
			"latest not among versions",
			lines("libraries:", "  - id: /a/b", valid, "    versions:", "      - ref: v1", "      - ref: canary", "        name: next", "    latest: v2"),
			[]wantErr{{8, "libraries[0].latest", `"v2" is not one of this library's versions (v1, next)`}},
		},
		{
			"bad globs",
			lines("libraries:", "  - id: /a/b", valid,
				`    docs: ["docs/[", "/docs/**", "../other/**", "./docs/**", ""]`,
				`    exclude: ["docs/{a,b"]`),
			[]wantErr{
				{4, "libraries[0].docs[0]", `glob "docs/[" is malformed`},
				{4, "libraries[0].docs[1]", `glob "/docs/**" is absolute; globs are relative to the repository root, e.g. "docs/**"`},
				{4, "libraries[0].docs[2]", `glob "../other/**" has a ".." segment`},
				{4, "libraries[0].docs[3]", `would never match; write "docs/**"`},
				{4, "libraries[0].docs[4]", "empty glob"},
				{5, "libraries[0].exclude[0]", `glob "docs/{a,b" is malformed`},
			},
		},
		{
			"unknown format",
			lines("libraries:", "  - id: /a/b", valid, `    formats: [markdown, markdwn]`),
			[]wantErr{{4, "libraries[0].formats[1]", `"markdwn": use markdown`}},
		},
		{
			"bad topics",
			lines("libraries:", "  - id: /a/b", valid, "    topics:",
				"      - name: Getting Started", // 5
				"      - name: getting-started", // 6
				"      - category: guides",      // 7
				"      - name: '!!!'",           // 8
				"      - name: Routing",         // 9
				"        paths: ['docs/**/[']",  // 10
				"        headings:",             // 11
				"          - router",            // 12
				"          - ''",                // 13
			),
			[]wantErr{
				{6, "libraries[0].topics[1].name", `topic "getting-started" is the same topic as topics[0] at line 5 (both are "getting-started" once normalized)`},
				{7, "libraries[0].topics[2].name", "missing; set name:"},
				{8, "libraries[0].topics[3].name", `"!!!" has no letters or digits`},
				{10, "libraries[0].topics[4].paths[0]", `glob "docs/**/[" is malformed`},
				{13, "libraries[0].topics[4].headings[1]", "empty heading would match every section"},
			},
		},
		{
			"empty alias",
			lines("libraries:", "  - id: /a/b", valid, `    aliases: ["", b]`),
			[]wantErr{{4, "libraries[0].aliases[0]", "empty alias"}},
		},
		{
			"invalid token_env",
			lines("libraries:", "  - id: /a/b", valid, "    token_env: 1TOKEN"),
			[]wantErr{{4, "libraries[0].token_env", "not a valid environment variable name"}},
		},
		{
			"token pasted into token_env",
			lines("libraries:", "  - id: /a/b", valid, "    token_env: ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
			[]wantErr{{4, "libraries[0].token_env", "looks like a token, not the name of an environment variable"}},
		},
		{
			"problems of several libraries together, by line",
			lines("libraries:", "  - id: a/b", "    repo: ftp://x/y", "  - id: /c/d", "    bogus: 1"),
			[]wantErr{
				{2, "libraries[0].id", "must start with"},
				{3, "libraries[0].repo", "not supported"},
				{4, "libraries[1].repo", "missing"},
				{5, "libraries[1].bogus", "unknown key"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseString(t, tt.src)
			if err == nil {
				t.Fatalf("Parse succeeded, want errors %v", tt.want)
			}
			if cfg != nil {
				t.Errorf("Parse returned a config with an error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false for %v", err)
			}
			var first *Error
			if !errors.As(err, &first) {
				t.Fatalf("errors.As(*Error) = false for %v", err)
			}
			checkProblems(t, err, tt.want)
		})
	}
}

// checkProblems asserts that err holds exactly the problems in want, in
// line order.
func checkProblems(t *testing.T, err error, want []wantErr) {
	t.Helper()
	got := problems(err)
	for i, e := range got {
		if e.File != "codex7.yaml" {
			t.Errorf("problem %d: got File %q, want codex7.yaml", i, e.File)
		}
		if i > 0 && e.Line < got[i-1].Line {
			t.Errorf("problems not sorted by line: %d after %d", e.Line, got[i-1].Line)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for _, w := range want {
		found := false
		for _, e := range got {
			if e.Line == w.line && e.Field == w.field && strings.Contains(e.Msg, w.msg) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("missing problem line %d, field %q, msg containing %q; got:\n%v", w.line, w.field, w.msg, err)
		}
	}
}

func TestSecretsNotEchoed(t *testing.T) {
	secrets := []string{"hunter2", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
	for _, repo := range []string{
		"https://bob:hunter2@github.com/a/b",
		"https://bob:hunter2@github.com/a b",
		"https://bob:hunter2@[::1/a",
		"ftps://bob:hunter2@github.com/a/b",
		"ssh://git:hunter2@github.com/a/b",
		"git:hunter2@github.com:a/b.git",
		"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com:a/b",
	} {
		t.Run(repo, func(t *testing.T) {
			src := lines("libraries:", "  - id: /a/b", "    repo: '"+repo+"'", "    token_env: ghp_abcdefghijklmnopqrstuvwxyz0123456789")
			_, err := parseString(t, src)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			for _, s := range secrets {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows the secret %q: %v", s, err)
				}
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name string
		repo string
	}{
		{"https", "https://github.com/a/b"},
		{"https with user", "https://oauth2@gitlab.com/a/b.git"},
		{"http", "http://git.internal/a/b"},
		{"ssh", "ssh://git@github.com:22/a/b.git"},
		{"git", "git://example.com/a/b"},
		{"file", "file:///srv/git/b"},
		{"scp-like", "git@github.com:a/b.git"},
		{"scp-like without user", "github.com:a/b.git"},
		{"relative path", "../docs-repo"},
		{"absolute path", "/srv/git/b"},
		{"path with spaces", "./My Docs/repo"},
		{"windows path", `C:\repos\b`},
		{"upper-case scheme", "HTTPS://github.com/a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := lines("libraries:", "  - id: /a/b", "    repo: '"+tt.repo+"'",
				"    versions: [{ref: main}, {ref: v1.0.0}, {ref: release/1.x}, {ref: refs/tags/20240101}]",
				"    latest: release-1.x",
				"allow: {transports: [https, http, ssh, git, file]}")
			if _, err := parseString(t, src); err != nil {
				t.Errorf("Parse: %v", err)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	src := "libraries:\n" + strings.Repeat("# padding padding padding\n", MaxFileSize/20)
	_, err := parseString(t, src)
	checkProblems(t, err, []wantErr{{0, "", "larger than 1 MiB"}})
}

func TestParseAliasBomb(t *testing.T) {
	src := lines(
		`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`,
		`b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]`,
		`c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]`,
		`d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]`,
		`e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]`,
		`f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]`,
		`g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]`,
		`libraries: [*g,*g,*g,*g,*g,*g,*g,*g,*g]`,
	)
	// Expanded, this is 9^8 strings: refusing the aliases unexpanded is
	// what keeps the test from running out of time and memory.
	_, err := parseString(t, src)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v, want ErrInvalid", err)
	}
	if !strings.Contains(err.Error(), "anchors and aliases are not supported") {
		t.Errorf("got %v, want a message about aliases", err)
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: "codex7.yaml", Line: 12, Field: "libraries[2].id", Msg: "bad"}, "codex7.yaml:12: libraries[2].id: bad"},
		{Error{File: "codex7.yaml", Field: "libraries", Msg: "bad"}, "codex7.yaml: libraries: bad"},
		{Error{File: "codex7.yaml", Line: 3, Msg: "bad"}, "codex7.yaml:3: bad"},
		{Error{Line: 3, Field: "x", Msg: "bad"}, "line 3: x: bad"},
		{Error{Field: "x", Msg: "bad"}, "x: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if !errors.Is(&tt.err, ErrInvalid) {
				t.Error("does not match ErrInvalid")
			}
		})
	}
}

func TestValidateInCode(t *testing.T) {
	cfg := &Config{Libraries: []Library{
		{ID: "/a/b", Repo: "https://github.com/a/b"},
		{ID: "/a/c", Repo: "https://github.com/a/c", Versions: []Version{{Ref: "main"}}, Line: 7},
		{ID: "/A/B", Repo: "https://github.com/a/b"},
	}}
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []wantErr
	}{
		{"valid", func(c *Config) {}, nil},
		{"no libraries", func(c *Config) { c.Libraries = nil }, []wantErr{{0, "libraries", "no libraries"}}},
		{"falls back to the entry's line", func(c *Config) { c.Libraries[1].Latest = "dev" }, []wantErr{{7, "libraries[1].latest", `"dev" is not one of`}}},
		{"duplicate", func(c *Config) { c.Libraries[2].ID = "/a/B" }, []wantErr{{0, "libraries[2].id", "already used by libraries[0] (ids"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *cfg
			c.Libraries = append([]Library(nil), cfg.Libraries...)
			c.Libraries[2].ID = "/c/d"
			c.File = "codex7.yaml"
			tt.mutate(&c)
			err := c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			checkProblems(t, err, tt.want)
		})
	}
}

func TestVersionName(t *testing.T) {
	tests := []struct {
		v    Version
		want string
	}{
		{Version{Ref: "v1.2.0"}, "v1.2.0"},
		{Version{Ref: "main"}, "main"},
		{Version{Ref: "release/2.x"}, "release-2.x"},
		{Version{Ref: "refs/heads/feature/a/b"}, "feature-a-b"},
		{Version{Ref: "refs/tags/v3.0.0"}, "v3.0.0"},
		{Version{Ref: "refs/pull/1/head"}, "refs-pull-1-head"},
		{Version{Ref: "canary", Name: "next"}, "next"},
	}
	for _, tt := range tests {
		t.Run(tt.v.Ref, func(t *testing.T) {
			if got := (Library{}).VersionName(tt.v); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseManyProblems(t *testing.T) {
	// Thousands of broken libraries: the report is capped.
	var b strings.Builder
	b.WriteString("libraries:\n")
	for b.Len() < MaxFileSize/8 {
		b.WriteString("  - id: x\n    bogus: 1\n")
	}
	_, err := parseString(t, b.String())
	got := problems(err)
	if len(got) != maxProblems {
		t.Fatalf("got %d problems, want %d", len(got), maxProblems)
	}
	if last := got[len(got)-1]; !strings.Contains(last.Msg, "more problems not shown") {
		t.Errorf("last problem: got %q, want a count of the others", last.Msg)
	}
	if got[0].Line != 2 || got[0].Field != "libraries[0].id" {
		t.Errorf("first problem: got line %d field %q, want 2 libraries[0].id", got[0].Line, got[0].Field)
	}
}

func TestParseDesignExample(t *testing.T) {
	// DESIGN.md §3, verbatim.
	src := lines(
		"libraries:",
		"  - id: /vercel/next.js          # /org/project; unique",
		"    title: Next.js",
		"    description: The React framework for the web",
		"    repo: https://github.com/vercel/next.js   # any git URL, a local path, or file://",
		"    versions:                    # git refs; each becomes its own artifact",
		"      - ref: v15.1.0",
		"      - ref: canary",
		"    latest: v15.1.0              # optional; default: highest semver tag, else the first ref",
		`    docs: ["docs/**"]            # include globs, default: all .md/.mdx`,
		`    exclude: ["**/CHANGELOG.md", "**/node_modules/**", "**/versioned_docs/**"]`,
		"    topics: {}                   # optional overrides of the generated topic tree",
	)
	cfg, err := parseString(t, src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if l := cfg.Libraries[0]; l.ID != "/vercel/next.js" || len(l.Versions) != 2 || len(l.Topics) != 0 || len(l.Exclude) != 3 {
		t.Errorf("got %+v", l)
	}
}

// problems returns the *Error values in err (a single one or a join).
func problems(err error) []*Error {
	if err == nil {
		return nil
	}
	var out []*Error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, problems(e)...)
		}
		return out
	}
	var e *Error
	if errors.As(err, &e) {
		out = append(out, e)
	}
	return out
}

// TestSlashGlob checks which backslashes of a glob are read as Windows
// separators and which stay doublestar escapes.
func TestSlashGlob(t *testing.T) {
	tests := []struct{ in, want string }{
		{"docs/**", "docs/**"},
		{`docs\**\*.md`, "docs/**/*.md"},
		{`docs\guide.md`, "docs/guide.md"},
		{`docs\api\`, "docs/api/"},
		{`**\*.md`, "**/*.md"},
		{`docs/api\guide.md`, "docs/api/guide.md"},
		{`docs\api/**`, "docs/api/**"},
		{`docs/api\`, "docs/api/"},
		{`docs/\[draft\].md`, `docs/\[draft\].md`},
		{`docs/\*.md`, `docs/\*.md`},
		{`docs/{a\,b,c}/**`, `docs/{a\,b,c}/**`},
		{`docs/[a\-z]*.md`, `docs/[a\-z]*.md`},
		{`docs/a\\b.md`, `docs/a\\b.md`},
		{`..\other\**`, "../other/**"},
		{`\docs\**`, "/docs/**"},
		{`C:\docs\**`, "C:/docs/**"},
	}
	for _, tt := range tests {
		got := slashGlob(tt.in)
		if got != tt.want {
			t.Errorf("slashGlob(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := slashGlob(got); again != got {
			t.Errorf("slashGlob(slashGlob(%q)) = %q, want %q", tt.in, again, got)
		}
	}
}

// TestParseWindowsGlobs checks that globs written with backslashes are
// validated and kept as their slash forms, in docs, exclude and topics'
// paths alike.
func TestParseWindowsGlobs(t *testing.T) {
	cfg, err := parseString(t, lines("libraries:", "  - id: /a/b", "    repo: https://github.com/org/repo",
		`    docs: ['docs\**\*.md', 'guides/api\intro.md']`,
		`    exclude: ['docs\internal\**']`,
		`    topics: [{name: Install, paths: ['docs\install\*.md']}]`))
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Libraries[0]
	got := [][]string{l.Docs, l.Exclude, l.Topics[0].Paths}
	want := [][]string{{"docs/**/*.md", "guides/api/intro.md"}, {"docs/internal/**"}, {"docs/install/*.md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("docs, exclude, topic paths = %q, want %q", got, want)
	}

	_, err = parseString(t, lines("libraries:", "  - id: /a/b", "    repo: https://github.com/org/repo",
		`    docs: ['..\other\**', '\docs\**']`))
	checkProblems(t, err, []wantErr{
		{4, "libraries[0].docs[0]", `glob "../other/**" has a ".." segment`},
		{4, "libraries[0].docs[1]", `glob "/docs/**" is absolute`},
	})
}

// TestCheckID: the exported check is the one the config applies.
func TestCheckID(t *testing.T) {
	for id, ok := range map[string]bool{"/vercel/next.js": true, "/acme/x_y-z": true, "/a b/c": false, "acme/x": false, "/a/b/c": false, "/.a/b": false, "": false} {
		if err := CheckID(id); (err == nil) != ok {
			t.Errorf("CheckID(%q) = %v, want ok %v", id, err, ok)
		}
	}
}
