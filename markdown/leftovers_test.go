package markdown

import (
	"fmt"
	"os"
	"regexp"
	"testing"
)

func TestLeftovers(t *testing.T) {
	if os.Getenv("LEFT") == "" {
		t.Skip()
	}
	re := regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9]*[ />]|\{/\*|\{\{[<%]|^:::|^///|^import |^export `)
	for _, repo := range corpusRepos(t) {
		if repo == "tldr-pages__tldr" {
			continue
		}
		n := 0
		for _, f := range corpusFiles(t, repo) {
			src, _ := os.ReadFile(f.path)
			doc, err := Split(f.rel, src, DefaultOptions())
			if err != nil {
				continue
			}
			for _, s := range doc.Sections {
				if m := re.FindString(s.Prose); m != "" {
					n++
					if n <= 6 {
						i := re.FindStringIndex(s.Prose)[0]
						fmt.Printf("%s %s L%d: %q in ...%q\n", repo, f.rel, s.Line, m, s.Prose[max(0, i-60):min(len(s.Prose), i+60)])
					}
				}
			}
		}
		fmt.Println(repo, "sections with leftovers:", n)
	}
}
