package search

import (
	"errors"
	"fmt"
	"strings"

	"github.com/codex7/codex7/index"
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
	// ErrTopicNotFound means a topic names nothing in the version's tree.
	ErrTopicNotFound = errors.New("topic not found")
	// ErrDocumentNotFound means no document or folder has that path.
	ErrDocumentNotFound = errors.New("document not found")
	// ErrPageNotFound means a page past the last one of an answer.
	ErrPageNotFound = errors.New("page not found")
	// ErrNotReady means the engine has no catalog yet (the artifact
	// directory is empty or still being published).
	ErrNotReady = errors.New("no artifacts loaded yet")
	// ErrConflict means two sources (artifact directories or registry
	// references) hold the same library: it is served from neither until
	// one of them drops it, never silently picked.
	ErrConflict = errors.New("library served by two sources")
	// ErrClosed means the engine was closed: it serves and loads nothing.
	ErrClosed = errors.New("search engine closed")
	// ErrEmptyQuery means a search had neither query text nor topics to go
	// on (or only a placeholder such as "<relevant topic>"). It is
	// index.ErrEmptyQuery, so that callers need not import index.
	ErrEmptyQuery = index.ErrEmptyQuery
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

// TopicError is ErrTopicNotFound with the topics that exist.
type TopicError struct {
	Topics    []string
	Available []string
}

func (e *TopicError) Error() string {
	return fmt.Sprintf("%s: %s; this version has: %s", ErrTopicNotFound, strings.Join(e.Topics, ", "), strings.Join(e.Available, ", "))
}

func (e *TopicError) Unwrap() error { return ErrTopicNotFound }

// DocumentError is ErrDocumentNotFound with the closest paths that exist.
type DocumentError struct {
	Path    string
	Closest []string
}

func (e *DocumentError) Error() string {
	msg := fmt.Sprintf("%s: %q", ErrDocumentNotFound, e.Path)
	if len(e.Closest) > 0 {
		msg += "; did you mean: " + strings.Join(e.Closest, ", ")
	}
	return msg
}

func (e *DocumentError) Unwrap() error { return ErrDocumentNotFound }
