package request

import "context"

// Scope says which libraries a request may see. A library outside it is
// invisible: resolution, ranking, suggestions and refusals behave as if it
// did not exist, so that "not allowed" and "not there" give the same
// answer. Allows is called with a catalog library id ("/org/project") and
// must be safe for concurrent use, and give the same answer for the same
// scope value every time: a library index remembers what a scope sees
// (when the scope's type can be a map key, as a pointer can).
type Scope interface {
	Allows(libraryID string) bool
}

type scopeKey struct{}

// WithScope returns a context whose requests see only the libraries s
// allows. A context without a scope sees every library, as a local user
// on stdio does.
func WithScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeOf is the scope ctx carries, nil for none.
func ScopeOf(ctx context.Context) Scope {
	s, _ := ctx.Value(scopeKey{}).(Scope)
	return s
}

// Visible reports whether s lets a request see the library id; a nil
// scope sees all.
func Visible(s Scope, id string) bool {
	return s == nil || s.Allows(id)
}
