package pipeline

import (
	"sort"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/links"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/tokens"
	"github.com/codex7/codex7/topics"
)

// tidyShown mends the sections' text, which agents read, where the
// readers could not: links whose text is only their target get the title
// of what they point at (links.Retitles), headings lose their {#id}s and
// code fences their renderers' settings and unresolved includes
// (markdown.Tidy). It counts
// the tokens of what changed again. The prose indexed, and the link
// texts (Inbound's), stay as the readers wrote them.
func tidyShown(docs []*markdown.Document) {
	retitles := links.Retitles(docs)
	for i, d := range docs {
		for k := range d.Sections {
			s := &d.Sections[k]
			text := markdown.Tidy(s.Text)
			if retitles[i] != nil {
				text = retitle(text, retitles[i][k])
			}
			if text == s.Text {
				continue
			}
			s.Text = text
			n := tokens.Count(text)
			d.Tokens += n - s.Tokens
			s.Tokens = n
		}
	}
}

// retitle gives text the titles rs list: each Retitle's Old, from the
// left, becomes its New once, as strings.Replace(text, Old, New, 1) for
// each in turn would. It reads text once: a section of many such links
// (a hostile page holds 100,000 on one line, which no chunking splits)
// costs its length, where a Replace per link cost the length for each
// link and stalled the build for minutes.
func retitle(text string, rs []links.Retitle) string {
	if len(rs) == 0 {
		return text
	}
	// An Old is "[label](target)": it is found where a "[" is followed
	// by its label up to the first "](", which is also where that "]("
	// falls in the text.
	type pending struct {
		new string
		n   int
	}
	byOld := make(map[string]*pending, len(rs))
	byLabel := map[string][]string{} // label → the Olds with it
	lengths := map[int]bool{}        // the labels' lengths
	for _, r := range rs {
		if p := byOld[r.Old]; p != nil {
			p.n++
			continue
		}
		end := strings.Index(r.Old, "](")
		if !strings.HasPrefix(r.Old, "[") || end < 0 {
			continue
		}
		byOld[r.Old] = &pending{new: r.New, n: 1}
		label := r.Old[1:end]
		byLabel[label] = append(byLabel[label], r.Old)
		lengths[len(label)] = true
	}
	var b strings.Builder
	last, next := 0, -1 // next is where the first "](" after the "[" at p lies
	for p := 0; p < len(text); {
		i := strings.IndexByte(text[p:], '[')
		if i < 0 {
			break
		}
		p += i
		if next < p+1 {
			j := strings.Index(text[p+1:], "](")
			if j < 0 {
				break
			}
			next = p + 1 + j
		}
		matched := false
		if lengths[next-p-1] {
			for _, old := range byLabel[text[p+1:next]] {
				if q := byOld[old]; q.n > 0 && strings.HasPrefix(text[p:], old) {
					b.WriteString(text[last:p])
					b.WriteString(q.new)
					q.n--
					p += len(old)
					last, matched = p, true
					break
				}
			}
		}
		if !matched {
			p++
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// Assemble derives the topic tree of docs, tags their sections, gives each
// section the texts of the links to it (links.Inbound), and lays
// out what a version directory holds besides its manifest: the index
// entries in document order and the documents.json listing. nav, the
// sites' own navigation, names and orders the categories it declares and
// places documents in the listing. The caller fills in the manifest. It
// keeps docs, which must not change afterwards.
func Assemble(docs []*markdown.Document, overrides []config.TopicOverride, nav Navigation) (*artifacts.Version, error) {
	topicOpts := topics.DefaultOptions()
	topicOpts.Overrides = overrides
	topicOpts.Folders = nav.Folders
	tree, tags, err := topics.Build(docs, topicOpts)
	if err != nil {
		return nil, err
	}
	v := &artifacts.Version{Topics: tree, Documents: []artifacts.DocumentInfo{}}
	inbound := links.Inbound(docs)
	tidyShown(docs)
	translated := topics.Translations(docs)
	for i, d := range docs {
		info := artifacts.DocumentInfo{Path: d.Path, Title: d.Title, Description: d.Description, Tokens: d.Tokens, Nav: nav.Order[d.Path], Outline: []artifacts.Outline{}}
		docTopics := map[string]bool{}
		for k := range d.Sections {
			s := &d.Sections[k]
			v.Entries = append(v.Entries, index.Entry{Path: d.Path, Section: s, Topics: tags[i][k], Inbound: inbound[i][k], Translation: translated[i]})
			for _, t := range tags[i][k] {
				docTopics[t] = true
			}
			if s.Part == 0 {
				info.Outline = append(info.Outline, artifacts.Outline{Anchor: s.Anchor, Title: s.Title, Level: s.Level, Line: s.Line, Tokens: s.Tokens, Inner: s.InnerAnchors, Source: s.Source})
			} else if n := len(info.Outline); n > 0 {
				info.Outline[n-1].Tokens += s.Tokens
			}
		}
		for t := range docTopics {
			info.Topics = append(info.Topics, t)
		}
		sort.Strings(info.Topics)
		v.Documents = append(v.Documents, info)
	}
	return v, nil
}
