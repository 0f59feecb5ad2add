package context7

import (
	"net/http"
	"testing"

	"github.com/codex7/codex7/context7/context7test"
)

// testKey is the API key the fake accepts.
const testKey = context7test.Key

var (
	apiError = context7test.APIError
	info     = context7test.Info
)

// fake is context7test's server with the fixture libraries, and helpers
// for these tests.
type fake struct {
	*context7test.Server
	srv *context7test.Server
}

func newFake(t *testing.T) *fake {
	t.Helper()
	s := context7test.NewServer(t, context7test.Fixtures()...)
	return &fake{Server: s, srv: s}
}

// client returns a client of the fake, with the test key unless opts has
// another.
func (f *fake) client(opts Options) *Client {
	opts.BaseURL = f.BaseURL()
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	return New(opts)
}

func (f *fake) setOverride(h func(w http.ResponseWriter, r *http.Request) bool) { f.Override(h) }

func (f *fake) addLib(l context7test.Library) { f.Add(l) }

func (f *fake) count() int { return f.Count() }

func (f *fake) last(t *testing.T) *http.Request {
	t.Helper()
	r := f.Last()
	if r == nil {
		t.Fatal("no request reached the fake")
	}
	return r
}

func TestFakeAgrees(t *testing.T) {
	if GeneralQuery != context7test.GeneralQuery {
		t.Errorf("context7test.GeneralQuery is %q, want %q", context7test.GeneralQuery, GeneralQuery)
	}
}
