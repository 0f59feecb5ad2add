package index

import (
	"context"
	"fmt"
	"testing"
)

// rank returns the 1-based rank of id in the results of text, 0 if absent.
func rank(t *testing.T, r *Reader, text, id string) int {
	t.Helper()
	hits, err := r.Search(context.Background(), Query{Text: text, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hits {
		if h.ID == id {
			return i + 1
		}
	}
	return 0
}

func TestBM25F(t *testing.T) {
	entries := []Entry{
		// One word everywhere: heading, heading path, body, path.
		{Path: "docs/path.md", Section: sec("path-parameters-and-paths", "Path parameters and paths", "A path parameter is a part of the path. Paths and path prefixes, path after path.")},
		// Several of the question's words, once each.
		{Path: "docs/params.md", Section: sec("predefined-values", "Predefined values", "Declare the allowed values of a path parameter with an Enum.")},
	}
	// Filler sections make "response" and "path" common and "email" rare.
	for i := range 30 {
		entries = append(entries, Entry{Path: fmt.Sprintf("docs/r%02d.md", i), Section: sec("response", fmt.Sprintf("Response %d", i), "Return a response from the path operation.")})
	}
	entries = append(entries, Entry{Path: "docs/tasks.md", Section: sec("send-email", "Background tasks", "Send an email after the request is done.")})
	// Words a question uses, in an example's variable names and in prose.
	entries = append(entries,
		Entry{Path: "docs/example.md", Section: sec("example", "Example", "A complete example.", "@app.post('/login')\ndef handler(user: User):\n    return user")},
		Entry{Path: "docs/accounts.md", Section: sec("accounts", "Accounts", "The user types a password at login.")})
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		name, query, want string
	}{
		{"distinct words beat one word repeated in every field", "path parameter allowed values enum", "docs/params.md#predefined-values"},
		{"a rare word outweighs a common one in the heading", "response email", "docs/tasks.md#send-email"},
		{"prose outweighs the same words as names in code", "user login", "docs/accounts.md#accounts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rank(t, r, tt.query, tt.want); got != 1 {
				t.Errorf("%q: %s ranks %d, want 1", tt.query, tt.want, got)
			}
		})
	}
}
