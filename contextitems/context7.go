package contextitems

import (
	"context"
	"errors"
	"fmt"

	"github.com/codex7/codex7/context7"
)

// Context7 adapts a Context7 client to Remote, for libraries the local
// artifacts lack.
type Context7 struct {
	Client *context7.Client
}

// Resolve returns the id of Context7's best match for name.
func (c Context7) Resolve(ctx context.Context, name, query string) (string, error) {
	res, err := c.Client.Search(ctx, name, query)
	if errors.Is(err, context7.ErrNotFound) {
		return "", fmt.Errorf("%w: %w", ErrUnknownLibrary, err)
	}
	if err != nil {
		return "", err
	}
	if len(res.Libraries) == 0 {
		return "", fmt.Errorf("%w: Context7 has no library named %q", ErrUnknownLibrary, name)
	}
	return res.Libraries[0].ID, nil
}

// Docs returns the library's best snippets for topic, code examples with
// their explanations first when there are any, within tokens.
func (c Context7) Docs(ctx context.Context, libraryID, topic string, tokens int) ([]Snippet, error) {
	doc, err := c.Client.Doc(ctx, context7.DocRequest{LibraryKey: libraryID, Topic: topic, Mode: "code", Tokens: tokens})
	if err == nil && len(doc.Snippets) == 0 {
		doc, err = c.Client.Doc(ctx, context7.DocRequest{LibraryKey: libraryID, Topic: topic, Mode: "info", Tokens: tokens})
	}
	if err != nil {
		return nil, err
	}
	out := make([]Snippet, 0, len(doc.Snippets))
	for _, s := range doc.Snippets {
		out = append(out, Snippet{Title: s.Title, Text: s.Text, URL: s.Source, Version: doc.Version})
	}
	return out, nil
}
