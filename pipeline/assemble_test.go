package pipeline

import (
	"testing"

	"github.com/codex7/codex7/markdown"
)

// TestAssembleGivesInboundLinks checks that each index entry carries the
// texts of the links other documents point at its section with.
func TestAssembleGivesInboundLinks(t *testing.T) {
	split := func(path, src string) *markdown.Document {
		d, err := markdown.Split(path, []byte(src), markdown.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	docs := []*markdown.Document{
		split("docs/config.md", "# Config\n\nAll options.\n\n## base\n\nThe public path.\n"),
		split("docs/guide.md", "# Guide\n\nServe it from [a nested public path](config.md#base) or [anywhere](./config).\n"),
	}
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range v.Entries {
		got[e.Path+"#"+e.Section.Anchor] = e.Inbound
	}
	want := map[string]string{"docs/config.md#config": "anywhere", "docs/config.md#base": "a nested public path", "docs/guide.md#guide": ""}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: inbound %q, want %q", id, got[id], w)
		}
	}
}
