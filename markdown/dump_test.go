package markdown

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(p)
	doc, err := Split(p, src, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("TITLE %q desc=%q tags=%q order=%d tokens=%d\n", doc.Title, doc.Description, doc.Tags, doc.Order, doc.Tokens)
	for i, s := range doc.Sections {
		fmt.Printf("=== [%d] L%d lvl=%d parent=%d part=%d/%d anchor=%q heading=%q title=%q path=%q tokens=%d\n", i, s.Line, s.Level, s.Parent, s.Part, s.Parts, s.Anchor, s.Heading, s.Title, s.HeadingPath, s.Tokens)
		if os.Getenv("FULL") != "" {
			fmt.Println(s.Text)
			fmt.Println("--- prose:", s.Prose)
			for _, c := range s.Code {
				fmt.Printf("--- code %q: %q\n", c.Lang, c.Code[:min(len(c.Code), 80)])
			}
			fmt.Println("--- inline:", strings.Join(s.InlineCode, " | "))
		}
	}
}
