package search

import (
	"strconv"
	"strings"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/lru"
)

// DefaultAnswerCacheBytes is the answer cache's size unless
// Options.AnswerCacheBytes says otherwise.
const DefaultAnswerCacheBytes = 4 << 20

// answerCache keeps recent answers, least recently used evicted first,
// within a size in bytes. An answer is a pure function of the version's
// build (its manifest's checksum, which names every file's) and the
// request, both in the key, so entries never go stale: a republished
// version has another build, and answers for the old one age out. Agents ask the
// same questions again (a retry, the next step of a task, several agents
// on one library), and an answer costs far more to rank and pack than to
// copy. It is safe for concurrent use; a nil cache keeps nothing.
type answerCache struct {
	limit   int
	answers *lru.Cache[string, *Answer]
}

func newAnswerCache(limit int) *answerCache {
	if limit <= 0 {
		return nil
	}
	return &answerCache{limit: limit, answers: lru.New[string](lru.Options[*Answer]{MaxBytes: int64(limit)})}
}

// get returns the cached answer for key; callers must not modify it.
func (c *answerCache) get(key string) (*Answer, bool) {
	if c == nil {
		return nil, false
	}
	return c.answers.Get(key)
}

// put keeps ans, which must not be modified afterwards.
func (c *answerCache) put(key string, ans *Answer) {
	if c == nil {
		return
	}
	size := answerSize(ans) + len(key)
	if size > c.limit/4 {
		return // one answer may not crowd out the rest
	}
	c.answers.Put(key, ans, int64(size))
}

// answerSize estimates the memory an answer holds.
func answerSize(a *Answer) int {
	n := 256
	for _, s := range a.Sections {
		n += len(s.Text) + len(s.Path) + len(s.Anchor) + len(s.Title) + 128
		for _, h := range s.HeadingPath {
			n += len(h) + 16
		}
	}
	for _, d := range a.Documents {
		n += len(d.Path) + len(d.Title) + 48
	}
	for _, o := range a.Outline {
		n += len(o.Anchor) + len(o.Title) + 48
	}
	return n
}

// answerKey identifies a request on one library version: the version's
// directory and build and every field that shapes the answer, the budget
// and page already clamped (the room an answer may fill follows from the
// budget: see roomFor).
func answerKey(r *catalog.Resolved, req *DocsRequest, budget, page int) string {
	var b strings.Builder
	for _, s := range []string{r.Version.Path, r.Build, req.Query, req.Mode, req.Path} {
		b.WriteString(strconv.Quote(s))
	}
	b.WriteString(strconv.Itoa(len(req.Topics)))
	for _, t := range req.Topics {
		b.WriteString(strconv.Quote(t))
	}
	b.WriteString(strconv.FormatBool(req.Outline))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(budget))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(page))
	return b.String()
}
