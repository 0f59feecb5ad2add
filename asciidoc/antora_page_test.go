package asciidoc

import "testing"

func TestNotPage(t *testing.T) {
	for p, page := range map[string]bool{
		"docs/modules/ROOT/pages/install.adoc":  true,
		"docs/modules/ROOT/partials/intro.adoc": false,
		"docs/modules/api/examples/sample.adoc": false,
		"docs/modules/ROOT/nav.adoc":            false,
		"docs/modules/ROOT/pages/nav-bar.adoc":  true,
		"docs/partials/not-antora.adoc":         true,
		"modules/ROOT/partials/x.adoc":          false,
	} {
		if got := NotPage(p) == ""; got != page {
			t.Errorf("NotPage(%s) = %q: page %v, want %v", p, NotPage(p), got, page)
		}
	}
}
