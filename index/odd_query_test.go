package index

import (
	"context"
	"strings"
	"testing"
)

func TestOddQueries(t *testing.T) {
	r, err := Open(writeIndex(t, testEntries()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, text := range []string{
		strings.Repeat("a", 4000),
		strings.Repeat("origins", 500),
		strings.Repeat("ж", 2000),
		strings.Repeat("é", 1500),
		strings.Repeat("abcdefghijklmnopqrstuvwxyz", 150),
		"the of and", "?!?!...", "🙂🙂", "\u0000", "origin " + strings.Repeat("x ", 2000),
	} {
		_, n, err := r.SearchCount(context.Background(), Query{Text: text})
		t.Logf("%d bytes %q...: n=%d err=%v", len(text), text[:min(len(text), 12)], n, err)
		if err != nil {
			t.Errorf("query of %d bytes: %v", len(text), err)
		}
	}
}
