package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func matchAny(t *testing.T, globs []string, path string) bool {
	t.Helper()
	for _, g := range globs {
		ok, err := doublestar.Match(g, path)
		if err != nil {
			t.Fatalf("Match(%q, %q): %v", g, path, err)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestDefaultExcludes(t *testing.T) {
	globs := DefaultExcludes(false)
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			t.Errorf("invalid pattern %q", g)
		}
	}
	tests := []struct {
		path string
		want bool
	}{
		{"CHANGELOG.md", true},
		{"docs/CHANGELOG.md", true},
		{"packages/a/CHANGES.rst", true},
		{"HISTORY.md", true},
		{"LICENSE", true},
		{"LICENSE.md", true},
		{"sub/LICENCE.txt", true},
		{"COPYING", true},
		{"CODE_OF_CONDUCT.md", true},
		{"node_modules/pkg/README.md", true},
		{"site/node_modules/pkg/README.md", true},
		{"vendor/github.com/x/README.md", true},
		{"third_party/lib/doc.md", true},
		{".github/CONTRIBUTING.md", true},
		{"docs/.vitepress/config.md", true},
		{".github/ISSUE_TEMPLATE/bug.md", true},
		{".hidden.md", false},        // hidden files are indexed; hidden folders are not
		{"pages/common/..md", false}, // tldr's page for the "." command
		{"versioned_docs/version-1/intro.md", true},
		{"website/versioned_docs/version-1/intro.md", true},
		{"website/versioned_sidebars/version-1.json", true},
		{"README.md", false},
		{"docs/intro.md", false},
		{"docs/guides/changelog-format.md", false}, // matching is case-sensitive
		{"docs/vendoring.md", false},
		{"docs/licenses-overview/index.md", false},
		{"docs/a.b/c.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := matchAny(t, globs, tt.path); got != tt.want {
				t.Errorf("excluded = %v, want %v", got, tt.want)
			}
		})
	}
	globs[0] = "changed"
	if DefaultExcludes(false)[0] == "changed" {
		t.Error("DefaultExcludes shares its slice")
	}
}

func TestParseContext7(t *testing.T) {
	data := []byte("\xef\xbb\xbf" + `{
  "$schema": "https://context7.com/schema/context7.json",
  "url": "https://context7.com/vercel/next.js",
  "public_key": "pk_123",
  "projectTitle": " Next.js ",
  "description": "The React framework",
  "branch": "canary",
  "folders": ["docs", " ", "./guides/"],
  "excludeFolders": ["test", "./examples"],
  "excludeFiles": ["CHANGELOG.md"],
  "rules": ["Use the App Router"],
  "previousVersions": [{"tag": "v14.2.0", "title": "version 14"}, {"tag": ""}],
  "branchVersions": [{"branch": "next-15", "title": "v15"}]
}`)
	got, err := ParseContext7(data)
	if err != nil {
		t.Fatalf("ParseContext7: %v", err)
	}
	want := &Context7{
		ProjectTitle:     "Next.js",
		Branch:           "canary",
		Description:      "The React framework",
		Folders:          []string{"docs", "./guides/"},
		ExcludeFolders:   []string{"test", "./examples"},
		ExcludeFiles:     []string{"CHANGELOG.md"},
		PreviousVersions: []Context7Version{{Tag: "v14.2.0", Title: "version 14"}},
		BranchVersions:   []Context7Branch{{Branch: "next-15", Title: "v15"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestParseContext7Errors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "unexpected end of JSON input"},
		{"truncated", `{"folders": ["docs"`, "unexpected end of JSON input"},
		{"trailing comma", `{"folders": ["docs",]}`, "invalid character"},
		{"wrong type", `{"folders": "docs"}`, "cannot unmarshal string"},
		{"not an object", `["docs"]`, "cannot unmarshal array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseContext7([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "config: parse context7.json: ") {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestContext7Globs(t *testing.T) {
	c := &Context7{
		Folders:        []string{"docs", "./guides/", "/api/", "content/**", "../outside", "docs"},
		ExcludeFolders: []string{"test", "./examples", "docs/legacy/", "**/drafts/*", "/internal", "", "./", "x/[", "../up"},
		ExcludeFiles:   []string{"CHANGELOG.md", "*.test.md", "**/NOTES.md"},
	}
	wantInclude := []string{"docs/**", "guides/**", "api/**", "content/**"}
	wantExclude := []string{
		"**/test/**", "examples/**", "docs/legacy/**", "**/drafts/*", "internal/**",
		"**/CHANGELOG.md", "**/*.test.md", "**/NOTES.md",
	}
	tests := []struct {
		name                     string
		lib                      Library
		c                        *Context7
		wantInclude, wantExclude []string
	}{
		{"from context7.json", Library{}, c, wantInclude, wantExclude},
		{"config docs win", Library{Docs: []string{"site/**"}}, c, []string{"site/**"}, wantExclude},
		{"config exclude wins", Library{Exclude: []string{"old/**"}}, c, wantInclude, []string{"old/**"}},
		{"nil context7", Library{}, nil, nil, nil},
		{"empty context7", Library{Docs: []string{"a/**"}}, &Context7{}, []string{"a/**"}, nil},
		{"root folder", Library{}, &Context7{Folders: []string{".", "./"}, ExcludeFolders: []string{"."}}, []string{"**"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc, exc := tt.lib.Context7Globs(tt.c)
			if !reflect.DeepEqual(inc, tt.wantInclude) {
				t.Errorf("include: got %q, want %q", inc, tt.wantInclude)
			}
			if !reflect.DeepEqual(exc, tt.wantExclude) {
				t.Errorf("exclude: got %q, want %q", exc, tt.wantExclude)
			}
		})
	}

	// What the globs match.
	inc, exc := Library{}.Context7Globs(c)
	for _, tt := range []struct {
		path              string
		included, exclude bool
	}{
		{"docs/intro.md", true, false},
		{"docs/test/a.md", true, true},
		{"test/a.md", false, true},
		{"guides/x/test/a.md", true, true},
		{"examples/a.md", false, true},
		{"docs/examples/a.md", true, false}, // "./examples" is rooted
		{"docs/legacy/a.md", true, true},
		{"x/docs/legacy/a.md", false, false},
		{"CHANGELOG.md", false, true},
		{"docs/sub/CHANGELOG.md", true, true},
		{"docs/a.test.md", true, true},
		{"docs/drafts/a.md", true, true},
	} {
		t.Run(tt.path, func(t *testing.T) {
			if got := matchAny(t, inc, tt.path); got != tt.included {
				t.Errorf("included = %v, want %v", got, tt.included)
			}
			if got := matchAny(t, exc, tt.path); got != tt.exclude {
				t.Errorf("excluded = %v, want %v", got, tt.exclude)
			}
		})
	}

	// The library's slices are copied, not shared.
	lib := Library{Docs: []string{"a/**"}, Exclude: []string{"b/**"}}
	inc, exc = lib.Context7Globs(nil)
	inc[0], exc[0] = "x", "y"
	if lib.Docs[0] != "a/**" || lib.Exclude[0] != "b/**" {
		t.Error("Context7Globs returned the library's own slices")
	}
}
