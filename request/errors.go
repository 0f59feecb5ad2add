package request

import "errors"

// Errors callers branch on (errors.Is): each means the request itself is
// wrong, whatever is served; the wrapping error says what and how to fix
// it.
var (
	// ErrInvalidKey means a library id cannot be read as "/org/project",
	// "/org/project@version", a GitHub or context7.com URL, or a bare
	// library name. The wrapping error says what was wrong and which forms
	// to use instead.
	ErrInvalidKey = errors.New("invalid library id")
	// ErrInvalidPath means a path that could leave the library: absolute,
	// with "..", backslashes or control characters.
	ErrInvalidPath = errors.New("invalid path")
	// ErrInvalidMode means a mode other than "info" or "code".
	ErrInvalidMode = errors.New(`invalid mode: use "info" (prose) or "code" (examples)`)
	// ErrInvalidRequest means a parameter out of its limits (a query too
	// long, too many topics); the error names the limit.
	ErrInvalidRequest = errors.New("invalid request")
)
