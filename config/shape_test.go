package config

import (
	"strings"
	"testing"
)

// TestPlainValuesSayHow: versions and topics written as plain values (as
// most tools list refs) get an error that shows the mapping to write.
func TestPlainValuesSayHow(t *testing.T) {
	src := lines(
		"libraries:",
		"  - id: /a/b",
		"    repo: https://github.com/org/repo",
		"    versions: [v1.0.0, main, \"release: 2\"]",
		"    topics: [Routing]",
	)
	_, err := parseString(t, src)
	if err == nil {
		t.Fatal("Parse accepted versions given as plain refs")
	}
	for _, want := range []string{"{ref: v1.0.0}", "{ref: main}", `{ref: "release: 2"}`, "{name: Routing,"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say how to write it (%s):\n%v", want, err)
		}
	}
}

// TestVersionNamesAgentsCanAskFor: a version is named so that agents can
// write it in a library id (/org/project@version): a ref's other
// characters become '-', and a name: with them is refused with one that
// works.
func TestVersionNamesAgentsCanAskFor(t *testing.T) {
	var l Library
	for ref, want := range map[string]string{
		"refs/tags/widgets@1.0.0": "widgets-1.0.0",
		"v1.1.0+docs":             "v1.1.0-docs",
		"release/1.x":             "release-1.x",
		"refs/heads/main":         "main",
		"v2.0.0-rc.1_b":           "v2.0.0-rc.1_b",
	} {
		if got := l.VersionName(Version{Ref: ref}); got != want {
			t.Errorf("VersionName(ref %q) = %q, want %q", ref, got, want)
		}
	}
	_, err := parseString(t, lines(
		"libraries:",
		"  - id: /a/b",
		"    repo: https://github.com/org/repo",
		"    versions: [{ref: widgets@1.0.0}, {ref: v2, name: \"v2+docs\"}]",
	))
	if err == nil || !strings.Contains(err.Error(), `"v2+docs" cannot be asked for`) || !strings.Contains(err.Error(), `"v2-docs"`) {
		t.Errorf("name: v2+docs: err = %v, want it refused with v2-docs suggested", err)
	}
	if err != nil && strings.Contains(err.Error(), "widgets@1.0.0") {
		t.Errorf("a ref with '@' and no name: was refused; its name is derived: %v", err)
	}
}
