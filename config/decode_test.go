package config

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestClaimLinear checks that matching the decoder's problems to the sites
// of a one-line config looks at each site about once, not once per
// problem: such a file of 1 MiB took minutes to refuse.
func TestClaimLinear(t *testing.T) {
	const n = 2_000
	src := "libraries: [" + strings.Repeat("{id: /a/b, repo: x, q: 1}, ", n) + "]\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	tr := newTree(root.Content[0])
	calls := 0
	for range n {
		s := tr.claim(1, func(s *site) bool {
			calls++
			return s.key && s.n.Value == "q"
		})
		if s == nil {
			t.Fatal("a q key was not found")
		}
	}
	if sites := len(tr.sites[1]); calls > 2*sites {
		t.Errorf("got %d calls of match for %d problems on a line of %d sites, want at most %d", calls, n, sites, 2*sites)
	}
}
