package index

import (
	"regexp"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"

	"github.com/codex7/codex7/markdown"
)

// Flags of a section that lower its rank whatever the query (FieldFlags).
const (
	// FlagChangelog marks release notes and changelogs: they mention every
	// feature in passing, once per release, and rarely explain one.
	FlagChangelog = "changelog"
	// FlagBlog marks blog posts and announcements: they explain features
	// as they were when announced, the reference explains them as they are.
	FlagBlog = "blog"
	// FlagStub marks a section with nothing but its heading (its content
	// is in its subsections): a pointer, not an answer.
	FlagStub = "stub"
	// FlagIntro marks a document's introduction, the section headed by the
	// document title itself. Every section of the document has that title
	// in its heading path, but the introduction also has it as its own
	// heading, so it matched any question about the document's subject by
	// the title alone and outranked the section that answers it.
	FlagIntro = "intro"
)

// priors are the factors a flagged section's score is multiplied by.
var priors = []struct {
	flag   string
	factor float64
}{
	{FlagChangelog, 0.5},
	{FlagBlog, 0.7},
	{FlagStub, 0.5},
	{FlagIntro, 0.7},
}

var (
	// changelogPath matches a changelog or release notes document name.
	changelogPath = regexp.MustCompile(`(?i)(^|[/_.-])(change-?logs?|release-?notes)([/_.-]|$)`)
	// changelogTitle matches a changelog's document title.
	changelogTitle = regexp.MustCompile(`(?i)^\W*(change ?log|release notes)\W*$`)
	// blogPath matches a folder of blog posts or announcements.
	blogPath = regexp.MustCompile(`(?i)(^|/)(blog|blogs|posts|news|announcements)/`)
	// versionHeading matches a heading that names a release: "0.93.0",
	// "v5.1.0 (2024-01-02)", "[1.2.0] - 2024-01-02", "Version 2.1".
	versionHeading = regexp.MustCompile(`(?i)^\W*(v|version\s+)?\d+\.\d+(\.\d+)?([-+.\w]*)?\W*(\s*[-–(]?\s*\d{4}-\d{2}-\d{2}\)?)?\s*$`)
)

// sectionFlags returns the flags of a section of the document at path.
func sectionFlags(path string, s *markdown.Section) []string {
	var flags []string
	changelog := changelogPath.MatchString(path) || (len(s.HeadingPath) > 0 && changelogTitle.MatchString(s.HeadingPath[0]))
	for _, h := range s.HeadingPath {
		changelog = changelog || versionHeading.MatchString(h)
	}
	if changelog {
		flags = append(flags, FlagChangelog)
	}
	if blogPath.MatchString(path) {
		flags = append(flags, FlagBlog)
	}
	if s.Part == 0 && len(s.Code) == 0 && strings.TrimSpace(strings.TrimPrefix(s.Prose, s.Title)) == "" {
		flags = append(flags, FlagStub)
	}
	if s.Part == 0 && len(s.HeadingPath) <= 1 {
		flags = append(flags, FlagIntro)
	}
	return flags
}

// priorQuery ranks by q with the priors of flagged sections applied.
type priorQuery struct{ q bluge.Query }

// Searcher implements bluge.Query.
func (p priorQuery) Searcher(r search.Reader, options search.SearcherOptions) (search.Searcher, error) {
	s, err := p.q.Searcher(r, options)
	if err != nil {
		return nil, err
	}
	return withPriors(r, s, options)
}

// withPriors wraps s so that the score of each document it matches is
// multiplied by the factor of each flag the document has. It reads one
// postings list per flag alongside s, so it costs about as much as one
// more query term.
func withPriors(r search.Reader, s search.Searcher, options search.SearcherOptions) (search.Searcher, error) {
	p := &priorSearcher{Searcher: s}
	for _, pr := range priors {
		fs, err := searcher.NewTermSearcher(r, pr.flag, FieldFlags, 1, constant{}, options)
		if err != nil {
			p.Close()
			return nil, err
		}
		if fs.Count() == 0 {
			_ = fs.Close()
			continue
		}
		p.flags = append(p.flags, flagCursor{s: fs, flag: pr.flag, factor: pr.factor})
	}
	if len(p.flags) == 0 {
		return s, nil
	}
	return p, nil
}

// priorSearcher is withPriors' searcher. Like every bluge searcher it is
// used by one goroutine.
type priorSearcher struct {
	search.Searcher
	flags []flagCursor
}

// flagCursor walks the documents of one flag in order.
type flagCursor struct {
	s      search.Searcher
	flag   string
	factor float64
	cur    *search.DocumentMatch
	done   bool
}

func (p *priorSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	m, err := p.Searcher.Next(ctx)
	if err != nil || m == nil {
		return m, err
	}
	return m, p.apply(ctx, m)
}

func (p *priorSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	m, err := p.Searcher.Advance(ctx, number)
	if err != nil || m == nil {
		return m, err
	}
	return m, p.apply(ctx, m)
}

// apply multiplies m's score by the factors of the flags m has. Documents
// come in increasing number, so each flag's cursor only moves forward.
func (p *priorSearcher) apply(ctx *search.Context, m *search.DocumentMatch) error {
	for i := range p.flags {
		f := &p.flags[i]
		if f.done || (f.cur != nil && f.cur.Number > m.Number) {
			continue
		}
		if f.cur == nil || f.cur.Number < m.Number {
			if f.cur != nil {
				ctx.DocumentMatchPool.Put(f.cur)
			}
			next, err := f.s.Advance(ctx, m.Number)
			if err != nil {
				return err
			}
			f.cur = next
			if next == nil {
				f.done = true
				continue
			}
		}
		if f.cur.Number == m.Number {
			m.Score *= f.factor
			if m.Explanation != nil {
				m.Explanation = search.NewExplanation(m.Score, "prior "+f.flag, m.Explanation)
			}
		}
	}
	return nil
}

func (p *priorSearcher) Close() error {
	err := p.Searcher.Close()
	for _, f := range p.flags {
		if cerr := f.s.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func (p *priorSearcher) DocumentMatchPoolSize() int {
	return p.Searcher.DocumentMatchPoolSize() + len(p.flags)
}

// constant scores a flag's postings: only their document numbers matter.
type constant struct{}

func (constant) Score(int, float64) float64 { return 0 }

func (constant) Explain(int, float64) *search.Explanation {
	return search.NewExplanation(0, "flag")
}
