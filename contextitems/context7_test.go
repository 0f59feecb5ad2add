package contextitems

import (
	"context"
	"strings"
	"testing"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/context7test"
)

// TestContext7Remote runs Assemble with no local artifacts and the
// Context7 adapter over the fake Context7: a library the prompt names is
// resolved by name and answered from Context7, with its sources.
func TestContext7Remote(t *testing.T) {
	fake := context7test.NewServer(t, context7test.Fixtures()...)
	client := context7.New(context7.Options{BaseURL: fake.BaseURL(), APIKey: context7test.Key})
	res := Assemble(context.Background(), "how do dynamic routes work in next.js?", Options{Remote: Context7{Client: client}})
	if len(res.Items) == 0 {
		t.Fatalf("no items: %+v", res)
	}
	for _, it := range res.Items {
		if it.Source != SourceRemote || it.Library != "/vercel/next.js" || !strings.HasPrefix(it.URL, "https://github.com/vercel/next.js/") {
			t.Errorf("item %+v: want a remote Next.js item with its source URL", it)
		}
	}
	// Context7 failing (a wrong key) leaves fewer items, never an error.
	bad := context7.New(context7.Options{BaseURL: fake.BaseURL(), APIKey: "wrong"})
	if res := Assemble(context.Background(), "next.js dynamic routes", Options{Remote: Context7{Client: bad}}); len(res.Items) != 0 {
		t.Errorf("items %+v from a refused key", res.Items)
	}
}

// TestContext7FailureIsNotUnknown checks that Context7 refusing the key
// marks the library as an error, not as one Context7 does not know.
func TestContext7FailureIsNotUnknown(t *testing.T) {
	fake := context7test.NewServer(t, context7test.Fixtures()...)
	bad := context7.New(context7.Options{BaseURL: fake.BaseURL(), APIKey: "wrong"})
	res := Assemble(context.Background(), "next.js dynamic routes", Options{Remote: Context7{Client: bad}})
	if len(res.Libraries) != 1 || res.Libraries[0].Status != StatusError || res.Libraries[0].Error == "" {
		t.Errorf("libraries %+v: want one with status error and the reason", res.Libraries)
	}
	good := context7.New(context7.Options{BaseURL: fake.BaseURL(), APIKey: context7test.Key})
	res = Assemble(context.Background(), "how do I use the zzyzx-nonexistent package? npm install zzyzx-nonexistent", Options{Remote: Context7{Client: good}})
	for _, l := range res.Libraries {
		if l.Status != StatusUnknown {
			t.Errorf("library %+v: want unknown", l)
		}
	}
}

// TestContext7InvisibleCharactersInPrompt: Context7 refuses a topic with
// control or invisible characters, and the query is the topic; a prompt
// holding one (the zero-width joiner of 🧑‍💻, a zero-width space pasted from
// a web page, the ESC of a coloured terminal line) must still get the
// documentation of the library it names, not an error.
func TestContext7InvisibleCharactersInPrompt(t *testing.T) {
	fake := context7test.NewServer(t, context7test.Fixtures()...)
	client := context7.New(context7.Options{BaseURL: fake.BaseURL(), APIKey: context7test.Key})
	for _, prompt := range []string{
		"🧑\u200d💻 how do dynamic routes work in next.js?",
		"\u200bnext.js dynamic routes\ufeff",
		"next.js build fails: \x1b[1;31mError: page not found\x1b[0m \xff",
	} {
		res := Assemble(context.Background(), prompt, Options{Remote: Context7{Client: client}})
		if len(res.Libraries) != 1 || res.Libraries[0].Status != StatusOK || len(res.Items) == 0 {
			t.Errorf("prompt %q: libraries %+v, %d items: want Next.js from Context7", prompt, res.Libraries, len(res.Items))
		}
	}
}
