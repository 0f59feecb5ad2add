package request

import (
	"errors"
	"testing"
)

// TestCleanPath checks the normalization of the path argument, which
// agents on Windows write with backslashes. It needs no file system, so it
// runs the same on every OS.
func TestCleanPath(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"", ".", false},
		{"./", ".", false},
		{".", ".", false},
		{"docs/guide.md", "docs/guide.md", false},
		{"./docs//guide.md", "docs/guide.md", false},
		{" 'docs/guide.md' ", "docs/guide.md", false},
		// What trimming exposes is trimmed too: the result is a fixed point.
		{"' docs/guide.md'", "docs/guide.md", false},
		{"/'docs/guide.md'", "docs/guide.md", false},
		{`'/'\`, ".", false},
		{"'/'../x.md", "", true},
		{"docs/api/", "docs/api", false},
		{`docs\guide.md`, "docs/guide.md", false},
		{`.\docs\\api\`, "docs/api", false},
		{`docs\api/guide.md`, "docs/api/guide.md", false},
		{`.\`, ".", false},
		{"../x.md", "", true},
		{`..\x.md`, "", true},
		{`docs\..\..\x.md`, "", true},
		// A site's absolute link is read from the repository's root.
		{"/etc/passwd", "etc/passwd", false},
		{"/docs/modules/api/pages/index.adoc", "docs/modules/api/pages/index.adoc", false},
		{"/", ".", false},
		{"//server/share/x.md", "", true},
		{`\etc\passwd`, "", true},
		{`\\server\share\x.md`, "", true},
		{`C:\Windows\win.ini`, "", true},
		{"C:/x.md", "", true},
		{"docs/\x00.md", "", true},
		{"docs/\x1b[2J.md", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := CleanPath(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidPath) {
					t.Errorf("CleanPath(%q) = %q, %v; want ErrInvalidPath", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CleanPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
