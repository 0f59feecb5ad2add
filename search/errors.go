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
	// ErrTopicNotFound means a topic names nothing in the version's tree.
	ErrTopicNotFound = errors.New("topic not found")
	// ErrDocumentNotFound means no document or folder has that path.
	ErrDocumentNotFound = errors.New("document not found")
	// ErrPageNotFound means a page past the last one of an answer.
	ErrPageNotFound = errors.New("page not found")
	// ErrEmptyQuery means a search had neither query text nor topics to go
	// on (or only a placeholder such as "<relevant topic>"). It is
	// index.ErrEmptyQuery, so that callers need not import index.
	ErrEmptyQuery = index.ErrEmptyQuery
)

// OverviewQuery is the question asked for a library's general
// documentation, when a caller gives no question: Context7's docs without
// a topic, which agents call as they would Context7's.
const OverviewQuery = "overview introduction getting started installation usage"

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
