package oci

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strings"

	"oras.land/oras-go/v2/registry"
)

// Scheme prefixes every reference Codex7 takes on its command line, so
// that a registry reference is never mistaken for a directory.
const Scheme = "oci://"

// DefaultTag is the tag of a reference that names none.
const DefaultTag = "latest"

// Reference names a Codex7 artifact in a registry: oci://HOST[:PORT]/REPO
// with a :TAG or an @sha256:DIGEST.
type Reference struct {
	ref registry.Reference
}

// IsReference reports whether s is meant as a registry reference (it
// starts with oci://), as opposed to a directory.
func IsReference(s string) bool { return strings.HasPrefix(s, Scheme) }

// ParseReference parses oci://HOST[:PORT]/REPO[:TAG|@DIGEST]; a reference
// with neither tag nor digest gets DefaultTag, one with an empty tag or
// digest after its ':' or '@' is an error. Errors wrap ErrReference, name
// the part that is wrong and say what it looks like.
func ParseReference(s string) (Reference, error) {
	if !IsReference(s) {
		return Reference{}, fmt.Errorf("%w %q: it must start with %s (e.g. oci://ghcr.io/acme/docs:latest)", ErrReference, s, Scheme)
	}
	raw := strings.TrimPrefix(s, Scheme)
	if err := credentialsIn(raw); err != nil {
		return Reference{}, err
	}
	if !strings.Contains(raw, "/") {
		return Reference{}, fmt.Errorf("%w %q: give a host and a repository, e.g. oci://ghcr.io/acme/docs:latest", ErrReference, s)
	}
	if why := referenceProblem(raw); why != "" {
		return Reference{}, fmt.Errorf("%w %q: %s", ErrReference, s, why)
	}
	ref, err := registry.ParseReference(raw)
	if err != nil {
		return Reference{}, fmt.Errorf("%w %q: %v", ErrReference, s, err)
	}
	if ref.Reference == "" {
		ref.Reference = DefaultTag
	}
	return Reference{ref: ref}, nil
}

// credentialsIn refuses raw, a reference without its scheme, when its
// host is preceded by user information (user:password@host, token@host),
// as in URLs that carry credentials. The error names the reference with
// that part left out: it goes to terminals and logs, which must never
// show a password.
func credentialsIn(raw string) error {
	host, _, _ := strings.Cut(raw, "/")
	i := strings.LastIndex(host, "@")
	if i < 0 || (registry.Reference{Registry: host[i+1:]}).ValidateRegistry() != nil {
		return nil // no host after an '@': not user information
	}
	without := raw[i+1:] // host is a prefix of raw
	return fmt.Errorf("%w %q: credentials do not go in the reference (it shows in logs): give %s%s, and set %s and %s or log in with 'docker login %s'",
		ErrReference, Scheme+"…@"+without, Scheme, without, EnvUsername, EnvPassword, host[i+1:])
}

// What the parts of a reference may be, as the OCI distribution spec has
// them, for messages.
const (
	tagForm        = "a tag is 1 to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-', e.g. v1.2.0 or latest"
	repositoryForm = "repository names are lowercase: letters a-z and digits, in parts separated by '.', '_', '__' or '-' and joined by '/', each part starting and ending with a letter or digit, e.g. acme/docs"
	digestForm     = "a digest is sha256: and 64 hex digits, as push prints"
)

// referenceProblem says what is wrong with raw, a reference without its
// scheme, split into host, repository and tag or digest as oras's
// registry.ParseReference splits it, and checked with its validators;
// "" when nothing is. It also refuses what that parser lets through as no
// tag at all: an empty tag or digest after the ':' or '@'.
func referenceProblem(raw string) string {
	host, path, _ := strings.Cut(raw, "/")
	repo := path
	var tag, digest string
	var hasTag, hasDigest bool
	if i := strings.Index(path, "@"); i >= 0 {
		repo, digest, hasDigest = path[:i], path[i+1:], true
		if j := strings.Index(repo, ":"); j >= 0 {
			repo = repo[:j] // a tag beside a digest is dropped
		}
	} else if i := strings.Index(path, ":"); i >= 0 {
		repo, tag, hasTag = path[:i], path[i+1:], true
	}
	switch {
	case (registry.Reference{Registry: host}).ValidateRegistry() != nil:
		return fmt.Sprintf("host %q is not HOST or HOST:PORT, e.g. ghcr.io or localhost:5000", host)
	case repo == "":
		return "give a repository after the host, e.g. oci://ghcr.io/acme/docs"
	case (registry.Reference{Repository: repo}).ValidateRepository() != nil:
		msg := fmt.Sprintf("repository %q is not allowed: %s", repo, repositoryForm)
		if lower := strings.ToLower(repo); lower != repo && (registry.Reference{Repository: lower}).ValidateRepository() == nil {
			msg += fmt.Sprintf(" (did you mean %s%s/%s%s?)", Scheme, host, lower, path[len(repo):])
		}
		return msg
	case hasTag && tag == "":
		return fmt.Sprintf("the tag after ':' is empty: give one, e.g. %s%s/%s:%s, or leave out the ':' for %s", Scheme, host, repo, DefaultTag, DefaultTag)
	case hasTag && CheckTag(tag) != nil:
		return fmt.Sprintf("tag %q is not allowed: %s", tag, tagForm)
	case hasDigest && digest == "":
		return "the digest after '@' is empty: " + digestForm
	case hasDigest && (registry.Reference{Reference: digest}).ValidateReferenceAsDigest() != nil:
		return fmt.Sprintf("digest %q is not allowed: %s", digest, digestForm)
	}
	return ""
}

// CheckTag returns an error wrapping ErrReference, saying what a tag looks
// like, when tag cannot be a tag in a registry; nil otherwise. Push checks
// its tags with it before it contacts the registry, so that a bad tag is
// refused before anything is uploaded.
func CheckTag(tag string) error {
	if err := (registry.Reference{Reference: tag}).ValidateReferenceAsTag(); err != nil {
		return fmt.Errorf("%w: tag %q is not allowed: %s", ErrReference, tag, tagForm)
	}
	return nil
}

// String returns the reference with its scheme, tag or digest.
func (r Reference) String() string { return Scheme + r.ref.String() }

// Host returns the registry's host[:port].
func (r Reference) Host() string { return r.ref.Registry }

// Repository returns the repository path within the registry.
func (r Reference) Repository() string { return r.ref.Repository }

// Tag returns the tag, or "" when the reference pins a digest.
func (r Reference) Tag() string {
	if r.IsDigest() {
		return ""
	}
	return r.ref.Reference
}

// IsDigest reports whether the reference pins a manifest digest.
func (r Reference) IsDigest() bool {
	_, err := r.ref.Digest()
	return err == nil
}

// WithDigest returns the reference pinned to the manifest digest dgst.
func (r Reference) WithDigest(dgst string) Reference {
	r.ref.Reference = dgst
	return r
}

// WithTag returns the reference with another tag.
func (r Reference) WithTag(tag string) Reference {
	r.ref.Reference = tag
	return r
}

// IsLoopback reports whether the registry is on this machine (localhost,
// 127.0.0.0/8 or ::1), where plain HTTP is implied.
func (r Reference) IsLoopback() bool {
	host := r.ref.Host()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CacheName returns a relative directory name for the reference, for a
// cache of pulled dists: readable, free of characters file systems
// refuse, and unique per reference (the readable part maps several
// characters to '_', so a hash of the whole reference follows it).
func (r Reference) CacheName() string {
	name := r.ref.Registry + "/" + r.ref.Repository + "/" + r.ref.Reference
	sum := sha256.Sum256([]byte(r.String()))
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			return c
		}
		return '_'
	}, name) + "-" + hex.EncodeToString(sum[:6])
}
