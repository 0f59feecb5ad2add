package markdown

import (
	"slices"
	"testing"
)

// TestHeadingBadges checks that a heading carrying inline HTML, such as
// Vue's version badges, keeps its text and drops the markup in its title,
// heading path, text and anchor.
func TestHeadingBadges(t *testing.T) {
	src := "# API\n\n## useId() <sup class=\"vt-badge\" data-text=\"3.5+\" />\n\nReturns an id.\n\n### Details <Badge text=\"new\"/>\n\nMore.\n\n## x<sup>2</sup>\n\nSquares.\n"
	d, err := Split("api.md", []byte(src), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	byTitle := map[string]Section{}
	for _, s := range d.Sections {
		byTitle[s.Title] = s
	}
	s, ok := byTitle["useId()"]
	if !ok {
		t.Fatalf("no section titled useId(): %+v", d.Sections)
	}
	if s.Anchor != "useid" || s.Text[:len("## useId()")] != "## useId()" || !slices.Equal(s.HeadingPath, []string{"API", "useId()"}) {
		t.Errorf("useId(): anchor %q, text %q, path %q", s.Anchor, s.Text, s.HeadingPath)
	}
	if s, ok := byTitle["Details"]; !ok || !slices.Equal(s.HeadingPath, []string{"API", "useId()", "Details"}) {
		t.Errorf("Details: %+v", s)
	}
	if _, ok := byTitle["x^2"]; !ok {
		t.Errorf("a <sup> with content lost its caret: %+v", d.Sections)
	}
}
