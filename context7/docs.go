package context7

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

// Limits of a DocRequest.
const (
	// Modes: info (prose, the default) and code (examples).
	ModeInfo = KindInfo
	ModeCode = KindCode
	// MaxPage is the last page Doc serves; pages are 1 to MaxPage.
	MaxPage = 10
	// MaxLimit is the most snippets per page, and the default.
	MaxLimit = 10
	// DefaultTokens, MinTokens and MaxTokens bound DocRequest.Tokens, as
	// for local libraries.
	DefaultTokens = request.DefaultTokens
	MinTokens     = request.MinTokens
	MaxTokens     = request.MaxTokens
	// maxTopicLen bounds the topic sent, in bytes; the API takes 500.
	maxTopicLen = 500
)

// GeneralQuery is the query sent to /v2/context for a request without a
// topic: the endpoint requires one, and this one asks for the overview
// that general documentation means.
const GeneralQuery = "overview, installation and getting started"

// DocRequest asks Doc for documentation of a Context7 library.
type DocRequest struct {
	// LibraryKey names the library, in any form request.ParseKey reads:
	// "vercel/next.js", "/vercel/next.js", "/vercel/next.js/v15.1.8",
	// "/vercel/next.js@v15.1.8", a GitHub or context7.com URL, with stray
	// quotes and slashes; or a bare name ("next.js"), which Doc resolves
	// with Context7's search.
	LibraryKey string
	// Topic is what the documentation should be about, cleaned with
	// request.NormalizeTopic; "" (or a placeholder such as "<topic>") asks
	// for general documentation.
	Topic string
	// Mode is "info" (guides and explanations, the default) or "code"
	// (API references and code examples).
	Mode string
	// Page is the page, 1 to MaxPage; 0 means 1 and others are clamped,
	// with a note.
	Page int
	// Limit is the number of snippets per page, 1 to MaxLimit; 0 means
	// MaxLimit and others are clamped, with a note.
	Limit int
	// Tokens caps the whole text returned; 0 means DefaultTokens, and
	// values outside MinTokens to MaxTokens are clamped, with a note.
	Tokens int
}

// Doc is documentation of one Context7 library: a page of snippets of one
// mode, within a token budget.
type Doc struct {
	// LibraryKey is the key as asked.
	LibraryKey string `json:"libraryKey"`
	// ResolvedKey is "org/project", without a version.
	ResolvedKey string `json:"resolvedKey"`
	// LibraryID is the id sent to Context7: "/org/project", or
	// "/org/project/version" for an explicit version.
	LibraryID string `json:"libraryId"`
	Version   string `json:"version,omitempty"`
	// Topic is the topic after normalization; "" for general documentation.
	Topic string `json:"topic"`
	Mode  string `json:"mode"`
	Page  int    `json:"page"`
	// Pages is how many pages of Limit snippets this mode has (at most
	// MaxPage); 0 when it has none.
	Pages   int  `json:"pages"`
	Limit   int  `json:"limit"`
	HasNext bool `json:"hasNext"`
	// Snippets are the page's snippets that fit the budget, in order.
	Snippets []Snippet `json:"snippets"`
	// LeftOut counts the page's snippets the budget left out; Trimmed says
	// the only snippet returned was cut to fit.
	LeftOut int  `json:"leftOut,omitempty"`
	Trimmed bool `json:"trimmed,omitempty"`
	// Budget is the token budget applied; Tokens the size of Text.
	Budget int `json:"budget"`
	Tokens int `json:"tokens"`
	// Notes say what was adjusted: clamped parameters, a resolved name.
	Notes []string `json:"notes,omitempty"`
	// Text is the answer for agents: a header, the notes, the snippets and
	// how to get more.
	Text string `json:"-"`
	// Cached says the snippets came from the cache.
	Cached bool `json:"cached"`
}

// docParams are a DocRequest's parameters after validation.
type docParams struct {
	key                 request.Key
	topic, mode         string
	page, limit, budget int
	notes               []string
}

// checkDoc validates and normalizes req, before anything is sent.
func checkDoc(req DocRequest) (docParams, error) {
	var p docParams
	switch m := strings.ToLower(strings.TrimSpace(req.Mode)); m {
	case "", ModeInfo:
		p.mode = ModeInfo
	case ModeCode:
		p.mode = ModeCode
	default:
		return p, fmt.Errorf(`%w: invalid mode %q: use "info" (guides and explanations, the default) or "code" (API references and code examples)`, ErrInvalidRequest, clip(req.Mode, 40))
	}
	var err error
	if p.key, err = request.ParseKey(req.LibraryKey); err != nil {
		return p, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if err := request.CheckText("topic", req.Topic); err != nil {
		return p, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	p.topic = request.NormalizeTopic(req.Topic)
	if len(p.topic) > maxTopicLen {
		p.topic = truncate(p.topic, maxTopicLen)
		p.notes = append(p.notes, fmt.Sprintf("The topic was cut to its first %d bytes.", maxTopicLen))
	}
	p.page = clampNote(req.Page, 1, 1, MaxPage, "page", &p.notes)
	p.limit = clampNote(req.Limit, MaxLimit, 1, MaxLimit, "limit", &p.notes)
	p.budget = clampNote(req.Tokens, DefaultTokens, MinTokens, MaxTokens, "tokens", &p.notes)
	return p, nil
}

// clampNote returns v within lo to hi (def for 0), noting a change.
func clampNote(v, def, lo, hi int, name string, notes *[]string) int {
	switch {
	case v == 0:
		return def
	case v < lo:
		*notes = append(*notes, fmt.Sprintf("%s %d raised to %d (%s goes from %d to %d).", name, v, lo, name, lo, hi))
		return lo
	case v > hi:
		*notes = append(*notes, fmt.Sprintf("%s %d lowered to %d (%s goes from %d to %d).", name, v, hi, name, lo, hi))
		return hi
	}
	return v
}

// Doc fetches documentation of a Context7 library: the snippets of
// req.Mode about req.Topic, page req.Page of req.Limit snippets, within
// req.Tokens. A bare name is first resolved with Search (Context7's best
// match). A mode without snippets is not an error: the Doc says so and
// suggests the other mode ("Try mode='info'."). Nothing is sent without a
// key (ErrNoAPIKey) or with an invalid mode or library key
// (ErrInvalidRequest).
func (c *Client) Doc(ctx context.Context, req DocRequest) (doc *Doc, err error) {
	start := time.Now()
	var p docParams
	resolved := ""
	defer func() {
		n, cached := 0, false
		if doc != nil {
			n, cached = len(doc.Text), doc.Cached
		}
		mode := p.mode
		if mode == "" {
			mode = req.Mode
		}
		c.span(ctx, "context7.doc", start, err, n, cached,
			slog.String("library_key", req.LibraryKey), slog.String("topic", firstNonEmpty(p.topic, req.Topic)),
			slog.String("mode", mode), slog.String("resolvedKey", resolved))
	}()
	if !c.Configured() {
		return nil, ErrNoAPIKey
	}
	if p, err = checkDoc(req); err != nil {
		return nil, fmt.Errorf("context7: doc: %w", err)
	}
	op := "doc " + p.key.String()
	ctx, cancel, budget := c.withBudget(ctx)
	defer cancel()
	doc, err = c.doc(ctx, req, &p, &resolved)
	if err != nil {
		return nil, c.wrap(op, err, budget)
	}
	return doc, nil
}

func (c *Client) doc(ctx context.Context, req DocRequest, p *docParams, resolved *string) (*Doc, error) {
	id := p.key.ID
	if id == "" {
		res, err := c.search(ctx, p.key.Name, p.topic)
		if err != nil {
			return nil, err
		}
		if len(res.Libraries) == 0 {
			return nil, fmt.Errorf("%w: no Context7 library is named %q: call resolve-library-id to find the library's id", ErrNotFound, p.key.Name)
		}
		id = res.Libraries[0].ID
		p.notes = append(p.notes, fmt.Sprintf("%q resolved to %s, Context7's best match.", p.key.Name, id))
	}
	*resolved = strings.TrimPrefix(id, "/")
	libraryID := id
	if p.key.Version != "" {
		libraryID += "/" + p.key.Version
	}
	code, info, cached, err := c.fetchSnippets(ctx, libraryID, p)
	if err != nil && !errors.Is(err, errEmpty) {
		return nil, err
	}
	d := &Doc{
		LibraryKey: req.LibraryKey, ResolvedKey: *resolved, LibraryID: libraryID, Version: p.key.Version,
		Topic: p.topic, Mode: p.mode, Page: p.page, Limit: p.limit, Budget: p.budget, Notes: p.notes,
		Snippets: []Snippet{}, Cached: cached,
	}
	all := info
	if p.mode == ModeCode {
		all = code
	}
	if len(all) == 0 {
		d.render(nil, noContent(d, len(code)+len(info) == 0))
		return d, nil
	}
	d.Pages = min((len(all)+p.limit-1)/p.limit, MaxPage)
	if p.page > d.Pages {
		return nil, fmt.Errorf("%w: page %d is past the last page (%d) of %s documentation of %s%s: ask for page 1 to %d",
			ErrInvalidRequest, p.page, d.Pages, p.mode, libraryID, aboutTopic(p.topic), d.Pages)
	}
	d.HasNext = p.page < d.Pages
	from := (p.page - 1) * p.limit
	d.render(all[from:min(from+p.limit, len(all))], "")
	return d, nil
}

// fetchSnippets gets the code and info snippets of libraryID about the
// topic: from /v2/context as JSON, or from the /v1 text answer.
func (c *Client) fetchSnippets(ctx context.Context, libraryID string, p *docParams) (code, info []Snippet, cached bool, err error) {
	if !c.legacy {
		q := url.Values{}
		q.Set("libraryId", libraryID)
		q.Set("query", firstNonEmpty(p.topic, GeneralQuery))
		q.Set("type", "json")
		resp, err := c.get(ctx, "/v2/context", q, "application/json", func(body []byte) error {
			var err error
			code, info, err = parseContextJSON(body)
			if err == nil && len(code)+len(info) == 0 {
				return errEmpty
			}
			return err
		})
		if err != nil {
			return nil, nil, false, err
		}
		return code, info, resp.cached, nil
	}
	q := url.Values{}
	q.Set("type", "txt")
	if p.topic != "" {
		q.Set("topic", p.topic)
	}
	// Enough for every page up to the one asked for.
	q.Set("tokens", strconv.Itoa(min(p.budget*p.page, MaxTokens)))
	var snips []Snippet
	resp, err := c.get(ctx, "/v1"+pathEscapeID(libraryID), q, "text/plain", func(body []byte) error {
		var err error
		snips, err = checkText(body)
		return err
	})
	if err != nil {
		return nil, nil, false, err
	}
	for _, s := range snips {
		if s.Kind == KindCode {
			code = append(code, s)
		} else {
			info = append(info, s)
		}
	}
	return code, info, resp.cached, nil
}

// pathEscapeID escapes each segment of "/org/project[/version]".
func pathEscapeID(id string) string {
	var b strings.Builder
	for seg := range strings.SplitSeq(strings.Trim(id, "/"), "/") {
		b.WriteString("/" + url.PathEscape(seg))
	}
	return b.String()
}

func aboutTopic(topic string) string {
	if topic == "" {
		return ""
	}
	return fmt.Sprintf(" about %q", clip(topic, maxTopicShown))
}

// maxTopicShown is the most bytes of the topic a Doc's text quotes: the
// topic may be 500 bytes, and the text must fit budgets of 200 tokens.
const maxTopicShown = 100

// noContent says that a mode has nothing, and what to try instead.
func noContent(d *Doc, none bool) string {
	other := ModeCode
	if d.Mode == ModeCode {
		other = ModeInfo
	}
	if none {
		msg := fmt.Sprintf("Context7 has no documentation of %s%s.", d.LibraryID, aboutTopic(d.Topic))
		if d.Topic != "" {
			return msg + " Try a broader topic, or none for general documentation."
		}
		return msg + " Check the library id with resolve-library-id."
	}
	return fmt.Sprintf("No %s documentation of %s%s. Try mode='%s'.", d.Mode, d.LibraryID, aboutTopic(d.Topic), other)
}

// render writes d.Text: a header, the notes, the snippets of page that
// fit d.Budget (or message when there are none), and how to get more.
func (d *Doc) render(page []Snippet, message string) {
	var head strings.Builder
	fmt.Fprintf(&head, "# %s (Context7", d.LibraryID)
	if d.Topic != "" {
		fmt.Fprintf(&head, ", topic %q", clip(d.Topic, maxTopicShown))
	}
	fmt.Fprintf(&head, ", mode %s", d.Mode)
	if d.Pages > 0 {
		fmt.Fprintf(&head, ", page %d of %d", d.Page, d.Pages)
	}
	head.WriteString(")\n")
	for _, n := range d.Notes {
		head.WriteString("Note: " + n + "\n")
	}
	if message != "" {
		d.Text = head.String() + "\n" + message + "\n"
		d.Tokens = tokens.Count(d.Text)
		d.fit()
		return
	}
	// Room for the snippets: the budget less the header and the longest
	// footer this page could get.
	room := d.Budget - tokens.Count(head.String()) - tokens.Count(d.footer(len(page), true))
	sep := tokens.Count(joiner)
	used := 0
	var kept []Snippet
	for _, s := range page {
		n := s.Tokens
		if len(kept) > 0 {
			n += sep
		}
		if used+n > room {
			break
		}
		kept = append(kept, s)
		used += n
	}
	if len(kept) == 0 && len(page) > 0 {
		if t := trimToTokens(page[0].Text, room); t != "" {
			s := page[0]
			s.Text, s.Tokens = t, tokens.Count(t)
			kept, d.Trimmed = []Snippet{s}, true
		}
	}
	d.Snippets = kept
	d.LeftOut = len(page) - len(kept)
	texts := make([]string, len(kept))
	for i, s := range kept {
		texts[i] = s.Text
	}
	d.Text = head.String() + "\n" + strings.Join(texts, joiner) + "\n" + d.footer(d.LeftOut, d.Trimmed)
	d.Tokens = tokens.Count(d.Text)
	d.fit()
}

// fit cuts d.Text to d.Budget, which is a hard cap, when the header and
// footer alone do not fit it (a long library id or name in the header or
// the notes). Snippets are only kept when they fit with both, so none is
// lost then.
func (d *Doc) fit() {
	if d.Tokens <= d.Budget {
		return
	}
	d.Text, _ = tokens.Cut(d.Text, d.Budget)
	d.Tokens = tokens.Count(d.Text)
}

// footer says how to get more: the rest of the page the budget left out,
// and the next page. footer(len(page), true) is the longest a page's
// footer can be, the room render keeps for it.
func (d *Doc) footer(leftOut int, trimmed bool) string {
	var b strings.Builder
	switch {
	case trimmed:
		fmt.Fprintf(&b, "\nThe snippet above was cut to fit the budget of %d tokens", d.Budget)
		if leftOut > 0 {
			fmt.Fprintf(&b, ", and %d more of this page left out", leftOut)
		}
		b.WriteString(": ask again with more tokens or a smaller limit.\n")
	case leftOut > 0:
		fmt.Fprintf(&b, "\n%d more snippets of this page did not fit the budget of %d tokens: ask again with more tokens or a smaller limit.\n", leftOut, d.Budget)
	}
	if d.HasNext {
		fmt.Fprintf(&b, "\nMore: page %d of %d has the next snippets (ask for page %d).\n", d.Page+1, d.Pages, d.Page+1)
	}
	return b.String()
}
