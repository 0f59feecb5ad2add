package index

import (
	"regexp"
	"strings"

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
	// FlagTranslation marks a section of a translation (docs/ru/ beside
	// docs/en/, see topics.Translations): a translated page keeps the
	// original's code and identifiers, so it matched an English question
	// as well as the original did and pushed other answers down. A
	// question in the translation's language still finds it, by words
	// the original does not have.
	FlagTranslation = "translation"
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
	{FlagTranslation, 0.5},
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
