package request

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseKey(t *testing.T) {
	next := Key{ID: "/vercel/next.js"}
	tests := []struct {
		name string
		in   string
		want Key
	}{
		// Seed 001, Library Key Normalization.
		{"seed full format", "vercel/next.js", next},
		{"seed leading slash", "/vercel/next.js", next},
		{"seed version suffix", "/vercel/next.js/v16.0.3", Key{ID: "/vercel/next.js", Version: "v16.0.3"}},
		{"seed github url", "https://github.com/vercel/next.js", next},
		{"seed shorthand name", "next.js", Key{Name: "next.js"}},
		{"seed stray quotes", `"vercel/next.js"`, next},
		{"seed double slashes", "vercel//next.js", next},

		{"trailing slash", "vercel/next.js/", next},
		{"many slashes", "///vercel///next.js///", next},
		{"version path without leading slash", "vercel/next.js/15.1.0", Key{ID: "/vercel/next.js", Version: "15.1.0"}},
		{"version path trailing slash", "/vercel/next.js/canary/", Key{ID: "/vercel/next.js", Version: "canary"}},
		{"at version", "/vercel/next.js@v16.0.3", Key{ID: "/vercel/next.js", Version: "v16.0.3"}},
		{"at version no leading slash", "vercel/next.js@15.1.0", Key{ID: "/vercel/next.js", Version: "15.1.0"}},
		{"at version canary", "/vercel/next.js@canary", Key{ID: "/vercel/next.js", Version: "canary"}},
		{"name with version", "react@18", Key{Name: "react", Version: "18"}},
		{"bare name", "react", Key{Name: "react"}},
		{"bare name trailing slash", "react/", Key{Name: "react"}},
		{"case kept", "/Microsoft/TypeScript", Key{ID: "/Microsoft/TypeScript"}},
		{"underscore", "/websites/react_dev", Key{ID: "/websites/react_dev"}},

		{"single quotes", `'vercel/next.js'`, next},
		{"backticks", "`/vercel/next.js`", next},
		{"mixed quotes and spaces", ` " '/vercel/next.js' " `, next},
		{"escaped quotes", `\"vercel/next.js\"`, next},
		{"typographic quotes", "“vercel/next.js”", next},
		{"spaces around segments", "vercel / next.js", next},
		{"no-break space", "\u00a0vercel/next.js\u00a0", next},

		{"github www", "https://www.github.com/vercel/next.js", next},
		{"github http", "http://github.com/vercel/next.js", next},
		{"github no scheme", "github.com/vercel/next.js", next},
		{"github upper case host", "HTTPS://GitHub.com/vercel/next.js", next},
		{"github .git", "https://github.com/vercel/next.js.git", next},
		{"github trailing slash", "https://github.com/vercel/next.js/", next},
		{"github tree path dropped", "https://github.com/vercel/next.js/tree/canary/docs/01-app", next},
		{"github blob path dropped", "https://github.com/vercel/next.js/blob/v15.0.0/README.md", next},
		{"github query and fragment", "https://github.com/vercel/next.js?tab=readme#getting-started", next},
		{"github scp", "git@github.com:vercel/next.js.git", next},
		{"github ssh", "ssh://git@github.com/vercel/next.js.git", next},
		{"github quoted", `"https://github.com/vercel/next.js"`, next},

		{"context7 url", "https://context7.com/vercel/next.js", next},
		{"context7 url version", "https://context7.com/vercel/next.js/v15.1.8", Key{ID: "/vercel/next.js", Version: "v15.1.8"}},
		{"context7 llms.txt", "https://context7.com/vercel/next.js/llms.txt", next},
		{"context7 version llms.txt", "https://context7.com/vercel/next.js/v15.1.8/llms.txt?topic=routing", Key{ID: "/vercel/next.js", Version: "v15.1.8"}},
		{"context7 no scheme", "context7.com/vercel/next.js", next},
		{"context7 www", "www.context7.com/vercel/next.js", next},
		{"context7 at version", "https://context7.com/vercel/next.js@v15", Key{ID: "/vercel/next.js", Version: "v15"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKey(tt.in)
			if err != nil {
				t.Fatalf("ParseKey(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseKey(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseKeyErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// wantMsg is a part of the message that must be there.
		wantMsg string
	}{
		{"empty", "", "empty"},
		{"spaces", "   ", "empty"},
		{"quotes only", `""`, "empty"},
		{"slashes only", "///", "no org or project"},
		{"junk only", "\u200b\ufeff", "U+200B (an invisible character)"},
		{"tab and newline around", "  \t/vercel/next.js\n", "U+0009 (a control character)"},
		{"zero width space", "/vercel/\u200bnext.js", "U+200B (an invisible character) at byte 8"},
		{"byte order mark", "\ufeffvercel/next.js", "U+FEFF"},
		{"bidi override", "/vercel/next.js\u202e", "U+202E"},
		{"NUL at the end", "/tiangolo/fastapi\x00", "U+0000 (a control character)"},
		{"invalid utf-8", "\xffvercel/next.js\xfe", "not valid UTF-8"},
		{"soft hyphen", "vercel/next\u00ad.js", "U+00AD"},
		{"four segments", "/a/b/c/d", "4 path segments"},
		{"version after three segments", "/a/b/c@d", "@version must follow org/project"},
		{"empty version", "/vercel/next.js@", "version after @ is empty"},
		{"missing name", "@v1", "a name must come before @"},
		{"double at", "/vercel/next.js@a@b", `character '@'`},
		{"scoped npm name", "@tanstack/react-query", `character '@'`},
		{"space inside", "react router", `character ' '`},
		{"inner quote", `vercel/"next.js"`, `character '"'`},
		{"backslash", `vercel\next.js`, `character '\\'`},
		{"unicode letter", "/vercel/nëxt.js", `character 'ë'`},
		{"emoji", "/vercel/next.js🚀", `character '🚀'`},
		{"dots only", "/vercel/..", `".." is not a name`},
		{"dot version", "/vercel/next.js/.", `"." is not a name`},
		{"control char", "/vercel/ne\x00xt.js", "U+0000"},
		{"query without url", "/vercel/next.js?x=1", `character '?'`},
		{"gitlab url", "https://gitlab.com/org/project", `URLs of "gitlab.com"`},
		{"github org only", "https://github.com/vercel", "GitHub URL must name the org and the project"},
		{"github host only", "github.com", "GitHub URL must name the org and the project"},
		{"context7 org only", "https://context7.com/vercel/llms.txt", "context7.com URL must name the org and the project"},
		{"context7 too deep", "https://context7.com/a/b/c/d", "4 path segments"},
		{"host as org", "https://context7.com/github.com/foo", "is a host name"},
		{"too long", "/vercel/" + strings.Repeat("a", maxKeyLen), "longer than 1024 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKey(tt.in)
			if err == nil {
				t.Fatalf("ParseKey(%q) = %+v, want an error", tt.in, got)
			}
			if !errors.Is(err, ErrInvalidKey) {
				t.Errorf("ParseKey(%q) error %v does not wrap ErrInvalidKey", tt.in, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("ParseKey(%q) error %q does not contain %q", tt.in, msg, tt.wantMsg)
			}
			if !strings.HasPrefix(msg, "invalid library id ") || !strings.Contains(msg, `use "/org/project", "/org/project@version"`) {
				t.Errorf("ParseKey(%q) error %q does not say which forms to use", tt.in, msg)
			}
			if bad := strings.Contains(tt.wantMsg, "U+") || strings.Contains(tt.wantMsg, "UTF-8"); errors.Is(err, ErrInvalidCharacter) != bad {
				t.Errorf("ParseKey(%q) error %v: wraps ErrInvalidCharacter %v, want %v", tt.in, err, !bad, bad)
			}
			if got != (Key{}) {
				t.Errorf("ParseKey(%q) = %+v with an error, want the zero Key", tt.in, got)
			}
		})
	}
}

func TestKeyString(t *testing.T) {
	tests := []struct {
		key  Key
		want string
	}{
		{Key{ID: "/vercel/next.js"}, "/vercel/next.js"},
		{Key{ID: "/vercel/next.js", Version: "v16.0.3"}, "/vercel/next.js@v16.0.3"},
		{Key{Name: "next.js"}, "next.js"},
		{Key{Name: "react", Version: "18"}, "react@18"},
		{Key{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.key.String(); got != tt.want {
				t.Errorf("%+v.String() = %q, want %q", tt.key, got, tt.want)
			}
			if tt.want == "" {
				return
			}
			back, err := ParseKey(tt.want)
			if err != nil || back != tt.key {
				t.Errorf("ParseKey(%q) = %+v, %v; want %+v", tt.want, back, err, tt.key)
			}
		})
	}
}

func TestNormalizeTopic(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// Seed 001, Topic Normalization.
		{"seed stray quotes", `"PPR"`, "PPR"},
		{"seed placeholder", "<relevant topic>", ""},
		{"seed path-like", "app/partial-pre-rendering/index", "partial pre-rendering"},
		{"seed kebab-case", "partial-pre-rendering", "partial pre rendering"},

		{"empty", "", ""},
		{"plain", "routing", "routing"},
		{"whitespace", "  multiple \t  spaces\n", "multiple spaces"},
		{"single quotes", "'hooks'", "hooks"},
		{"backticks", "`useState`", "useState"},
		{"typographic quotes", "“server actions”", "server actions"},
		{"escaped quotes", `\"routing\"`, "routing"},
		{"escaped quote inside", `foo\"bar`, "foobar"},
		{"quoted word inside", `the "use client" directive`, "the use client directive"},
		{"single-quoted word inside", "the 'use client' directive", "the use client directive"},
		{"apostrophe kept", "what's new", "what's new"},
		{"zero width junk", "\u200brouting\ufeff", "routing"},
		{"invalid utf-8", "rout\xffing", "routing"},
		{"control chars", "data\x00fetching", "data fetching"},
		{"no-break space", "data\u00a0fetching", "data fetching"},

		{"placeholder topic", "<topic>", ""},
		{"placeholder square", "[topic]", ""},
		{"placeholder curly", "{topic}", ""},
		{"placeholder double curly", "{{ topic }}", ""},
		{"placeholder dollar", "${topic}", ""},
		{"placeholder quoted", `"<relevant topic>"`, ""},
		{"placeholder query", "<search query>", ""},
		{"placeholder kebab", "<your-topic-here>", ""},
		{"placeholder upper", "<RELEVANT TOPIC>", ""},
		{"placeholder empty brackets", "<>", ""},
		{"placeholder text", "your topic here", ""},
		{"placeholder relevant topic", "relevant topic", ""},
		{"placeholder extract", "extract from question", ""},
		{"placeholder n/a", "N/A", ""},
		{"placeholder none", "None", ""},
		{"placeholder null", "null", ""},
		{"placeholder general", "General", ""},
		{"placeholder ellipsis", "...", ""},
		{"placeholder dash", "-", ""},
		{"component kept", "<Suspense>", "<Suspense>"},
		{"dynamic segment kept", "[slug]", "[slug]"},
		{"topic inside a sentence kept", "topic modeling", "topic modeling"},

		{"path index.md", "docs/routing/index.md", "routing"},
		{"path readme", "guides/getting-started/README.md", "getting started"},
		{"path mdx", "app/api-reference/functions/use-search-params.mdx", "use search params"},
		{"path trailing slash", "docs/data-fetching/", "data fetching"},
		{"path leading slash", "/api", "api"},
		{"path single prefix word", "docs/pre-rendering", "pre rendering"},
		{"path prefix in middle", "guide/non-blocking-io", "non-blocking io"},
		{"path identifier", "hooks/reference/useState", "useState"},
		{"path url", "https://nextjs.org/docs/app/building-your-application/rendering/partial-prerendering#how-it-works", "partial prerendering"},
		{"path slash only", "/", ""},
		{"path all index", "/index/README.md", ""},
		{"path snake", "docs/server_side_rendering", "server side rendering"},
		{"path quoted", `"docs/routing/"`, "routing"},
		{"slash pair kept", "I/O", "I/O"},
		{"async/await kept", "async/await", "async/await"},
		{"import path kept", "next/link", "next/link"},
		{"scoped package kept", "@tanstack/react-query", "@tanstack/react-query"},
		{"scoped subpath kept", "react-dom/server", "react-dom/server"},
		{"slash in sentence kept", "client / server components", "client / server components"},

		{"kebab", "server-side-rendering", "server side rendering"},
		{"snake", "server_side_rendering", "server side rendering"},
		{"mixed separators", "server_side-rendering", "server side rendering"},
		{"kebab with digits", "web-vitals-v2", "web vitals v2"},
		{"kebab quoted", "'data-fetching'", "data fetching"},
		{"camel case kept", "useState", "useState"},
		{"dotted kept", "app.use", "app.use"},
		{"screaming snake kept", "NEXT_PUBLIC_URL", "NEXT_PUBLIC_URL"},
		{"capitalized kebab kept", "Content-Type", "Content-Type"},
		{"dunder kept", "__init__", "__init__"},
		{"double separator kept", "a--b", "a--b"},
		{"multi-word kept", "server-side rendering", "server-side rendering"},
		{"question kept", "how do I use useState with TypeScript?", "how do I use useState with TypeScript?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NormalizeTopic(tt.in)
			if got != tt.want {
				t.Errorf("NormalizeTopic(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := NormalizeTopic(got); again != got {
				t.Errorf("NormalizeTopic(%q) = %q, not idempotent", got, again)
			}
		})
	}
}

func TestNormalizeTopics(t *testing.T) {
	many := make([]string, 0, 25)
	for i := range 25 {
		many = append(many, fmt.Sprintf("topic-%d", i))
	}
	first20 := make([]string, 0, 20)
	for i := range 20 {
		first20 = append(first20, fmt.Sprintf("topic %d", i))
	}
	tests := []struct {
		name       string
		in         []string
		want       []string
		wantCapped bool
	}{
		{"nil", nil, nil, false},
		{"all empty", []string{"", " ", "<topic>", "none"}, nil, false},
		{"order kept", []string{"routing", `"PPR"`, "caching"}, []string{"routing", "PPR", "caching"}, false},
		{"duplicates case-insensitive", []string{"Routing", "routing", "ROUTING", "caching"}, []string{"Routing", "caching"}, false},
		{"duplicates after normalizing", []string{"data-fetching", "Data Fetching", "docs/data-fetching/index.md"}, []string{"data fetching"}, false},
		{"exactly max", first20, first20, false},
		{"capped", many, first20, true},
		{"duplicates do not count toward the cap", append(slices.Clone(first20), "topic 0", "", "TOPIC 1"), first20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, capped := NormalizeTopics(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("NormalizeTopics(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if capped != tt.wantCapped {
				t.Errorf("NormalizeTopics(%q) capped = %v, want %v", tt.in, capped, tt.wantCapped)
			}
		})
	}
}

// FuzzParseKey checks ParseKey's contract on any input: it never panics;
// an error wraps ErrInvalidKey, comes with the zero Key, says which forms
// to use and stays short whatever the input; a Key has exactly one of ID
// ("/org/project") and Name, every part made of [A-Za-z0-9._-] and not of
// dots alone, and is a fixed point: ParseKey(k.String()) gives k back.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{
		"vercel/next.js", "/vercel/next.js", "/vercel/next.js/v16.0.3", "/vercel/next.js@v16.0.3",
		"vercel/next.js@15.1.0", "https://github.com/vercel/next.js", "https://github.com/vercel/next.js.git",
		"https://github.com/vercel/next.js/tree/canary/docs", "git@github.com:vercel/next.js.git",
		"https://context7.com/vercel/next.js/v15.1.8/llms.txt", "context7.com/vercel/next.js",
		"next.js", "react@18", `"vercel/next.js"`, "vercel//next.js", "\u200b/a/b\ufeff", "/a/b/c/d",
		"https://gitlab.com/a/b", "@types/node", "/github.com/a", "", " ",
		"ssh://git@github.com:22/a/b.git?x#y", "HTTPS://WWW.GITHUB.COM./a/b", "/a/b/" + strings.Repeat("é", 500),
		"/a/" + strings.Repeat("\x01", 1000) + "b", "https://" + strings.Repeat("h", 1000) + "/a/b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("ParseKey(%q) error %v does not wrap ErrInvalidKey", s, err)
			}
			if k != (Key{}) {
				t.Fatalf("ParseKey(%q) = %+v with an error", s, k)
			}
			msg := err.Error()
			if !strings.HasSuffix(msg, keyForms) || !utf8.ValidString(msg) {
				t.Fatalf("ParseKey(%q) error %q does not end with the forms to use", s, msg)
			}
			if len(msg) > maxKeyMessage {
				t.Fatalf("ParseKey(%q) error is %d bytes, want at most %d", s, len(msg), maxKeyMessage)
			}
			return
		}
		if (k.ID == "") == (k.Name == "") {
			t.Fatalf("ParseKey(%q) = %+v, want exactly one of ID and Name", s, k)
		}
		parts := []string{k.Name}
		if k.ID != "" {
			if !strings.HasPrefix(k.ID, "/") || strings.Count(k.ID, "/") != 2 {
				t.Fatalf("ParseKey(%q) ID = %q, want /org/project", s, k.ID)
			}
			parts = strings.Split(k.ID[1:], "/")
		}
		if k.Version != "" {
			parts = append(parts, k.Version)
		}
		for _, p := range parts {
			if strings.Trim(p, ".") == "" || strings.IndexFunc(p, func(r rune) bool { return !isKeyRune(r) }) >= 0 {
				t.Fatalf("ParseKey(%q) = %+v: part %q is not [A-Za-z0-9._-]+ or is dots only", s, k, p)
			}
		}
		back, err := ParseKey(k.String())
		if err != nil {
			t.Fatalf("ParseKey(%q) = %+v, but ParseKey(%q): %v", s, k, k.String(), err)
		}
		if back != k {
			t.Fatalf("ParseKey(%q) = %+v, but ParseKey(%q) = %+v", s, k, k.String(), back)
		}
	})
}

// maxKeyMessage bounds ParseKey's error messages, which quote at most
// maxShownRunes runes of the input and of each part they name.
const maxKeyMessage = 2048

// FuzzNormalizeTopic checks NormalizeTopic's contract on any input: it
// never panics; its result is idempotent (and reached in at most
// maxTopicPasses passes, so that normalizing stays linear), valid UTF-8,
// no longer than the input, with single spaces as its only whitespace and
// no control, format or replacement characters, double quotes or
// backticks; and NormalizeTopics of the input and of the result gives the
// result once.
func FuzzNormalizeTopic(f *testing.F) {
	for _, s := range []string{
		`"PPR"`, "<relevant topic>", "app/partial-pre-rendering/index", "partial-pre-rendering",
		"server_side_rendering", "useState", "app.use", "docs/pre-rendering", "I/O", "{{topic}}",
		`\"x\"`, "it's", "'a' 'b'", "https://x.org/a/b-c.md#d", "\u200b \ufeff", "a--b", "/", "",
		`\\\"a\\\"`, "<[{${topic}}]>", "'''a'''", "a/b/index.md/README", "x\u00a0\u2028y", "a\x00-\x01b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := NormalizeTopic(s)
		if again := NormalizeTopic(got); again != got {
			t.Fatalf("NormalizeTopic(%q) = %q, but NormalizeTopic(%q) = %q", s, got, got, again)
		}
		if n := topicPasses(s); n > maxTopicPasses {
			t.Fatalf("NormalizeTopic(%q) took %d passes, want at most %d", s, n, maxTopicPasses)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("NormalizeTopic(%q) = %q, invalid UTF-8", s, got)
		}
		if len(got) > len(s) {
			t.Fatalf("NormalizeTopic(%q) = %q, longer than its input", s, got)
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("NormalizeTopic(%q) = %q, whitespace not collapsed", s, got)
		}
		for _, r := range got {
			if r != ' ' && unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || isDoubleQuote(r) {
				t.Fatalf("NormalizeTopic(%q) = %q, holds %q", s, got, r)
			}
		}
		want := []string{got}
		if got == "" {
			want = nil
		}
		if ts, capped := NormalizeTopics([]string{s, got}); !slices.Equal(ts, want) || capped {
			t.Fatalf("NormalizeTopics(%q, %q) = %q, %v; want %q, false", s, got, ts, capped, want)
		}
	})
}

// maxTopicPasses is the most passes of normalizeTopicOnce any topic needs.
const maxTopicPasses = 4

// topicPasses returns how many passes of normalizeTopicOnce take s to its
// fixed point, counting the last one, which changes nothing.
func topicPasses(s string) int {
	s = strings.ToValidUTF8(s, "")
	for n := 1; ; n++ {
		next := normalizeTopicOnce(s)
		if next == s || n > 2*len(s)+2 {
			return n
		}
		s = next
	}
}
