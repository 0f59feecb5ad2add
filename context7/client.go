package context7

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/codex7/codex7/context7/cache"
)

// DefaultBaseURL is the hosted service's API.
const DefaultBaseURL = "https://context7.com/api"

// Timeouts of a call (a Search, or a Doc with the search that resolves a
// bare name).
const (
	// DefaultTimeout is a call's budget unless Options.Timeout says
	// otherwise.
	DefaultTimeout = 30 * time.Second
	// ShortTimeout is the budget for callers on an agent's fast path, such
	// as `indexer context` in an editor hook: an answer that takes longer
	// is not worth waiting for.
	ShortTimeout = 2500 * time.Millisecond
)

// maxBody bounds an answer read from Context7.
const maxBody = 8 << 20

// Options configure a Client. The zero value talks to DefaultBaseURL
// without a key, so every call fails with ErrNoAPIKey.
type Options struct {
	// BaseURL is the API's base, such as https://context7.com/api; "" means
	// DefaultBaseURL. A trailing slash is ignored.
	BaseURL string
	// APIKey is sent as a bearer token. It never appears in errors, logs
	// or cache files.
	APIKey string
	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// Legacy uses the older endpoints, GET /v1/search and
	// GET /v1/{org}/{project}[/{version}], instead of /v2.
	Legacy bool
	// Cache keeps successful answers; nil keeps none.
	Cache cache.Cache
	// HTTPClient sends the requests; nil means a client of its own that
	// does not follow redirects (a 301 from Context7 names a library's new
	// id, which the caller should see).
	HTTPClient *http.Client
	// Logger receives the context7.search and context7.doc records; nil
	// discards them.
	Logger *slog.Logger
	// Now is the clock for Retry-After dates; nil means time.Now.
	Now func() time.Time
}

// OptionsFromEnv returns Options with BaseURL from CONTEXT7_API_URL and
// APIKey from CONTEXT7_API_KEY, read through getenv (os.Getenv).
func OptionsFromEnv(getenv func(string) string) Options {
	return Options{
		BaseURL: strings.TrimSpace(getenv("CONTEXT7_API_URL")),
		APIKey:  strings.TrimSpace(getenv("CONTEXT7_API_KEY")),
	}
}

// Client calls the Context7 API. It is safe for concurrent use.
type Client struct {
	base    string
	key     string
	keyID   string // a hash of the key, to keep caches of different keys apart
	timeout time.Duration
	legacy  bool
	cache   cache.Cache
	http    *http.Client
	log     *slog.Logger
	now     func() time.Time
	// hold is the last 429 with a Retry-After, until it has passed; shared
	// by the copies WithTimeout makes.
	hold *hold
}

// hold remembers a 429 so that calls fail at once, with its message and
// quota, until its Retry-After has passed.
type hold struct {
	mu    sync.Mutex
	until time.Time
	err   RateLimitError
}

// check returns the remembered 429 with the time left, or nil.
func (h *hold) check(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	left := h.until.Sub(now)
	if left <= 0 {
		return nil
	}
	e := h.err
	e.RetryAfter = left.Round(time.Second)
	return &e
}

// set remembers e, if it says when to retry.
func (h *hold) set(now time.Time, e *RateLimitError) {
	if e.RetryAfter <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.until, h.err = now.Add(min(e.RetryAfter, maxHonouredWait)), *e
}

// maxHonouredWait caps how long a Retry-After keeps calls from going out.
const maxHonouredWait = 10 * time.Minute

// New returns a client configured by opts.
func New(opts Options) *Client {
	c := &Client{
		base:    strings.TrimRight(opts.BaseURL, "/"),
		key:     opts.APIKey,
		timeout: opts.Timeout,
		legacy:  opts.Legacy,
		cache:   opts.Cache,
		http:    opts.HTTPClient,
		log:     opts.Logger,
		now:     opts.Now,
		hold:    &hold{},
	}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.http == nil {
		c.http = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.key != "" {
		sum := sha256.Sum256([]byte("codex7 context7 cache\x00" + c.key))
		c.keyID = hex.EncodeToString(sum[:8])
	}
	return c
}

// Configured reports whether the client has an API key: without one every
// call fails with ErrNoAPIKey.
func (c *Client) Configured() bool { return c != nil && c.key != "" }

// BaseURL returns the API base the client talks to.
func (c *Client) BaseURL() string { return c.base }

// Timeout returns the budget of one call.
func (c *Client) Timeout() time.Duration { return c.timeout }

// WithTimeout returns a client like c whose calls have budget d (such as
// ShortTimeout), sharing c's connections and cache.
func (c *Client) WithTimeout(d time.Duration) *Client {
	cp := *c
	if d > 0 {
		cp.timeout = d
	}
	return &cp
}

// response is a successful answer.
type response struct {
	body   []byte
	cached bool
}

// get sends GET {base}{path}?{query} and returns the body of a 200, from
// the cache when it holds it. valid checks a body before it is cached; a
// cached body that fails it is deleted and fetched again.
func (c *Client) get(ctx context.Context, path string, query url.Values, accept string, valid func([]byte) error) (*response, error) {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	key := "context7|" + c.keyID + "|" + u
	if c.cache != nil {
		if body, ok := c.cache.Get(key); ok {
			if valid(body) == nil {
				return &response{body: body, cached: true}, nil
			}
			c.cache.Delete(key)
		}
	}
	// After a 429 with Retry-After, calls fail at once until then instead
	// of spending the quota's penalty and the caller's time; cached
	// answers are still served above.
	if err := c.hold.check(c.now()); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "codex7-context7")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		err := c.statusError(resp, body)
		if rl := (*RateLimitError)(nil); errors.As(err, &rl) {
			c.hold.set(c.now(), rl)
		}
		return nil, err
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%w: the answer is larger than %d MiB", ErrMalformed, maxBody>>20)
	}
	if err := valid(body); err != nil {
		return nil, err
	}
	if c.cache != nil {
		// A failure to cache costs only a later fetch.
		if err := c.cache.Put(key, body); err != nil {
			c.log.Debug("context7: not cached", "error", err.Error())
		}
	}
	return &response{body: body}, nil
}

// transportError turns an error of sending or reading into ErrTimeout or
// ErrUnavailable. ctx is the call's context.
func (c *Client) transportError(ctx context.Context, err error) error {
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return ErrTimeout
	case errors.Is(ctx.Err(), context.Canceled):
		return ctx.Err()
	}
	// url.Error repeats the method and URL, which the caller's message
	// already names.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%w: %s", ErrUnavailable, c.redact(err.Error()))
}

// statusError reads an error status and its body. Everything it keeps of
// what Context7 sent is redacted before it is shortened: a key cut in two
// would no longer match, and its head would be shown.
func (c *Client) statusError(resp *http.Response, body []byte) error {
	text := func(s string, n int) string { return clip(c.redact(s), n) }
	var apiErr struct {
		Error       string `json:"error"`
		Message     string `json:"message"`
		RedirectURL string `json:"redirectUrl"`
	}
	msg := ""
	if json.Unmarshal(body, &apiErr) == nil {
		msg = firstNonEmpty(apiErr.Message, apiErr.Error)
	} else if t := strings.TrimSpace(string(body)); t != "" && len(t) <= 200 && utf8.ValidString(t) && !looksLikeHTML(t) {
		msg = t
	}
	msg = text(msg, 300)
	status := resp.StatusCode
	if status == http.StatusTooManyRequests {
		h := resp.Header
		return &RateLimitError{
			RetryAfter: retryAfter(h.Get("Retry-After"), c.now()),
			Limit:      text(firstNonEmpty(h.Get("RateLimit-Limit"), h.Get("X-RateLimit-Limit")), 40),
			Remaining:  text(firstNonEmpty(h.Get("RateLimit-Remaining"), h.Get("X-RateLimit-Remaining")), 40),
			Reset:      text(firstNonEmpty(h.Get("RateLimit-Reset"), h.Get("X-RateLimit-Reset")), 40),
			Tier:       text(h.Get("Context7-Quota-Tier"), 40),
			Message:    msg,
		}
	}
	e := &StatusError{Status: status, Code: text(apiErr.Error, 60), Message: msg}
	switch {
	case status == http.StatusUnauthorized:
		e.kind = ErrUnauthorized
		e.Hint = "Context7 refused the API key: check CONTEXT7_API_KEY (keys start with \"ctx7sk\")"
	case status == http.StatusForbidden:
		e.kind = ErrUnauthorized
		e.Hint = "this API key may not read this library"
	case status == http.StatusNotFound:
		e.kind = ErrNotFound
		e.Hint = "Context7 has no such library or version: call resolve-library-id first to find a valid id"
	case status == http.StatusMovedPermanently || status == http.StatusPermanentRedirect:
		e.kind = ErrMoved
		e.Redirect = text(apiErr.RedirectURL, 200)
		if e.Redirect != "" {
			e.Hint = fmt.Sprintf("the library's id is now %s: use that", e.Redirect)
		}
	case status == http.StatusBadRequest:
		e.kind = ErrInvalidRequest
	case status == http.StatusAccepted:
		e.kind = ErrUnavailable
		e.Hint = "Context7 is still processing this library: try again later"
	case status == http.StatusUnprocessableEntity:
		e.kind = ErrUnavailable
		e.Hint = "Context7 cannot serve this library"
	case status >= 500:
		e.kind = ErrUnavailable
		e.Hint = "Context7 failed: try again later"
	default:
		e.kind = ErrUnavailable
	}
	if e.Message == "" {
		e.Message = strings.ToLower(http.StatusText(status))
	}
	return e
}

// maxRetryAfter caps the wait a Retry-After may ask for, in either form:
// a longer one is a server's mistake, not a plan.
const maxRetryAfter = 7 * 24 * time.Hour

// retryAfter reads a Retry-After header: seconds, or an HTTP date. Both
// are capped at maxRetryAfter.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, int(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter).Round(time.Second)
	}
	return 0
}

// redact removes the API key from s, in case a server or proxy echoed it.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// clip shortens s to at most n bytes on a rune boundary and removes
// control characters, for text from the network put into messages.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

func looksLikeHTML(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "<!doctype html") || strings.HasPrefix(s, "<html") || strings.HasPrefix(s, "<head") || strings.HasPrefix(s, "<body")
}

// checkJSON is a valid func: body must parse into v.
func checkJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: not the JSON expected (%s); it starts with %q", ErrMalformed, strings.TrimPrefix(err.Error(), "json: "), clip(string(bytes.TrimSpace(body)), 40))
	}
	return nil
}

// withBudget bounds ctx by the client's timeout and returns the budget in
// effect, for messages.
func (c *Client) withBudget(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	budget := c.timeout
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); d < budget {
			budget = d
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	return ctx, cancel, budget
}

// span logs one record of an operation.
func (c *Client) span(ctx context.Context, name string, start time.Time, err error, resultLen int, cached bool, attrs ...slog.Attr) {
	level := slog.LevelInfo
	attrs = append([]slog.Attr{slog.String("span", name)}, attrs...)
	attrs = append(attrs,
		slog.Bool("success", err == nil),
		slog.Int("resultLen", resultLen),
		slog.Bool("cached", cached),
		slog.Int64("duration_ms", time.Since(start).Milliseconds()))
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", c.redact(err.Error())))
	}
	c.log.LogAttrs(ctx, level, name, attrs...)
}
