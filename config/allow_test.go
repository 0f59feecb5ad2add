package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseAllow checks the allow: mapping and the transport of every
// repo: against it.
func TestParseAllow(t *testing.T) {
	lib := func(repo string) []string {
		return []string{"libraries:", "  - id: /a/b", "    repo: '" + repo + "'"}
	}
	tests := []struct {
		name string
		src  string
		want []wantErr
	}{
		{"ssh not listed", lines(lib("ssh://git@github.com/a/b")...),
			[]wantErr{{3, "libraries[0].repo", "uses the ssh transport, which allow.transports does not list (ssh signs in with the SSH agent's keys, so it is off unless listed); add ssh to allow.transports (now https, file)"}}},
		{"scp-like not listed", lines(lib("git@github.com:a/b.git")...),
			[]wantErr{{3, "libraries[0].repo", "uses the ssh transport"}}},
		{"data: reads as scp-like ssh", lines(lib("data:text/plain,a/b")...),
			[]wantErr{{3, "libraries[0].repo", "uses the ssh transport"}}},
		{"git not listed", lines(lib("git://example.com/a/b")...),
			[]wantErr{{3, "libraries[0].repo", "uses the git transport, which allow.transports does not list (it is not encrypted"}}},
		{"http not listed", lines(lib("http://example.com/a/b")...),
			[]wantErr{{3, "libraries[0].repo", "uses the http transport"}}},
		{"local not listed", lines(append(lib("./docs"), "allow: {transports: [https]}")...),
			[]wantErr{{3, "libraries[0].repo", "is a local repository, but allow.transports (https) does not list file"}}},
		{"https not listed", lines(append(lib("https://github.com/a/b"), "allow: {transports: [ssh]}")...),
			[]wantErr{{3, "libraries[0].repo", "uses the https transport, which allow.transports does not list; add https to allow.transports (now ssh)"}}},
		{"remote helper", lines(lib("ext::sh -c touch% /tmp/pwned")...),
			[]wantErr{{3, "libraries[0].repo", `git remote-helper addresses ("transport::address") are not supported`}}},
		{"unknown scheme", lines(lib("ftp://example.com/a/b")...),
			[]wantErr{{3, "libraries[0].repo", `URL scheme "ftp" is not supported`}}},
		{"unknown and helper transports", lines(append(lib("https://github.com/a/b"), "allow:", "  transports: [https, ftp, ext]")...),
			[]wantErr{
				{5, "allow.transports[1]", `unknown transport "ftp"; list only https, http, ssh, git, file`},
				{5, "allow.transports[2]", `git remote helpers ("ext") are never allowed: they run programs`},
			}},
		{"empty transports", lines(append(lib("https://github.com/a/b"), "allow:", "  transports: []")...),
			[]wantErr{{5, "allow.transports", "lists no transports, so nothing could be fetched"}}},
		{"bad roots", lines(append(lib("https://github.com/a/b"), "allow:", "  local_roots:", "    - ''", "    - \"a\\tb\"")...),
			[]wantErr{
				{6, "allow.local_roots[0]", "empty root"},
				{7, "allow.local_roots[1]", "contains control characters"},
			}},
		{"roots without file", lines(append(lib("https://github.com/a/b"), "allow:", "  transports: [https]", "  local_roots: [/srv/git]")...),
			[]wantErr{{6, "allow.local_roots", "allow.transports does not list file"}}},
		{"allow is not a mapping", lines(append(lib("https://github.com/a/b"), "allow: [https]")...),
			[]wantErr{{4, "allow", "must be a mapping of keys to values, not a list"}}},
		{"unknown key in allow", lines(append(lib("https://github.com/a/b"), "allow: {roots: [/srv]}")...),
			[]wantErr{{4, "allow.roots", `unknown key "roots" in allow; valid keys: transports, local_roots`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseString(t, tt.src)
			checkProblems(t, err, tt.want)
		})
	}
	if _, err := parseString(t, lines(lib("ssh://bob:hunter2@github.com/a/b")...)); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %v: want one that does not show the password", err)
	}
}

// TestLoadLocalRoots loads configs from a directory: local repositories
// must lie under it or under allow.local_roots, judged lexically (fetch
// resolves symbolic links again before any contact).
func TestLoadLocalRoots(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mirrors := filepath.Join(base, "mirrors")
	tests := []struct {
		name  string
		repo  string
		allow string
		want  string // a fragment of the error, or "" for none
	}{
		{"below the config", "./docs-repo", "", ""},
		{"the config's directory", ".", "", ""},
		{"absolute below the config", filepath.Join(dir, "a", "b"), "", ""},
		{"file URL below the config", "file://" + filepath.Join(dir, "a"), "", ""},
		{"climbing out", "../mirrors/lib", "", "local repository " + filepath.Join(mirrors, "lib") + " is outside the directories local repositories may be in (" + dir + ")"},
		{"climbing out, in a root", "../mirrors/lib", "allow: {local_roots: [../mirrors]}", ""},
		{"absolute, in an absolute root", filepath.Join(mirrors, "lib"), "allow: {local_roots: [" + mirrors + "]}", ""},
		{"absolute outside", "/etc", "", "local repository /etc is outside"},
		{"file URL outside", "file:///srv/git/lib", "allow: {local_roots: [" + mirrors + "]}", "local repository /srv/git/lib is outside the directories local repositories may be in (" + dir + ", " + mirrors + ")"},
		{"a sibling named like a root", mirrors + "-evil/lib", "allow: {local_roots: [" + mirrors + "]}", "is outside"},
		{"remote, roots irrelevant", "https://github.com/a/b", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "codex7.yaml")
			src := lines("libraries:", "  - id: /a/b", "    repo: '"+tt.repo+"'", tt.allow)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if p := cfg.LocalRepoPath(tt.repo); p != "" && !strings.HasPrefix(p, base) {
					t.Errorf("LocalRepoPath = %q, want it under %s", p, base)
				}
				return
			}
			probs := problems(err)
			if len(probs) != 1 || probs[0].Line != 3 || probs[0].Field != "libraries[0].repo" || probs[0].File != path || !strings.Contains(probs[0].Msg, tt.want) {
				t.Fatalf("Load error:\n%v\nwant %s:3: libraries[0].repo: ...%s...", err, path, tt.want)
			}
			if !strings.Contains(probs[0].Msg, "add its directory to allow.local_roots") {
				t.Errorf("message %q does not say how to fix it", probs[0].Msg)
			}
		})
	}
}

// TestLocalRootsWithoutDir: a config parsed from a reader (no directory)
// confines local repositories only to the roots it lists.
func TestLocalRootsWithoutDir(t *testing.T) {
	cfg, err := parseString(t, lines("libraries:", "  - id: /a/b", "    repo: /anywhere/repo"))
	if err != nil {
		t.Fatal(err)
	}
	if roots := cfg.LocalRoots(); roots != nil {
		t.Errorf("LocalRoots() = %v, want nil (anywhere)", roots)
	}
	cfg, err = parseString(t, lines("libraries:", "  - id: /a/b", "    repo: /anywhere/repo", "allow: {local_roots: [/srv/git]}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.LocalRoots(), ","); got != "/srv/git" {
		t.Errorf("LocalRoots() = %q, want /srv/git", got)
	}
	cfg.Dir = "/etc/codex7"
	if got := strings.Join(cfg.LocalRoots(), ","); got != "/etc/codex7,/srv/git" {
		t.Errorf("LocalRoots() with Dir = %q", got)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "/anywhere/repo is outside") {
		t.Errorf("Validate with Dir set = %v, want the repo outside the roots", err)
	}
}

// TestFileURLPath checks the file path of a file:// URL's path: the path
// itself on Unix, a drive path on Windows.
func TestFileURLPath(t *testing.T) {
	tests := []struct{ in, unix, windows string }{
		{"/srv/git/b", "/srv/git/b", `\srv\git\b`},
		{"/C:/repos/b", "/C:/repos/b", `C:\repos\b`},
		{"/c:/My Repos/b", "/c:/My Repos/b", `c:\My Repos\b`},
		{"/", "/", `\`},
	}
	for _, tt := range tests {
		want := tt.unix
		if filepath.Separator == '\\' {
			want = tt.windows
		}
		if got := fileURLPath(tt.in); got != want {
			t.Errorf("fileURLPath(%q) = %q, want %q", tt.in, got, want)
		}
	}
}
