package oci

import "errors"

// Errors callers branch on. Each error this package returns wraps at most
// one of them and names the reference.
var (
	// ErrReference means a reference is not oci://HOST/REPO[:TAG|@DIGEST].
	ErrReference = errors.New("bad registry reference")
	// ErrUnreachable means the registry could not be reached or spoken
	// to: down, a network problem, or TLS that does not verify.
	ErrUnreachable = errors.New("registry unreachable")
	// ErrUnauthorized means the registry refused the credentials, or
	// wanted some and got none.
	ErrUnauthorized = errors.New("registry refused the credentials")
	// ErrNotFound means the repository or tag does not exist. A blob
	// that a manifest lists and the registry lost is ErrRegistry: the
	// artifact exists, and is to be pushed again.
	ErrNotFound = errors.New("no such artifact in the registry")
	// ErrRegistry is any other error the registry answered with.
	ErrRegistry = errors.New("registry error")
	// ErrInvalid means what the registry holds at the reference is not a
	// sound Codex7 artifact: another kind of artifact, a manifest naming
	// a version twice or a path outside the dist, a catalog that does not
	// match the layers.
	ErrInvalid = errors.New("not a valid Codex7 artifact")
	// ErrDigest means a blob's bytes do not match its digest.
	ErrDigest = errors.New("content does not match its digest")
	// ErrBadDist means a local dist fails verification and is not pushed.
	ErrBadDist = errors.New("artifact directory fails verification")
)
