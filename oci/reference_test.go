package oci

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// testDigest is a well-formed manifest digest for references.
const testDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseReference(t *testing.T) {
	tests := []struct {
		in                     string
		host, repo, tag, canon string
		digest                 bool
	}{
		{in: "oci://ghcr.io/acme/docs", host: "ghcr.io", repo: "acme/docs", tag: DefaultTag, canon: "oci://ghcr.io/acme/docs:latest"},
		{in: "oci://ghcr.io/acme/docs:v1.2.3", host: "ghcr.io", repo: "acme/docs", tag: "v1.2.3", canon: "oci://ghcr.io/acme/docs:v1.2.3"},
		{in: "oci://ghcr.io/acme/team/docs:Release_2", host: "ghcr.io", repo: "acme/team/docs", tag: "Release_2", canon: "oci://ghcr.io/acme/team/docs:Release_2"},
		{in: "oci://localhost:5000/docs", host: "localhost:5000", repo: "docs", tag: DefaultTag, canon: "oci://localhost:5000/docs:latest"},
		{in: "oci://127.0.0.1:5000/acme/docs:dev", host: "127.0.0.1:5000", repo: "acme/docs", tag: "dev", canon: "oci://127.0.0.1:5000/acme/docs:dev"},
		{in: "oci://[::1]:5000/acme/docs", host: "[::1]:5000", repo: "acme/docs", tag: DefaultTag, canon: "oci://[::1]:5000/acme/docs:latest"},
		{in: "oci://ghcr.io/acme/docs@" + testDigest, host: "ghcr.io", repo: "acme/docs", digest: true, canon: "oci://ghcr.io/acme/docs@" + testDigest},
		// A tag beside a digest is dropped: the digest pins the manifest.
		{in: "oci://ghcr.io/acme/docs:v1@" + testDigest, host: "ghcr.io", repo: "acme/docs", digest: true, canon: "oci://ghcr.io/acme/docs@" + testDigest},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			ref, err := ParseReference(tt.in)
			if err != nil {
				t.Fatalf("ParseReference(%q): got error %v, want none", tt.in, err)
			}
			if got := ref.Host(); got != tt.host {
				t.Errorf("Host() = %q, want %q", got, tt.host)
			}
			if got := ref.Repository(); got != tt.repo {
				t.Errorf("Repository() = %q, want %q", got, tt.repo)
			}
			if got := ref.Tag(); got != tt.tag {
				t.Errorf("Tag() = %q, want %q", got, tt.tag)
			}
			if got := ref.IsDigest(); got != tt.digest {
				t.Errorf("IsDigest() = %v, want %v", got, tt.digest)
			}
			if got := ref.String(); got != tt.canon {
				t.Errorf("String() = %q, want %q", got, tt.canon)
			}
			again, err := ParseReference(ref.String())
			if err != nil {
				t.Fatalf("ParseReference(String()) = %v, want no error", err)
			}
			if again != ref {
				t.Errorf("ParseReference(String()) = %+v, want %+v", again, ref)
			}
		})
	}
}

func TestParseReferenceErrors(t *testing.T) {
	tests := []struct {
		name, in string
		wantMsg  string // a part of the message that tells the user what to write
	}{
		{"empty", "", "oci://"},
		{"missing scheme", "ghcr.io/acme/docs:latest", "must start with oci://"},
		{"other scheme", "https://ghcr.io/acme/docs", "must start with oci://"},
		{"scheme in capitals", "OCI://ghcr.io/acme/docs", "must start with oci://"},
		{"scheme only", "oci://", "give a host and a repository"},
		{"no repository", "oci://ghcr.io", "give a host and a repository"},
		{"no repository with tag", "oci://localhost:5000", "give a host and a repository"},
		{"empty repository", "oci://ghcr.io/", "give a repository after the host"},
		{"empty host", "oci:///acme/docs", `host "" is not HOST or HOST:PORT`},
		{"uppercase repository", "oci://ghcr.io/Acme/Docs", "repository names are lowercase"},
		{"uppercase repository suggested in lowercase", "oci://127.0.0.1:1/X:v1", "did you mean oci://127.0.0.1:1/x:v1?"},
		{"repository with space", "oci://ghcr.io/acme docs", `repository "acme docs" is not allowed`},
		{"repository part ending in a separator", "oci://ghcr.io/acme_/docs", "each part starting and ending with a letter or digit"},
		{"bad tag", "oci://ghcr.io/acme/docs:v1/2", "a tag is"},
		{"tag with space", "oci://ghcr.io/acme/docs:v 1", `tag "v 1" is not allowed`},
		{"empty tag", "oci://ghcr.io/acme/docs:", "the tag after ':' is empty"},
		{"empty tag with a port", "oci://127.0.0.1:5000/x:", "the tag after ':' is empty"},
		{"empty digest", "oci://ghcr.io/acme/docs@", "the digest after '@' is empty"},
		{"short digest", "oci://ghcr.io/acme/docs@sha256:abc", "a digest is sha256:"},
		{"unknown digest algorithm", "oci://ghcr.io/acme/docs@md5:d41d8cd98f00b204e9800998ecf8427e", "a digest is sha256:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := ParseReference(tt.in)
			if err == nil {
				t.Fatalf("ParseReference(%q) = %v, want an error", tt.in, ref)
			}
			if !errors.Is(err, ErrReference) {
				t.Errorf("ParseReference(%q): got error %v, want one wrapping ErrReference", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("ParseReference(%q): got error %q, want it to say %q", tt.in, err, tt.wantMsg)
			}
			if tt.in != "" && !strings.Contains(err.Error(), tt.in) {
				t.Errorf("ParseReference(%q): got error %q, want it to name the reference", tt.in, err)
			}
		})
	}
}

func TestIsReference(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"oci://ghcr.io/acme/docs", true},
		{"oci://", true},
		{"dist", false},
		{"./oci/dist", false},
		{"/srv/oci:/dist", false},
		{"ghcr.io/acme/docs", false},
	}
	for _, tt := range tests {
		if got := IsReference(tt.in); got != tt.want {
			t.Errorf("IsReference(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"localhost:5000", true},
		{"LocalHost:5000", true},
		{"127.0.0.1", true},
		{"127.0.0.5", true},
		{"127.0.0.5:5000", true},
		{"127.255.255.254:443", true},
		{"[::1]", true},
		{"[::1]:5000", true},
		{"ghcr.io", false},
		{"ghcr.io:443", false},
		{"docker.io", false},
		{"localhost.example.com", false},
		{"mylocalhost:5000", false},
		{"128.0.0.1:5000", false},
		{"10.0.0.1:5000", false},
		{"0.0.0.0:5000", false},
		{"[::]:5000", false},
		{"[::2]:5000", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			ref, err := ParseReference("oci://" + tt.host + "/acme/docs")
			if err != nil {
				t.Fatalf("ParseReference: %v", err)
			}
			if got := ref.IsLoopback(); got != tt.want {
				t.Errorf("IsLoopback() for %s = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

func TestCacheName(t *testing.T) {
	refs := []string{
		"oci://ghcr.io/acme/docs",
		"oci://ghcr.io/acme/docs:v1",
		"oci://ghcr.io/acme/docs:v2",
		"oci://ghcr.io/acme/docs:V2",
		"oci://ghcr.io/acme/docs@" + testDigest,
		"oci://ghcr.io/acme/other:v1",
		"oci://ghcr.io/other/docs:v1",
		"oci://localhost:5000/acme/docs:v1",
		"oci://[::1]:5000/acme/docs:v1",
		"oci://registry.example.com/a/b/c/docs:v1",
	}
	seen := map[string]string{}
	for _, s := range refs {
		ref, err := ParseReference(s)
		if err != nil {
			t.Fatalf("ParseReference(%q): %v", s, err)
		}
		name := ref.CacheName()
		if name == "" || !filepath.IsLocal(name) || strings.ContainsAny(name, `/\:@[]`) {
			t.Errorf("CacheName() of %s = %q, want one relative file name without / \\ : @ [ ]", s, name)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("CacheName() of %s and %s are both %q, want different names", s, other, name)
		}
		seen[name] = s
		if got := ref.CacheName(); got != name {
			t.Errorf("CacheName() of %s = %q then %q, want it stable", s, name, got)
		}
	}
}

// TestCacheNameLookalikes checks references that CacheName's character
// mapping alone would fold together: '/', ':' and '_' all become '_'.
func TestCacheNameLookalikes(t *testing.T) {
	tests := []struct{ a, b string }{
		{"oci://localhost:5000/acme/docs:v1", "oci://localhost/5000/acme/docs:v1"},
		{"oci://ghcr.io/acme/docs:x_v1", "oci://ghcr.io/acme/docs_x:v1"},
		{"oci://ghcr.io/acme/docs:x.v1", "oci://ghcr.io/acme/docs.x:v1"},
	}
	for _, tt := range tests {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			a, b := mustParseRef(t, tt.a), mustParseRef(t, tt.b)
			if a.CacheName() == b.CacheName() {
				t.Errorf("CacheName() of %s and %s are both %q, want different names", a, b, a.CacheName())
			}
		})
	}
}

func TestReferenceWith(t *testing.T) {
	tag := mustParseRef(t, "oci://ghcr.io/acme/docs:v1")

	pinned := tag.WithDigest(testDigest)
	if !pinned.IsDigest() || pinned.Tag() != "" {
		t.Errorf("WithDigest: got IsDigest() %v and Tag() %q, want true and \"\"", pinned.IsDigest(), pinned.Tag())
	}
	if got, want := pinned.String(), "oci://ghcr.io/acme/docs@"+testDigest; got != want {
		t.Errorf("WithDigest(...).String() = %q, want %q", got, want)
	}
	if got := mustParseRef(t, pinned.String()); got != pinned {
		t.Errorf("ParseReference(WithDigest(...).String()) = %+v, want %+v", got, pinned)
	}
	if pinned.Host() != tag.Host() || pinned.Repository() != tag.Repository() {
		t.Errorf("WithDigest moved the reference to %s/%s, want %s/%s", pinned.Host(), pinned.Repository(), tag.Host(), tag.Repository())
	}
	if pinned.CacheName() == tag.CacheName() {
		t.Errorf("CacheName() of %s and %s are both %q, want different names", pinned, tag, tag.CacheName())
	}

	retagged := pinned.WithTag("v2")
	if retagged.IsDigest() || retagged.Tag() != "v2" {
		t.Errorf("WithTag(v2): got IsDigest() %v and Tag() %q, want false and \"v2\"", retagged.IsDigest(), retagged.Tag())
	}
	if got, want := retagged.String(), "oci://ghcr.io/acme/docs:v2"; got != want {
		t.Errorf("WithTag(v2).String() = %q, want %q", got, want)
	}
	if got := mustParseRef(t, retagged.String()); got != retagged {
		t.Errorf("ParseReference(WithTag(v2).String()) = %+v, want %+v", got, retagged)
	}
	if got := retagged.WithTag("v1"); got != tag {
		t.Errorf("WithTag(v2).WithTag(v1) = %+v, want %+v", got, tag)
	}
	if tag.Tag() != "v1" || tag.IsDigest() {
		t.Errorf("WithDigest and WithTag changed their receiver: got %s, want oci://ghcr.io/acme/docs:v1", tag)
	}
}

// mustParseRef parses s or fails the test.
func mustParseRef(t *testing.T, s string) Reference {
	t.Helper()
	ref, err := ParseReference(s)
	if err != nil {
		t.Fatalf("ParseReference(%q): %v", s, err)
	}
	return ref
}

func TestCheckTag(t *testing.T) {
	for _, tag := range []string{"latest", "v1.2.3", "Release_2", "_x", "1", strings.Repeat("x", 128)} {
		if err := CheckTag(tag); err != nil {
			t.Errorf("CheckTag(%q) = %v, want nil", tag, err)
		}
	}
	for _, tag := range []string{"", "bad tag", ".v1", "-v1", "v1/2", "v1:2", "v1@x", strings.Repeat("x", 129)} {
		err := CheckTag(tag)
		if !errors.Is(err, ErrReference) || !strings.Contains(err.Error(), "a tag is") {
			t.Errorf("CheckTag(%q) = %v, want ErrReference saying what a tag is", tag, err)
		}
	}
}

// TestParseReferenceHidesCredentials: a reference with credentials
// before its host, as URLs carry them, is refused saying where they go
// instead, and the error, which goes to terminals and logs, names the
// reference without them. Before, it was refused as a bad host, quoting
// the password twice. A digest after a host without a repository is
// no user information, and is still refused as that.
func TestParseReferenceHidesCredentials(t *testing.T) {
	for _, in := range []string{
		"oci://user:s3cr3t@ghcr.io/acme/docs:v1",
		"oci://s3cr3t@localhost:5000/acme/docs",
		"oci://user:s3cr3t@ghcr.io",
		"oci://user:s3@cr3t@ghcr.io/acme/docs",
	} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseReference(in)
			if !errors.Is(err, ErrReference) {
				t.Fatalf("ParseReference: %v, want ErrReference", err)
			}
			if strings.Contains(err.Error(), "s3") {
				t.Errorf("ParseReference: %q shows the credentials", err)
			}
			for _, want := range []string{"credentials do not go in the reference", EnvPassword, "docker login"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("ParseReference: %q, want it to say %q", err, want)
				}
			}
		})
	}
	if _, err := ParseReference("oci://ghcr.io@sha256:" + strings.Repeat("a", 64)); err == nil || !strings.Contains(err.Error(), "give a host and a repository") {
		t.Errorf("ParseReference of a digest without a repository: %v, want it to ask for a repository", err)
	}
}

// TestTLSProbeAddr checks the address the TLS probe of a loopback registry
// dials: the reference's port when it names one, else 443, an IPv6
// literal bracketed once.
func TestTLSProbeAddr(t *testing.T) {
	for host, want := range map[string]string{
		"localhost":      "localhost:443",
		"localhost:5000": "localhost:5000",
		"127.0.0.1":      "127.0.0.1:443",
		"127.0.0.1:5000": "127.0.0.1:5000",
		"[::1]":          "[::1]:443",
		"[::1]:5000":     "[::1]:5000",
		"registry.local": "registry.local:443",
	} {
		if got := tlsProbeAddr(host); got != want {
			t.Errorf("tlsProbeAddr(%q) = %q, want %q", host, got, want)
		}
	}
}
