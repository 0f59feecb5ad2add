package search

import (
	"testing"

	"github.com/codex7/codex7/artifacts"
)

func TestNormalizeQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cors", "cors"},
		{`"useMemo"`, "useMemo"},
		{"user_id", "user_id user id"}, // the identifier whole, and its words
		{"partial-pre-rendering", "partial-pre-rendering partial pre rendering"},
		{"<relevant topic>", ""},
		{"GET /users/me returns 422", "GET /users/me returns 422"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := normalizeQuery(tt.in); got != tt.want {
				t.Errorf("normalizeQuery(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWithoutFiller(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how can I change the port", "how I change the port"}, // stop words are the index's job
		{"it doesnt reload, just hangs", "it reload, hangs"},
		{"it doesn’t reload", "it doesn't reload"}, // a stop word once the apostrophe is plain
		{"please show an example", "show an example"},
		{"histogram vs summary", "histogram summary"},
		{"can", "can"},                 // one word: nothing else to search for
		{"just please", "just please"}, // all filler: keep the question
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := withoutFiller(tt.in); got != tt.want {
				t.Errorf("withoutFiller(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPrepareQuery(t *testing.T) {
	lib := &artifacts.CatalogLib{Library: artifacts.Library{ID: "/vitejs/vite", Title: "Vite"}}
	if got, want := prepareQuery("why doesnt vite reload my config", lib), "why reload my config"; got != want {
		t.Errorf("prepareQuery = %q, want %q", got, want)
	}
}
