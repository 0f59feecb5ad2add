package catalog

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
)

// TestPermanent checks which failures refuse a version for as long as its
// manifest is unchanged: damage, and an index the ranker cannot read
// (index.ErrUnrankable: a bluge or ice upgrade segment.go does not cover),
// which would otherwise be opened again, and fail, at every request.
func TestPermanent(t *testing.T) {
	tests := []struct {
		err       error
		verifying bool
		want      bool
	}{
		{fmt.Errorf("sections.bin: %w", artifacts.ErrChecksum), false, true},
		{fmt.Errorf("open index: %w: 2 segments", index.ErrUnrankable), false, true},
		{fmt.Errorf("open index: %w: block 3", index.ErrCorruptStore), false, true},
		{fmt.Errorf("manifest.json: %w", artifacts.ErrFormatVersion), false, true},
		{fmt.Errorf("topics.json: %w", artifacts.ErrMissing), true, true},
		{fmt.Errorf("topics.json: %w", artifacts.ErrMissing), false, false},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EMFILE}, false, false},
	}
	for _, tt := range tests {
		if got := permanent(tt.err, tt.verifying); got != tt.want {
			t.Errorf("permanent(%v, verifying %v) = %v, want %v", tt.err, tt.verifying, got, tt.want)
		}
	}
}
