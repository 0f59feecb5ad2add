package catalog

import (
	"errors"
	"fmt"
	"strings"
)

// Errors callers branch on (errors.Is); the errors returned also say what
// exists, for messages to agents.
var (
	// ErrLibraryNotFound means no built library matches the id.
	ErrLibraryNotFound = errors.New("library not found")
	// ErrVersionNotFound means the library exists but not at that version.
	ErrVersionNotFound = errors.New("version not found")
	// ErrVersionUnavailable means the version is built but this server
	// refused it (a damaged or unreadable artifact); the error says why.
	ErrVersionUnavailable = errors.New("version unavailable")
	// ErrNotReady means the engine has no catalog yet (the artifact
	// directory is empty or still being published).
	ErrNotReady = errors.New("no artifacts loaded yet")
	// ErrConflict means two sources (artifact directories or registry
	// references) hold the same library: it is served from neither until
	// one of them drops it, never silently picked.
	ErrConflict = errors.New("library served by two sources")
	// ErrClosed means the engine was closed: it serves and loads nothing.
	ErrClosed = errors.New("search engine closed")
	// ErrStale means a version directory changed on disk after its
	// manifest was loaded: a build republished it. Loader.With reloads
	// and retries; callers outside it see it only when retries ran out.
	ErrStale = errors.New("version directory republished since the catalog was loaded")
)

// LibraryError is ErrLibraryNotFound with the closest ids that exist.
type LibraryError struct {
	Key     string
	Closest []string
}

func (e *LibraryError) Error() string {
	msg := fmt.Sprintf("%s: %q", ErrLibraryNotFound, e.Key)
	if len(e.Closest) > 0 {
		msg += "; closest: " + strings.Join(e.Closest, ", ")
	}
	return msg
}

func (e *LibraryError) Unwrap() error { return ErrLibraryNotFound }

// VersionError is ErrVersionNotFound (or, with Cause set,
// ErrVersionUnavailable) with the versions that can be served.
type VersionError struct {
	Library, Version string
	Available        []string
	// Reason says, for people, why a built version is not served. Paths in
	// it are relative to the version directory: no server path reaches an
	// agent. Empty when the version was never built.
	Reason string
	// Cause is the error behind Reason, for errors.Is: it wraps
	// artifacts.ErrChecksum, ErrMissing, ErrFormatVersion, ErrCorrupt or
	// index.ErrCorruptStore when the version is refused for damage, or an
	// operating system error when it could not be opened this time (the
	// next request tries again). nil when the version was never built.
	Cause error
	// Passing says the version could not be read this time for a reason
	// that passes (the process short of file descriptors or memory): it
	// is not refused, and the next request tries again.
	Passing bool
}

func (e *VersionError) Error() string {
	avail := strings.Join(e.Available, ", ")
	if avail == "" {
		avail = "none"
	}
	if e.unavailable() {
		why := e.Reason
		if why == "" {
			why = e.Cause.Error()
		}
		if e.Passing {
			return fmt.Sprintf("%s: %s@%s could not be read just now (%s): try again in a moment", ErrVersionUnavailable, e.Library, e.Version, why)
		}
		return fmt.Sprintf("%s: %s@%s is not served (%s); versions served: %s", ErrVersionUnavailable, e.Library, e.Version, why, avail)
	}
	return fmt.Sprintf("%s: %s has no version %q; built versions: %s", ErrVersionNotFound, e.Library, e.Version, avail)
}

// Unwrap returns ErrVersionUnavailable and the cause for a version built
// but not served, ErrVersionNotFound for one never built.
func (e *VersionError) Unwrap() []error {
	switch {
	case e.Cause != nil:
		return []error{ErrVersionUnavailable, e.Cause}
	case e.Reason != "":
		return []error{ErrVersionUnavailable}
	}
	return []error{ErrVersionNotFound}
}

func (e *VersionError) unavailable() bool { return e.Cause != nil || e.Reason != "" }
