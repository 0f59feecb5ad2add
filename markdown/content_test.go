package markdown

import (
	"reflect"
	"testing"
)

func TestSectionLinks(t *testing.T) {
	src := "# Guide\n\nSee [the *base* option](/config/#base \"title\") and [aliases][al].\n\n" +
		"## Images\n\n![logo](logo.png), <https://example.com/bare>, `[not](a-link)`\n\n" +
		"```md\n[in code](x.md)\n```\n\n[![badge](b.svg) Build](ci.md#status)\n\n" +
		"## Empty\n\n[](nothing.md) and [`resolve.alias`](./options.md#resolve-alias).\n\n" +
		"[al]: shared-options.md#resolve-alias\n"
	doc := mustSplit(t, "guide.md", src)
	got := map[string][]Link{}
	for _, s := range doc.Sections {
		got[s.Title] = s.Links
	}
	want := map[string][]Link{
		"Guide":  {{Text: "the base option", Target: "/config/#base"}, {Text: "aliases", Target: "shared-options.md#resolve-alias"}},
		"Images": {{Text: "badge Build", Target: "ci.md#status"}},
		"Empty":  {{Text: "resolve.alias", Target: "./options.md#resolve-alias"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %q\nwant %q", got, want)
	}
}

// TestSectionLinkTargetsUnescaped checks that a link's target is its
// destination as markdown reads it: backslash escapes and character
// references resolved, as a browser gets them.
func TestSectionLinkTargetsUnescaped(t *testing.T) {
	src := "# Guide\n\n[escaped](my\\_options.md#a\\(b\\)), [entity](a&amp;b.md), [numeric](&#x2F;api) and [ref][r].\n\n[r]: ref\\_x.md\n"
	doc := mustSplit(t, "guide.md", src)
	want := []Link{{"escaped", "my_options.md#a(b)"}, {"entity", "a&b.md"}, {"numeric", "/api"}, {"ref", "ref_x.md"}}
	if got := doc.Sections[0].Links; !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %q\nwant %q", got, want)
	}
}
