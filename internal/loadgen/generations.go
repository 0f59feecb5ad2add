package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/pipeline"
)

// Hot reload under load. Generations republishes small libraries into an
// artifact directory again and again, as a CI job publishing on every push
// does, while a Generator drives the server; its Checker, given to
// RunOptions.Check, verifies that every answer about those libraries came
// wholly from one build, and Verify that no answer went back to an older
// build than one already answered before its request was sent.

// Generations publishes numbered builds (generations) of libraries into an
// artifact directory, through artifacts.Publish and WriteCatalog as
// `indexer build` does, with real markdown splitting, topic trees and
// indexes. Build n of a library is marked wherever an answer shows it: its
// commit is GenerationCommit(n) and Marker(n) is in every section's text,
// heading paragraph and code blocks alike. Its headings, documents and
// topics are the same in every generation, so a plan made against one
// generation is valid against all; the text and sizes change, so every
// file of a version directory (manifest, topics.json, documents.json,
// index) differs from one generation to the next.
//
// Publish must not be called concurrently; Libraries, Queries and Checker
// may be called at any time.
type Generations struct {
	out string
	ids []string
}

// NewGenerations returns a publisher of the libraries ids ("/soak/alpha")
// into the artifact directory out. Nothing is written until Publish.
func NewGenerations(out string, ids ...string) *Generations {
	return &Generations{out: out, ids: slices.Clone(ids)}
}

// Libraries returns the library ids published.
func (g *Generations) Libraries() []string { return slices.Clone(g.ids) }

// GenerationVersion is the one version published of each library.
const GenerationVersion = "main"

// genDoc is one document of a generation library: a title and its H2
// sections, each with a code example named fn.
type genDoc struct {
	path, title string
	sections    []genSection
}

type genSection struct {
	heading, prose, fn string
}

// genDocs are the documents of every generation library.
var genDocs = []genDoc{
	{"docs/polling.md", "Polling", []genSection{
		{"Retries", "A poller retries a failed request with the same widget token until the retry budget is spent", "retryRequest"},
		{"Backoff", "Exponential backoff doubles the polling interval after each failure, with jitter against thundering herds", "nextInterval"},
	}},
	{"docs/caching.md", "Caching", []genSection{
		{"Cache keys", "Cache keys combine the widget id and the query parameters, hashed so that long URLs stay short", "cacheKey"},
		{"Eviction", "The least recently used entry is evicted once the cache holds more bytes than its limit allows", "evictOldest"},
	}},
	{"docs/widgets.md", "Widgets", []genSection{
		{"Creating a widget", "Create a widget by giving the dashboard a name, a data source and a refresh period", "newWidget"},
		{"Styling widgets", "Widgets take their colors from the theme; a stylesheet overrides fonts, borders and spacing", "applyTheme"},
	}},
	{"docs/guides/deploy.md", "Deploying", []genSection{
		{"Containers", "Run the dashboard in a container image with the configuration mounted read-only", "containerSpec"},
		{"Health checks", "The load balancer polls the health check endpoint and drains replicas that stop answering", "healthHandler"},
	}},
	{"docs/reference/config.md", "Configuration", []genSection{
		{"Options file", "The options file sets the listen address, the data directory and the log level in YAML", "loadOptions"},
		{"Environment variables", "Environment variables override the options file; secrets are only read from the environment", "fromEnv"},
	}},
}

// GenerationQueries returns questions every generation library answers
// with sections, in ranked (customQuery) and code mode alike.
func GenerationQueries() []string {
	return []string{
		"how do retries and backoff work when polling",
		"cache keys and eviction",
		"create a widget",
		"deploy in a container with health checks",
		"environment variables and the options file",
		"widget theme styling",
		"polling interval jitter",
	}
}

// Marker returns the word that marks generation n in every section.
func Marker(n int) string { return fmt.Sprintf("gen%06d", n) }

// markerRE finds markers in an answer's text.
var markerRE = regexp.MustCompile(`\bgen(\d{6})\b`)

// GenerationCommit returns the commit recorded for generation n: n in hex
// in the first 12 characters, which answers quote, then a fixed tail.
func GenerationCommit(n int) string { return fmt.Sprintf("%012x%s", n, strings.Repeat("c", 28)) }

// GenerationOf returns the generation a commit of GenerationCommit names.
func GenerationOf(commit string) (int, bool) {
	if len(commit) != 40 || commit[12:] != strings.Repeat("c", 28) {
		return 0, false
	}
	n, err := strconv.ParseInt(commit[:12], 16, 64)
	return int(n), err == nil
}

// source returns the markdown of document d in generation n of library id.
// Every paragraph and code block carries the marker; the number of
// revision paragraphs cycles with n, so sizes change between generations.
func (d genDoc) source(id string, n int) string {
	m := Marker(n)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s of %s, build %s: an overview of %s.\n\n", d.title, d.title, id, m, strings.ToLower(d.title))
	for _, s := range d.sections {
		fmt.Fprintf(&b, "## %s\n\n%s (build %s).\n\n", s.heading, s.prose, m)
		for k := range n % 3 {
			fmt.Fprintf(&b, "Revision %d of %s in build %s: nothing else changed.\n\n", k+1, strings.ToLower(s.heading), m)
		}
		fmt.Fprintf(&b, "```go\n// %s is the example of build %s.\nfunc %s() error { return nil }\n```\n\n", s.fn, m, s.fn)
	}
	return b.String()
}

// Publish writes generation n of every library, each version directory
// swapped into place atomically one after the other, then catalog.json,
// holding the directory's build lock throughout, as `indexer build` does.
// A server may therefore see some libraries at n and others at n-1 until
// the catalog is written; each library's version is always one build.
func (g *Generations) Publish(ctx context.Context, n int) error {
	release, err := artifacts.Lock(g.out)
	if err != nil {
		return fmt.Errorf("publish generation %d: %w", n, err)
	}
	defer release()
	latest := map[string]string{}
	for _, id := range g.ids {
		v, err := generationVersion(id, n)
		if err == nil {
			err = artifacts.Publish(ctx, g.out, v)
		}
		if err != nil {
			return fmt.Errorf("publish generation %d of %s: %w", n, id, err)
		}
		latest[id] = GenerationVersion
	}
	if _, err := artifacts.WriteCatalog(g.out, latest); err != nil {
		return fmt.Errorf("publish generation %d: %w", n, err)
	}
	return nil
}

// generationVersion splits, tags and lays out generation n of library id
// as the pipeline does for a repository's markdown.
func generationVersion(id string, n int) (*artifacts.Version, error) {
	var docs []*markdown.Document
	var srcBytes int64
	for _, d := range genDocs {
		src := d.source(id, n)
		srcBytes += int64(len(src))
		doc, err := markdown.Split(d.path, []byte(src), markdown.DefaultOptions())
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	v, err := pipeline.Assemble(docs, nil, pipeline.Navigation{})
	if err != nil {
		return nil, err
	}
	tokenTotal := 0
	for _, d := range docs {
		tokenTotal += d.Tokens
	}
	name := id[strings.LastIndexByte(id, '/')+1:]
	v.Manifest = artifacts.Manifest{
		Library:        artifacts.Library{ID: id, Title: name, Description: "A library republished again and again to test hot reload under load"},
		Version:        GenerationVersion,
		Repo:           "https://example.invalid" + id,
		Ref:            GenerationVersion,
		Commit:         GenerationCommit(n),
		BuiltAt:        time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(n) * time.Minute),
		IndexerVersion: "loadgen",
		ConfigHash:     Marker(n),
		Counts: artifacts.Counts{Documents: len(docs), Sections: len(v.Entries), Topics: len(v.Topics.Slugs()),
			Tokens: tokenTotal, SourceBytes: srcBytes},
	}
	return v, nil
}

// Checker checks the answers about the generation libraries of a run (see
// Check) and keeps what it needs to check their order afterwards (see
// Verify). It is safe for concurrent use.
type Checker struct {
	libs map[string]bool

	mu       sync.Mutex
	observed map[string][]observation // by library
}

// observation is one answer about a generation library.
type observation struct {
	client     int
	start, end time.Time
	gen        int
}

// Checker returns a new checker of answers about g's libraries.
func (g *Generations) Checker() *Checker {
	c := &Checker{libs: map[string]bool{}, observed: map[string][]observation{}}
	for _, id := range g.ids {
		c.libs[id] = true
	}
	return c
}

// Check is a RunOptions.Check. A get-library-docs answer about one of the
// checker's libraries must come wholly from one build: its commit is a
// generation's, every section has that commit, it has at least one
// section, and every marker in its text is that generation's, at least
// one per section. Other calls pass unchecked.
func (c *Checker) Check(a Answer) error {
	if a.Call.Tool() != ToolDocs || !c.libs[a.Call.Library] {
		return nil
	}
	gen, err := answerGeneration(a)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.observed[a.Call.Library] = append(c.observed[a.Call.Library], observation{client: a.Client, start: a.Start, end: a.End, gen: gen})
	c.mu.Unlock()
	return nil
}

// answerGeneration returns the one generation a get-library-docs answer
// comes from, or says how it mixes builds.
func answerGeneration(a Answer) (int, error) {
	var out struct {
		Library  string `json:"library"`
		Commit   string `json:"commit"`
		Sections []struct {
			Commit string `json:"commit"`
			Path   string `json:"path"`
			Anchor string `json:"anchor"`
		} `json:"sections"`
	}
	data, err := json.Marshal(a.Result.StructuredContent)
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		return 0, fmt.Errorf("structured content: %w", err)
	}
	gen, ok := GenerationOf(out.Commit)
	if !ok {
		return 0, fmt.Errorf("%w: commit %q is no generation's", errMixedBuilds, out.Commit)
	}
	if out.Library != a.Call.Library {
		return 0, fmt.Errorf("%w: answer about %s, asked about %s", errMixedBuilds, out.Library, a.Call.Library)
	}
	if len(out.Sections) == 0 {
		return 0, fmt.Errorf("%w: no section to tell its build by", errMixedBuilds)
	}
	for _, s := range out.Sections {
		if s.Commit != out.Commit {
			return 0, fmt.Errorf("%w: answer at commit %.12s has section %s#%s at %.12s", errMixedBuilds, out.Commit, s.Path, s.Anchor, s.Commit)
		}
	}
	marks := markerRE.FindAllStringSubmatch(text(a.Result), -1)
	for _, m := range marks {
		if n, _ := strconv.Atoi(m[1]); n != gen {
			return 0, fmt.Errorf("%w: answer at generation %d has text of generation %d", errMixedBuilds, gen, n)
		}
	}
	if len(marks) < len(out.Sections) {
		return 0, fmt.Errorf("%w: %d sections but %d markers of generation %d", errMixedBuilds, len(out.Sections), len(marks), gen)
	}
	return gen, nil
}

// Observed returns the number of answers checked and the generations they
// came from, sorted.
func (c *Checker) Observed() (answers int, generations []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[int]bool{}
	for _, obs := range c.observed {
		answers += len(obs)
		for _, o := range obs {
			seen[o.gen] = true
		}
	}
	for n := range seen {
		generations = append(generations, n)
	}
	sort.Ints(generations)
	return answers, generations
}

// Verify checks the order of the answers checked so far, per library:
// for any two answers A and B, if A ended (its answer had arrived) before
// B started (its request was sent), B's generation is at least A's.
// Answers whose calls overlapped in time may come in any order: a call
// that started first may legitimately be answered from an older build
// than one that started later but finished first. Since a client makes
// one call at a time, this includes that each client's generations never
// decrease. It returns every violation found, up to 10, joined.
func (c *Checker) Verify() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	ids := make([]string, 0, len(c.observed))
	for id := range c.observed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for _, v := range backwards(c.observed[id]) {
			if len(errs) == 10 {
				break
			}
			errs = append(errs, fmt.Errorf("%w: %s: client %d's call started %v after client %d's had its answer from generation %d, and got generation %d",
				errWentBack, id, v.b.client, v.b.start.Sub(v.a.end).Round(time.Microsecond), v.a.client, v.a.gen, v.b.gen))
		}
	}
	return errors.Join(errs...)
}

// violation is an answer b older than an answer a that ended before b
// started.
type violation struct{ a, b observation }

// backwards returns the answers that went back in time, each with the
// newest answer that had ended before it started. It sweeps the answers
// in start order over the answers in end order, keeping the newest
// generation ended so far: O(n log n).
func backwards(obs []observation) []violation {
	byStart := slices.Clone(obs)
	sort.SliceStable(byStart, func(i, j int) bool { return byStart[i].start.Before(byStart[j].start) })
	byEnd := slices.Clone(obs)
	sort.SliceStable(byEnd, func(i, j int) bool { return byEnd[i].end.Before(byEnd[j].end) })
	var out []violation
	var newest *observation
	k := 0
	for _, b := range byStart {
		for k < len(byEnd) && byEnd[k].end.Before(b.start) {
			if newest == nil || byEnd[k].gen > newest.gen {
				newest = &byEnd[k]
			}
			k++
		}
		if newest != nil && b.gen < newest.gen {
			out = append(out, violation{*newest, b})
		}
	}
	return out
}

var (
	errMixedBuilds = errors.New("answer not wholly from one build")
	errWentBack    = errors.New("answer from an older build than one already answered")
)
