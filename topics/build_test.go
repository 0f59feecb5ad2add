package topics

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/markdown"
)

// doc makes a document whose sections are given as "level:title" strings.
func doc(p, title string, heads ...string) *markdown.Document {
	d := &markdown.Document{Path: p, Title: title}
	d.Sections = append(d.Sections, markdown.Section{Title: title, Level: 1, Parent: -1, Parts: 1, Tokens: 10, HeadingPath: []string{title}})
	parents := map[int]int{1: 0}
	for _, h := range heads {
		var level int
		var t string
		fmt.Sscanf(h[:1], "%d", &level)
		t = h[2:]
		parent := parents[level-1]
		hp := append(append([]string(nil), d.Sections[parent].HeadingPath...), t)
		d.Sections = append(d.Sections, markdown.Section{Title: t, Level: level, Parent: parent, Parts: 1, Tokens: 10, HeadingPath: hp})
		parents[level] = len(d.Sections) - 1
	}
	for _, s := range d.Sections {
		d.Tokens += s.Tokens
	}
	return d
}

func testDocs() []*markdown.Document {
	return []*markdown.Document{
		doc("docs/index.md", "Welcome", "2:Installation"),
		doc("docs/1.getting-started/configuration.md", "Configuration", "2:Environment variables", "3:Caveats"),
		doc("docs/1.getting-started/installation.md", "Install", "2:Installation", "2:Environment variables"),
		doc("docs/2.guide/routing/dynamic.md", "Dynamic routes", "2:Catch-all segments"),
		doc("docs/2.guide/routing/middleware.md", "Middleware", "2:Examples"),
		doc("docs/3.api/use-fetch.md", "useFetch", "2:Params", "2:Examples"),
	}
}

func TestBuildTree(t *testing.T) {
	tree, tags, err := Build(testDocs(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var cats []string
	for _, c := range tree.Categories {
		cats = append(cats, c.Slug)
	}
	// Folder order as written (ordering prefixes sort, then are stripped);
	// root documents form "overview".
	if want := []string{"overview", "getting-started", "guide", "api"}; !reflect.DeepEqual(cats, want) {
		t.Errorf("categories = %v, want %v", cats, want)
	}
	topics := map[string]Topic{}
	for _, c := range tree.Categories {
		for _, tp := range c.Topics {
			topics[tp.Slug] = tp
		}
	}
	for slug, source := range map[string]string{
		"routing":               SourceFolder,
		"configuration":         SourceDocument,
		"installation":          SourceHeading, // in two documents
		"environment-variables": SourceHeading,
		"usefetch":              SourceDocument,
	} {
		if tp, ok := topics[slug]; !ok || tp.Source != source {
			t.Errorf("topic %q = %+v, want source %s", slug, tp, source)
		}
	}
	for _, slug := range []string{"examples", "caveats", "getting-started", "catch-all-segments"} {
		if _, ok := topics[slug]; ok {
			t.Errorf("topic %q should not exist (generic, a category, or in one document only)", slug)
		}
	}
	// Every section carries its category; sections under a recurring
	// heading carry that topic, and so do their subsections.
	for i, d := range testDocs() {
		for j := range d.Sections {
			if len(tags[i][j]) == 0 {
				t.Errorf("%s section %d has no tags", d.Path, j)
			}
		}
	}
	if got := tags[1][2]; !slices.Contains(got, "environment-variables") || !slices.Contains(got, "getting-started") {
		t.Errorf("Caveats under Environment variables tagged %v", got)
	}
	if got := tags[3][1]; !slices.Contains(got, "routing") || !slices.Contains(got, "guide") {
		t.Errorf("dynamic routes section tagged %v", got)
	}
	if tp := topics["environment-variables"]; tp.Sections != 3 || tp.Tokens != 30 {
		t.Errorf("environment-variables counts = %+v, want 3 sections, 30 tokens", tp)
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	a, ta, _ := Build(testDocs(), DefaultOptions())
	for i := 0; i < 5; i++ {
		b, tb, _ := Build(testDocs(), DefaultOptions())
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ta, tb) {
			t.Fatal("two builds of the same documents differ")
		}
	}
}

func TestBuildCaps(t *testing.T) {
	var docs []*markdown.Document
	for c := 0; c < 15; c++ {
		for d := 0; d < 10; d++ {
			docs = append(docs, doc(fmt.Sprintf("c%02d/sub%d/page%d.md", c, d%3, d), fmt.Sprintf("Page %d %d", c, d)))
		}
	}
	tree, tags, err := Build(docs, Options{MaxCategories: 10, MaxTopics: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Categories) != 10 || tree.Categories[9].Slug != otherCategory {
		t.Errorf("got %d categories ending %q, want 10 ending in other", len(tree.Categories), tree.Categories[len(tree.Categories)-1].Slug)
	}
	n := 0
	for _, c := range tree.Categories {
		n += len(c.Topics)
	}
	if n > 40 {
		t.Errorf("%d topics, want at most 40", n)
	}
	sections := 0
	for _, c := range tree.Categories {
		sections += c.Sections
	}
	if sections != len(docs) || len(tags) != len(docs) {
		t.Errorf("categories cover %d sections, want %d", sections, len(docs))
	}
}

func TestOverrides(t *testing.T) {
	opts := DefaultOptions()
	opts.Overrides = []config.TopicOverride{
		{Name: "Routing", Category: "Core", Paths: []string{"docs/2.guide/routing/middleware.md"}},
		{Name: "Env", Headings: []string{"environment"}},
	}
	tree, tags, err := Build(testDocs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, c := range tree.Categories {
		for _, tp := range c.Topics {
			if tp.Source == SourceConfig {
				found = append(found, c.Slug+"/"+tp.Slug+fmt.Sprint(tp.Sections))
			}
			if tp.Slug == "routing" && tp.Source != SourceConfig {
				t.Errorf("generated routing topic not replaced by the override")
			}
		}
	}
	if want := []string{"core/routing2", "guides/env3"}; !reflect.DeepEqual(found, want) {
		t.Errorf("override topics = %v, want %v", found, want)
	}
	if slices.Contains(tags[3][0], "routing") {
		t.Error("dynamic.md tagged routing although the override narrowed it to middleware.md")
	}
	if _, _, err := Build(testDocs(), Options{Overrides: []config.TopicOverride{{Name: "x", Paths: []string{"[bad"}}}}); err == nil || !strings.Contains(err.Error(), "[bad") {
		t.Errorf("bad glob error = %v", err)
	}
}

// TestOverrideCategoryIsNoGeneratedTopic checks that a category only an
// override names is one like the folders': no generated topic takes its
// slug (the routing folder's topic did, and topics=routing then meant the
// folder's sections though the category held only the override's).
func TestOverrideCategoryIsNoGeneratedTopic(t *testing.T) {
	opts := DefaultOptions()
	opts.Overrides = []config.TopicOverride{{Name: "Middleware", Category: "Routing", Paths: []string{"docs/2.guide/routing/middleware.md"}}}
	tree, tags, err := Build(testDocs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range tree.Slugs() {
		if seen[s] {
			t.Errorf("slug %q names two entries of the tree %+v", s, tree.Categories)
		}
		seen[s] = true
	}
	var routing []string
	for _, c := range tree.Categories {
		for _, tp := range c.Topics {
			if c.Slug == "routing" {
				routing = append(routing, tp.Slug)
			}
		}
	}
	if want := []string{"middleware"}; !reflect.DeepEqual(routing, want) {
		t.Errorf("category routing holds %v, want %v", routing, want)
	}
	if slices.Contains(tags[3][0], "routing") {
		t.Errorf("dynamic.md tagged %v: a generated topic took the override's category's slug", tags[3][0])
	}
}

// TestConfigCategoryHoldsItsTopics checks that a category a config topic
// names holds that topic's sections: its count is theirs and a filter by
// its slug finds them. A category no folder makes showed 0 sections (and
// found none) while listing a topic that had some.
func TestConfigCategoryHoldsItsTopics(t *testing.T) {
	opts := DefaultOptions()
	opts.Overrides = []config.TopicOverride{
		{Name: "Env", Category: "Setup", Headings: []string{"environment"}},
		{Name: "Routing", Category: "Core", Paths: []string{"docs/2.guide/routing/middleware.md"}},
	}
	docs := testDocs()
	tree, tags, err := Build(docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"setup", "core"} {
		var cat *Category
		for i := range tree.Categories {
			if tree.Categories[i].Slug == slug {
				cat = &tree.Categories[i]
			}
		}
		if cat == nil || len(cat.Topics) != 1 {
			t.Fatalf("category %s = %+v, want it with its one config topic", slug, cat)
		}
		topic := cat.Topics[0]
		tagged := 0
		for i := range tags {
			for j := range tags[i] {
				if slices.Contains(tags[i][j], topic.Slug) != slices.Contains(tags[i][j], slug) {
					t.Errorf("%s section %d tagged %v: the topic %s and its category %s go together", docs[i].Path, j, tags[i][j], topic.Slug, slug)
				}
				if slices.Contains(tags[i][j], slug) {
					tagged++
				}
			}
		}
		if topic.Sections == 0 || cat.Sections != topic.Sections || cat.Sections != tagged || cat.Tokens != topic.Tokens {
			t.Errorf("category %s: %d sections (%d tokens), %d tagged, its topic %d (%d tokens); want the topic's, all tagged",
				slug, cat.Sections, cat.Tokens, tagged, topic.Sections, topic.Tokens)
		}
	}
}

// TestOverrideNamedLikeCategory checks that a config topic whose slug is
// a category's fails the build with the topic, the category and the fix,
// as a bad glob does: the slug would name two entries of the tree.
func TestOverrideNamedLikeCategory(t *testing.T) {
	for _, tt := range []struct {
		name      string
		overrides []config.TopicOverride
		want      []string
	}{
		{"a folder's category", []config.TopicOverride{{Name: "API", Headings: []string{"params"}}},
			[]string{`topic "API"`, `"api"`, "rename the topic", "already selects"}},
		{"another topic's category", []config.TopicOverride{{Name: "Env", Category: "Core", Headings: []string{"environment"}}, {Name: "Core", Paths: []string{"docs/index.md"}}},
			[]string{`topic "Core"`, `"core"`, `another category: for "Env"`}},
		{"its own default category", []config.TopicOverride{{Name: "Guides", Paths: []string{"docs/index.md"}}},
			[]string{`topic "Guides"`, `"guides"`, `another category: for "Guides"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Overrides = tt.overrides
			_, _, err := Build(testDocs(), opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %s", err, w)
				}
			}
		})
	}
}

func TestSlugAndStripOrder(t *testing.T) {
	for in, want := range map[string]string{
		"Environment Variables": "environment-variables", "useFetch()": "usefetch",
		"  --Hello__World--": "hello-world", "Größe": "größe", "": "",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"1.getting-started": "getting-started", "01-intro": "intro", "2_api": "api",
		"404": "404", "v2.x": "v2.x", "3.md": "3", "guide.mdx": "guide",
	} {
		if got := stripOrder(in); got != want {
			t.Errorf("stripOrder(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoneTopFolderIsTransparent(t *testing.T) {
	docs := []*markdown.Document{
		doc("README.md", "Lib"),
		doc("docs/api/a.md", "A"),
		doc("docs/guides/b.md", "B"),
		doc("docs/guides/deep/c.md", "C"),
	}
	tree, _, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var cats []string
	for _, c := range tree.Categories {
		cats = append(cats, c.Slug)
	}
	if want := []string{"overview", "api", "guides"}; !reflect.DeepEqual(cats, want) {
		t.Errorf("categories = %v, want %v", cats, want)
	}
}

func TestIsLocale(t *testing.T) {
	for in, want := range map[string]bool{
		"en": true, "fr": true, "pt-br": true, "zh_TW": true, "pages.ko": true, "en-us": true, "zh-cn": true,
		"js": false, "go": false, "ui": false, "api": false, "pages": false, "en-verylong": false, "docs": false,
	} {
		if got := isLocale(in); got != want {
			t.Errorf("isLocale(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestLanguageFoldersAreLookedThrough(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"astro", []string{"src/docs/en/guides/a.md", "src/docs/en/reference/b.md", "src/docs/fr/guides/a.md", "src/docs/pt-br/reference/b.md"}, []string{"guides", "reference"}},
		{"tldr", []string{"pages/common/tar.md", "pages/linux/apt.md", "pages.fr/common/tar.md", "pages.ko/linux/apt.md", "pages.zh_TW/osx/say.md"}, []string{"common", "linux", "osx"}},
		{"not languages", []string{"js/a.md", "go/b.md", "api/c.md"}, []string{"api", "go", "js"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var docs []*markdown.Document
			for _, p := range tt.paths {
				docs = append(docs, doc(p, p))
			}
			tree, _, err := Build(docs, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var cats []string
			for _, c := range tree.Categories {
				cats = append(cats, c.Slug)
			}
			if !reflect.DeepEqual(cats, tt.want) {
				t.Errorf("categories = %v, want %v", cats, tt.want)
			}
		})
	}
}

func TestTopicFiltersAndPlacement(t *testing.T) {
	var docs []*markdown.Document
	// Version folders and generic API headings are not topics.
	for _, v := range []string{"3x", "4x", "5x"} {
		docs = append(docs, doc("api/"+v+"/app.md", "App "+v, "2:Type", "2:Default", "2:Mounting"))
	}
	// A big category and a tiny one: the tiny one joins "other".
	for i := 0; i < 120; i++ {
		docs = append(docs, doc(fmt.Sprintf("guide/p%03d.md", i), fmt.Sprintf("Guide page %d", i), "2:Routing rules"))
	}
	docs = append(docs, doc("about/index.md", "About"))
	docs = append(docs, doc("misc/a.md", "Misc A"), doc("misc/b.md", "Misc B"), doc("misc/c.md", "Misc C"), doc("misc/d.md", "Misc D"))
	// A category whose only headings are in one document still gets topics.
	docs = append(docs, doc("plugins/index.md", "Plugins", "2:Writing a plugin", "2:Plugin hooks"))
	tree, _, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	cats := map[string]Category{}
	for _, c := range tree.Categories {
		cats[c.Slug] = c
		for _, tp := range c.Topics {
			found[tp.Slug] = c.Slug
		}
	}
	for _, bad := range []string{"3x", "4x", "5x", "type", "default"} {
		if _, ok := found[bad]; ok {
			t.Errorf("%q is a topic", bad)
		}
	}
	if _, ok := cats["about"]; ok {
		t.Error("a one-page category was kept")
	}
	if found["mounting"] != "api" || found["routing-rules"] != "guide" {
		t.Errorf("mounting under %q, routing-rules under %q; want api and guide", found["mounting"], found["routing-rules"])
	}
	if len(cats["plugins"].Topics) == 0 {
		t.Errorf("plugins has no topics: %+v", cats["plugins"])
	}
}

func TestFoldersNameAndOrderCategories(t *testing.T) {
	docs := []*markdown.Document{
		doc("docs/modules/ROOT/pages/index.adoc", "Introduction"),
		doc("docs/modules/ROOT/pages/features.adoc", "Features"),
		doc("docs/modules/install/pages/index.adoc", "Install"),
		doc("docs/modules/install/pages/os/linux.adoc", "Linux"),
		doc("docs/modules/install/pages/os/macos.adoc", "macOS"),
		doc("docs/modules/migrate/pages/upgrade.adoc", "Upgrade"),
		doc("docs/modules/zeta/pages/first.adoc", "First"),
	}
	opts := DefaultOptions()
	opts.Folders = []Folder{
		{Path: "docs/modules/zeta/pages", Name: "Zeta Comes First"},
		{Path: "docs/modules/ROOT/pages"},
		{Path: "docs/modules/install/pages", Name: "Install and Update"},
		{Path: "docs/modules/migrate/pages", Name: "Migration Guides"},
	}
	tree, tags, err := Build(docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var cats, names []string
	topicSlugs := map[string]bool{}
	for _, c := range tree.Categories {
		cats, names = append(cats, c.Slug), append(names, c.Name)
		for _, tp := range c.Topics {
			topicSlugs[tp.Slug] = true
		}
	}
	// The declared categories, in their order, not the folders' order.
	if want := []string{"zeta-comes-first", "overview", "install-and-update", "migration-guides"}; !reflect.DeepEqual(cats, want) {
		t.Errorf("categories = %v, want %v", cats, want)
	}
	if want := []string{"Zeta Comes First", "Overview", "Install and Update", "Migration Guides"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	// Sub-folders count from below the declared folder: "os" is a topic,
	// and no "pages" or "modules" folder is one.
	if !topicSlugs["os"] || topicSlugs["pages"] || topicSlugs["modules"] {
		t.Errorf("topics = %v, want os and neither pages nor modules", topicSlugs)
	}
	if got := tags[3][0]; !slices.Contains(got, "install-and-update") || !slices.Contains(got, "os") {
		t.Errorf("tags of os/linux.adoc = %v", got)
	}
}

// TestTopicsNamedInEnglish checks that the topics shared by a page and its
// translations are named by the English page, though pages outside the
// language folders (a root README) have no locale and a language sorts
// before English: the whole fastapi repository's tree was named in
// German.
func TestTopicsNamedInEnglish(t *testing.T) {
	docs := []*markdown.Document{doc("README.md", "FastAPI")}
	for _, l := range []string{"de", "en", "es", "fr", "ja", "ko", "pt", "ru", "tr", "zh"} {
		title := "Hintergrundtasks"
		if l == "en" {
			title = "Background Tasks"
		}
		docs = append(docs, doc("docs/"+l+"/docs/tutorial/background-tasks.md", title, "Using BackgroundTasks"),
			doc("docs/"+l+"/docs/tutorial/cors.md", "CORS "+l, "Using BackgroundTasks"))
	}
	tree, _, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range tree.Categories {
		for _, tp := range c.Topics {
			names = append(names, tp.Name)
		}
	}
	if !slices.Contains(names, "Background Tasks") || slices.Contains(names, "Hintergrundtasks") || !slices.Contains(names, "CORS en") {
		t.Errorf("topics %q, want the English pages' titles", names)
	}
}
