package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// browserPath is Debian's chromium, which .ci/run installs. Tests never
// download a browser: without it they skip, unless CODEX7_REQUIRE_BROWSER
// is 1, as in CI, where they fail.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH: install Debian's chromium package (apt-get install chromium) to run the browser tests"
	if os.Getenv("CODEX7_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + " (CODEX7_REQUIRE_BROWSER=1)")
	}
	t.Skip(msg)
	return ""
}

// pageErrors collects what a page must never produce: console errors and
// warnings, uncaught exceptions, browser log entries of level warning or
// error (CSP violations among them), and dialogs (alert() from a document
// that got a script through).
type pageErrors struct {
	mu       sync.Mutex
	errs     []string
	expected map[string]bool // URLs whose failure a test asked for
}

func (p *pageErrors) listen(ev any) {
	var msg string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			msg = fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		msg = "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			msg += " " + e.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
			p.mu.Lock()
			expected := p.expected[e.Entry.URL]
			p.mu.Unlock()
			if !expected {
				msg = fmt.Sprintf("log %s %s: %s (%s)", e.Entry.Source, e.Entry.Level, e.Entry.Text, e.Entry.URL)
			}
		}
	case *page.EventJavascriptDialogOpening:
		msg = fmt.Sprintf("dialog %s: %s", e.Type, e.Message)
	}
	if msg != "" {
		p.mu.Lock()
		p.errs = append(p.errs, msg)
		p.mu.Unlock()
	}
}

// take returns the errors collected since the last call and forgets them.
func (p *pageErrors) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := p.errs
	p.errs = nil
	return errs
}

func (p *pageErrors) expect(url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expected[url] = true
}

// tab is a browser tab listening for errors.
type tab struct {
	t    *testing.T
	ctx  context.Context
	errs *pageErrors
	base string
}

// newTab opens a tab in a browser context of its own (its own cookies)
// and listens to its errors.
func newTab(t *testing.T, parent context.Context, base string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	errs := &pageErrors{expected: map[string]bool{}}
	if err := chromedp.Listen(ctx, errs.listen); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	return &tab{t: t, ctx: ctx, errs: errs, base: base}
}

// do runs actions with a deadline, failing the test on an error.
func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// open navigates to path and waits for its main element.
func (tb *tab) open(path string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(tb.base+path), chromedp.WaitVisible(chromedp.CSS("main")))
}

// clean fails the test on any error the page produced since the last
// check.
func (tb *tab) clean(what string) {
	tb.t.Helper()
	// Log entries and console calls may arrive just after the action
	// that caused them: give them a moment.
	tb.do(chromedp.Sleep(50 * time.Millisecond))
	for _, e := range tb.errs.take() {
		tb.t.Errorf("%s: %s", what, e)
	}
}

// login signs in through the form with token.
func (tb *tab) login(token string) {
	tb.t.Helper()
	tb.open("/")
	if loc := eval[string](tb, "location.pathname"); loc != "/-/login" {
		tb.t.Fatalf("without a token / shows %s, want the login form", loc)
	}
	tb.do(chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("#libraries")))
}

// TestBrowser drives Debian's headless chromium through every page: login,
// the catalog filtered as you type, a library, a query whose sections and
// raw text must equal get-library-docs' answer over MCP, a document and
// its outline, the resolve page, the hostile document (no script may run),
// a token scoped to one library, and screenshots of each page, light and
// dark, desktop and phone, into $CODEX7_SCREENSHOTS when set. No page may log a console error, throw, or
// violate its Content-Security-Policy; a control proves the listener
// sees a violation.
func TestBrowser(t *testing.T) {
	bin := browserPath(t)
	if testing.Short() {
		t.Skip("browser tests take a while: not with -short")
	}
	engine := openEngine(t, dist(t))
	ts := serve(t, handler(engine, testPolicy(t)))
	cs := mcpSession(t, ts.URL, tokenAll)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(bctx); err != nil { // start the browser
		t.Fatalf("start %s: %v", bin, err)
	}

	shots := screenshotDir(t)
	tb := newTab(t, bctx, ts.URL)

	t.Run("login", func(t *testing.T) {
		tb.t = t
		tb.open("/acme/widgets")
		if loc := eval[string](tb, "location.pathname + location.search"); loc != "/-/login?next=%2Facme%2Fwidgets" {
			t.Fatalf("without a token: at %s, want the login form", loc)
		}
		screenshots(tb, shots, "login")
		tb.do(chromedp.SendKeys(chromedp.CSS("#token"), tokenAll), chromedp.Submit(chromedp.CSS("#token")),
			chromedp.WaitVisible(chromedp.CSS("#docs-h")))
		if loc := eval[string](tb, "location.pathname"); loc != "/acme/widgets" {
			t.Errorf("after login: at %s, want /acme/widgets", loc)
		}
		if eval[bool](tb, "document.cookie.includes('codex7_token')") {
			t.Error("the token's cookie is readable from scripts: it must be HttpOnly")
		}
		tb.clean("login")
	})

	t.Run("catalog", func(t *testing.T) {
		tb.t = t
		tb.open("/")
		if n := eval[int](tb, "document.querySelectorAll('#libraries [data-search]').length"); n != 3 {
			t.Errorf("catalog lists %d libraries, want 3", n)
		}
		screenshots(tb, shots, "catalog")
		tb.do(chromedp.SendKeys(chromedp.CSS("#filter"), "deploy cli"))
		visible := eval[[]string](tb, "[...document.querySelectorAll('#libraries [data-search]')].filter(e => !e.hidden).map(e => e.querySelector('.id code').textContent)")
		if d := cmp.Diff([]string{"/acme/cli"}, visible); d != "" {
			t.Errorf("filtered as you type (-want +got):\n%s", d)
		}
		if s := eval[string](tb, "document.getElementById('filter-status').textContent"); s != "1 of 3 shown" {
			t.Errorf("filter status %q", s)
		}
		tb.clean("catalog")
	})

	t.Run("query", func(t *testing.T) {
		tb.t = t
		tb.open("/acme/widgets")
		screenshots(tb, shots, "library")
		tb.do(chromedp.SendKeys(chromedp.CSS("#q"), "install widgets"), chromedp.SetValue(chromedp.CSS("#tokens"), "2000"),
			chromedp.Submit(chromedp.CSS("#q")), chromedp.WaitVisible(chromedp.CSS("#sections-h")))
		text, ans := toolAnswer(t, cs, map[string]any{"libraryId": "/acme/widgets", "customQuery": "install widgets", "tokens": 2000})
		var want []string
		for _, s := range ans.Sections {
			want = append(want, fmt.Sprintf("%s#%s %d %s", s.Path, s.Anchor, s.Tokens, strings.Join(s.HeadingPath, " › ")))
		}
		got := eval[[]string](tb, "[...document.querySelectorAll('li.section')].map(li => li.dataset.path + '#' + li.dataset.anchor + ' ' + li.dataset.tokens + ' ' + li.querySelector('h3').textContent)")
		if len(want) == 0 {
			t.Fatal("the tool found nothing: pick another question")
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("sections the browser shows (-tool +page):\n%s", d)
		}
		tb.do(chromedp.Click(chromedp.CSS("#raw summary")), chromedp.WaitVisible(chromedp.CSS("#raw-text")))
		if raw := eval[string](tb, "document.getElementById('raw-text').textContent"); raw != text {
			t.Errorf("raw text differs from the tool's:\n%s", cmp.Diff(text, raw))
		}
		if n := eval[int](tb, "document.querySelectorAll('#raw button.copy').length"); n != 1 {
			t.Errorf("%d copy buttons by the raw text, want 1", n)
		}
		if tokens := eval[string](tb, "document.querySelector('#answer-facts [data-field=tokens]').textContent"); tokens != fmt.Sprint(ans.Tokens) {
			t.Errorf("the page says %s tokens, the tool %d", tokens, ans.Tokens)
		}
		screenshots(tb, shots, "query")
		tb.clean("query")
	})

	t.Run("document", func(t *testing.T) {
		tb.t = t
		tb.open("/acme/widgets")
		href := eval[string](tb, "document.querySelector('.tree a').getAttribute('href')")
		tb.do(chromedp.Click(chromedp.CSS(".tree a")), chromedp.WaitVisible(chromedp.CSS(`#c7\:outline-h`)))
		if loc := eval[string](tb, "location.pathname"); loc != href {
			t.Errorf("at %s, want %s", loc, href)
		}
		n := eval[int](tb, "document.querySelectorAll('.outline a').length")
		if n == 0 {
			t.Fatal("no outline")
		}
		// Every outline entry leads to a part of the document (not to the
		// page's own element of the same id), and the skip link to <main>.
		if missing := eval[[]string](tb, "[...document.querySelectorAll('.outline a')].map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(decodeURIComponent(id))?.matches('section.part'))"); len(missing) > 0 {
			t.Errorf("outline entries lead to no part of the document: %v", missing)
		}
		if tag := eval[string](tb, "document.getElementById(decodeURIComponent(document.querySelector('a.skip').hash.slice(1)))?.tagName ?? 'nothing'"); tag != "MAIN" {
			t.Errorf("the skip link leads to %s, want MAIN", tag)
		}
		screenshots(tb, shots, "document")
		tb.clean("document")
	})

	t.Run("resolve", func(t *testing.T) {
		tb.t = t
		tb.open("/-/resolve")
		tb.do(chromedp.SendKeys(chromedp.CSS("#name"), "widgets"), chromedp.Submit(chromedp.CSS("#name")),
			chromedp.WaitVisible(chromedp.CSS(".match")))
		if id := eval[string](tb, "document.querySelector('.match').dataset.id"); id != "/acme/widgets" {
			t.Errorf("first match %s, want /acme/widgets", id)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve-library-id", Arguments: map[string]any{"libraryName": "widgets"}})
		if err != nil || res.IsError {
			t.Fatalf("resolve-library-id: %v %+v", err, res)
		}
		tb.do(chromedp.Click(chromedp.CSS("#raw summary")), chromedp.WaitVisible(chromedp.CSS("#raw-text")))
		if raw, want := eval[string](tb, "document.getElementById('raw-text').textContent"), res.Content[0].(*mcp.TextContent).Text; raw != want {
			t.Errorf("raw text differs from resolve-library-id's:\n%s", cmp.Diff(want, raw))
		}
		screenshots(tb, shots, "resolve")
		tb.clean("resolve")
	})

	t.Run("hostile", func(t *testing.T) {
		tb.t = t
		for _, path := range []string{"/evil/docs/-/doc/docs/hostile.md", "/evil/docs/-/query?q=hostile+raw+block"} {
			tb.open(path)
			if pwned := eval[string](tb, "String(window.__pwned)"); pwned != "undefined" {
				t.Errorf("%s: a script of the document ran: window.__pwned = %s", path, pwned)
			}
			// Hovering and clicking what the document offers runs nothing.
			tb.do(chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('main a[href=""], main div, main p').forEach(e => {
				e.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
				e.dispatchEvent(new Event('error'));
			})`))
			if pwned := eval[string](tb, "String(window.__pwned)"); pwned != "undefined" {
				t.Errorf("%s: an event handler of the document ran: window.__pwned = %s", path, pwned)
			}
			if n := eval[int](tb, "document.querySelectorAll('main script, main iframe, main img, main style, main [onerror], main [onmouseover]').length"); n != 0 {
				t.Errorf("%s: %d live elements from the document", path, n)
			}
		}
		screenshots(tb, shots, "hostile")
		tb.clean("hostile")
	})

	t.Run("csp control", func(t *testing.T) {
		tb.t = t
		// The listener must see a violation, or "no violations" proves
		// nothing: an inline script added to the page is refused.
		tb.open("/")
		tb.do(chromedp.Evaluate[chromedp.Void]("{const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.appendChild(s);}"))
		if v := eval[string](tb, "String(window.__inline)"); v != "undefined" {
			t.Errorf("an inline script ran despite the policy")
		}
		tb.do(chromedp.Sleep(100 * time.Millisecond))
		errs := tb.errs.take()
		if !strings.Contains(strings.Join(errs, "\n"), "Content Security Policy") {
			t.Errorf("the listener saw no CSP violation for an inline script; it saw: %q", errs)
		}
	})

	t.Run("scoped token", func(t *testing.T) {
		other := newTab(t, bctx, ts.URL)
		other.login(tokenCLI)
		ids := eval[[]string](other, "[...document.querySelectorAll('#libraries .id code')].map(c => c.textContent)")
		if d := cmp.Diff([]string{"/acme/cli"}, ids); d != "" {
			t.Errorf("a /acme/cli token's catalog (-want +got):\n%s", d)
		}
		for _, path := range []string{"/acme/widgets", "/acme/widgets/-/query?q=install", "/evil/docs/-/doc/docs/hostile.md"} {
			other.errs.expect(ts.URL + path) // the 404 is the point
			other.open(path)
			if h := eval[string](other, "document.querySelector('h1').textContent"); h != "Not Found" {
				t.Errorf("%s for a /acme/cli token: %q, want Not Found", path, h)
			}
			if eval[bool](other, "document.body.textContent.includes('Acme Widgets') || document.body.textContent.includes('Hostile')") {
				t.Errorf("%s for a /acme/cli token shows the library", path)
			}
		}
		other.open("/-/resolve?name=widgets")
		if eval[bool](other, "document.body.textContent.includes('/acme/widgets')") {
			t.Error("resolve names /acme/widgets to a /acme/cli token")
		}
		other.clean("scoped token")
	})
}

// Screen sizes and colour schemes of the screenshots.
var (
	sizes = []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}}
	schemes = []string{"light", "dark"}
)

// screenshotDir is where screenshots go: $CODEX7_SCREENSHOTS, or ""
// (none taken, the checks at each size and scheme still made: encoding
// full pages is most of the test's time on a busy machine).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("CODEX7_SCREENSHOTS")
	if dir == "" {
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshots writes the page as it is, at each size and in each scheme,
// as NAME-SCHEME-SIZE.png into dir (unless dir is ""), and checks at each that nothing is wider than
// the screen and that every form control has a label.
func screenshots(tb *tab, dir, name string) {
	tb.t.Helper()
	for _, sz := range sizes {
		for _, scheme := range schemes {
			tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
				if _, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
					Width: sz.width, Height: sz.height, DeviceScaleFactor: 1, Mobile: sz.mobile}); err != nil {
					return err
				}
				_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
				return err
			}))
			if dark := eval[bool](tb, "matchMedia('(prefers-color-scheme: dark)').matches"); dark != (scheme == "dark") {
				tb.t.Errorf("%s %s: the page does not see the scheme", name, scheme)
			}
			if w := eval[int](tb, "document.documentElement.scrollWidth - document.documentElement.clientWidth"); w > 0 {
				tb.t.Errorf("%s at %s: the page is %d px wider than the screen", name, sz.name, w)
			}
			if dir == "" {
				continue
			}
			ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			cancel()
			if err != nil {
				tb.t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%s.png", name, scheme, sz.name)), png, 0o644); err != nil {
				tb.t.Fatal(err)
			}
		}
	}
	if unlabelled := eval[[]string](tb, "[...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).map(e => e.id || e.name)"); len(unlabelled) > 0 {
		tb.t.Errorf("%s: form controls without a label: %v", name, unlabelled)
	}
	if n := eval[int](tb, "document.querySelectorAll('h1').length"); n < 1 {
		tb.t.Errorf("%s: no h1", name)
	}
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	}))
}
