package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/context7test"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/search"
)

// fuzzTools are the tools FuzzToolArguments calls, by its tool argument.
var fuzzTools = []string{"resolve-library-id", "get-library-docs", "get-context7-docs"}

// maxToolErrorText bounds what a tool error may say: an agent reads it,
// and echoing a huge argument back helps no one.
const maxToolErrorText = 8 << 10

// FuzzToolArguments sends arbitrary JSON arguments to every tool through
// the real server and a real client (the SDK's in-memory transports), over
// the fixture library built once per fuzz process and a fake Context7, and
// checks the answers with checkCall. A panic in a handler fails it.
func FuzzToolArguments(f *testing.F) {
	cs, schemas := fuzzSession(f)
	seeds := []struct {
		tool uint8
		args string
	}{
		{0, `{"libraryName": "widgets"}`},
		{0, `{"libraryName": "widgets", "query": "polling", "maxResults": 3, "detail": "full"}`},
		{0, `{"libraryName": "next.js", "detail": "topics"}`},
		{0, `{"libraryName": "https://github.com/acme/widgets", "maxResults": -5}`},
		{0, `{"libraryName": "", "maxResults": 1e9}`},
		{0, `{"libraryName": "\u0000\ud800widgets", "detail": "everything"}`},
		{0, `{"libraryName": ["widgets"]}`},
		{0, `{"libraryName": "widgets", "extra": true}`},
		{0, `{}`},
		{0, `null`},
		{1, `{"libraryId": "/acme/widgets", "customQuery": "polling", "tokens": 300}`},
		{1, `{"libraryId": "/acme/widgets@v1.0.0", "topics": ["guides", "x"], "mode": "code", "page": 2}`},
		{1, `{"context7CompatibleLibraryID": "/acme/widgets", "topic": "data sources", "tokens": -1, "page": -1}`},
		{1, `{"libraryId": "/acme/widgets", "path": "docs/guides/data-sources.md", "outline": true}`},
		{1, `{"libraryId": "/acme/widgets", "path": "../../../etc/passwd"}`},
		{1, `{"libraryId": "/acme/widgets", "path": "."}`},
		{1, `{"libraryId": "/acme/widgets@v9", "query": "x"}`},
		{1, `{"libraryId": "/vercel/next.js", "customQuery": "routing"}`},
		{1, `{"libraryId": "/acme/widgets", "tokens": 2147483648, "page": 9223372036854775807}`},
		{1, `{"libraryId": "/acme/widgets", "tokens": "5000", "topics": "routing"}`},
		{1, `{"libraryId": "/acme/widgets", "topics": [null, 1, {}]}`},
		{1, `{"libraryId": "/acme/widgets", "customQuery": "` + strings.Repeat("polling ", 2000) + `"}`},
		{1, `[1, 2]`},
		{2, `{"libraryId": "/vercel/next.js", "topic": "routing"}`},
		{2, `{"libraryId": "/vercel/next.js/v15.1.8", "topic": "middleware", "mode": "code", "tokens": 300}`},
		{2, `{"libraryId": "/acme/many", "topic": "t", "page": "2", "limit": "1"}`},
		{2, `{"libraryId": "/acme/many", "page": 1.5, "limit": 1e300}`},
		{2, `{"libraryId": "/acme/widgets", "query": "polling"}`},
		{2, `{"libraryId": "nothing/here", "mode": "prose"}`},
		{2, `"just a string"`},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.args)
	}
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		if !json.Valid([]byte(args)) {
			return // no client can send it
		}
		checkCall(t, cs, schemas, fuzzTools[int(tool)%len(fuzzTools)], args)
	})
}

// FuzzToolParameters calls every tool with arguments that are always a
// JSON object of its parameters (and their aliases), with arbitrary
// values, some of the wrong JSON type: it reaches deeper into the handlers
// than FuzzToolArguments, whose mutations are mostly not valid JSON. The
// checks are the same (see checkCall).
func FuzzToolParameters(f *testing.F) {
	cs, schemas := fuzzSession(f)
	f.Add(uint8(0), "widgets", "polling", "", "", "full", 3, 0, 0, uint8(0))
	f.Add(uint8(1), "/acme/widgets", "data sources", "", "code", "guides,api", 300, 2, 0, uint8(0))
	f.Add(uint8(1), "/acme/widgets@v1.0.0", "", "docs/guides/data-sources.md", "", "", -1, -1, 0, uint8(1))
	f.Add(uint8(1), "/acme/widgets", "", `../..//./docs\\x`, "info", "", 1<<40, 1<<40, 0, uint8(2))
	f.Add(uint8(1), "/vercel/next.js", "routing", "", "", "", 0, 0, 0, uint8(4))
	f.Add(uint8(2), "/vercel/next.js", "routing", "", "code", "", 200, 2, 5, uint8(0))
	f.Add(uint8(2), "/acme/many/v1", "t", "", "", "", 50001, 11, 11, uint8(8))
	f.Add(uint8(2), "/acme/widgets", "polling", "", "", "", 0, 0, 0, uint8(16))
	f.Fuzz(func(t *testing.T, tool uint8, id, query, path, mode, list string, tokens, page, limit int, flags uint8) {
		name := fuzzTools[int(tool)%len(fuzzTools)]
		// flags: bit 0 sends numbers as strings, bit 1 a list as one
		// string, bit 2 the aliases, bit 3 null values, bit 4 an unknown
		// parameter.
		num := func(n int) any {
			if flags&1 != 0 {
				return fmt.Sprint(n)
			}
			return n
		}
		var items any = strings.Split(list, ",")
		if flags&2 != 0 || list == "" {
			items = list
		}
		args := map[string]any{}
		set := func(k string, v any, aliases ...string) {
			if flags&4 != 0 && len(aliases) > 0 {
				k = aliases[int(flags>>5)%len(aliases)]
			}
			if flags&8 != 0 && v == "" {
				v = nil
			}
			args[k] = v
		}
		switch name {
		case "resolve-library-id":
			set("libraryName", id)
			set("query", query)
			set("maxResults", num(tokens))
			set("detail", mode)
		case "get-library-docs":
			set("libraryId", id, "context7CompatibleLibraryID", "libraryID")
			set("customQuery", query, "query", "topic")
			set("topics", items)
			set("path", path)
			set("mode", mode)
			set("tokens", num(tokens))
			set("page", num(page))
			set("outline", limit%2 == 1)
		case "get-context7-docs":
			set("libraryId", id, "context7CompatibleLibraryID", "libraryID")
			set("topic", query, "query")
			set("mode", mode)
			set("tokens", num(tokens))
			set("page", num(page))
			set("limit", num(limit))
		}
		if flags&16 != 0 {
			args[path+"x"] = list
		}
		data, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		checkCall(t, cs, schemas, name, string(data))
	})
}

// checkCall calls tool name with args, JSON the client can send, and
// fails t unless, for a well-formed call (args a JSON object), there is
// no protocol error and the answer is either a result whose structured
// content matches the tool's output schema, with text, or a tool error
// that explains (see checkToolError). Other JSON may get a protocol
// error, but the session must stay usable.
func checkCall(t *testing.T, cs *mcp.ClientSession, schemas map[string]*jsonschema.Resolved, name, args string) {
	t.Helper()
	wellFormed := bytes.HasPrefix(bytes.TrimSpace([]byte(args)), []byte("{"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		if ctx.Err() != nil {
			t.Fatalf("%s %s: no answer in 30s", name, args)
		}
		if wellFormed {
			t.Fatalf("%s %s: protocol error %v for a well-formed call", name, args, err)
		}
		// The session must survive what it refused.
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "resolve-library-id", Arguments: map[string]any{"libraryName": "widgets"}}); err != nil {
			t.Fatalf("%s %s: the session broke: %v", name, args, err)
		}
		return
	}
	text := checkedToolText(t, name, args, res)
	if res.IsError {
		checkToolError(t, name, args, text)
		return
	}
	if res.StructuredContent == nil {
		t.Fatalf("%s %s: a result without structured content", name, args)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if err := schemas[name].Validate(v); err != nil {
		t.Fatalf("%s %s: output does not match its schema: %v\n%s", name, args, err, data)
	}
}

// checkedToolText returns the text of a result, failing t unless the result has
// text content only, at least one piece, all of it valid UTF-8 and not
// blank.
func checkedToolText(t *testing.T, name, args string, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("%s %s: a result without content", name, args)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s %s: content %T, want text", name, args, c)
		}
		b.WriteString(tc.Text)
	}
	text := b.String()
	if strings.TrimSpace(text) == "" || !utf8.ValidString(text) {
		t.Fatalf("%s %s: text %q, want valid UTF-8 that is not blank", name, args, text)
	}
	return text
}

// checkToolError fails t unless a tool error's text explains: a sentence
// or more (at least 20 bytes), at most maxToolErrorText bytes, and nothing
// of Go's internals (a panic, a stack, Go type names).
func checkToolError(t *testing.T, name, args, text string) {
	t.Helper()
	if len(text) < 20 || len(text) > maxToolErrorText {
		t.Fatalf("%s %s: tool error of %d bytes, want 20 to %d: %q", name, args, len(text), maxToolErrorText, clipText(text, 300))
	}
	for _, bad := range []string{"panic", "runtime error", "goroutine ", "nil pointer", "Go struct", "Go value", "server.", "<nil>", "%!"} {
		if strings.Contains(text, bad) {
			t.Fatalf("%s %s: tool error says %q: %q", name, args, bad, clipText(text, 300))
		}
	}
}

// fuzzSession builds the fixture library once, serves it with a fake
// Context7 and returns a connected client and the tools' output schemas.
func fuzzSession(f *testing.F) (*mcp.ClientSession, map[string]*jsonschema.Resolved) {
	w := gittest.New(f, "main")
	w.CopyDir("../fixtures/docs/acme-widgets", "")
	w.Commit("docs")
	w.Git("tag", "v1.0.0")
	out := f.TempDir()
	buildtest.Build(f, out, "libraries:\n  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    description: Dashboard widgets\n    repo: "+w.Dir+"\n    versions: [{ref: v1.0.0}, {ref: main}]\n")
	engine, err := search.Open(out)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { engine.Close() })
	fake := context7test.NewServer(f, context7test.Fixtures()...)
	c7 := context7.New(context7.Options{BaseURL: fake.BaseURL(), APIKey: context7test.Key})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(engine, "fuzz", WithContext7(c7)).Connect(ctx, st, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { cs.Close() })

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		f.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		data, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			f.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			f.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	for _, n := range fuzzTools {
		if schemas[n] == nil {
			f.Fatalf("tool %s not listed", n)
		}
	}
	return cs, schemas
}

// TestToolArgumentErrors checks that arguments of the wrong JSON type get
// a tool error naming the parameter and the JSON it takes, not Go types.
func TestToolArgumentErrors(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	for _, tc := range []struct {
		tool string
		args string
		want string
	}{
		{"get-library-docs", `[1, 2]`, "the arguments must be an object of parameters, got an array"},
		{"resolve-library-id", `"widgets"`, "the arguments must be an object of parameters, got a string"},
		{"resolve-library-id", `{"libraryName": "widgets", "maxResults": 1.5}`, "maxResults must be a whole number, got 1.5"},
		{"resolve-library-id", `{"libraryName": ["widgets"]}`, "libraryName must be a string, got an array"},
		{"get-library-docs", `{"libraryId": "/acme/widgets", "topics": ["a", 1]}`, "topics must be an array of strings, got an item that is a number"},
		{"get-library-docs", `{"libraryId": "/acme/widgets", "outline": "yes"}`, "outline must be true or false, got a string"},
		{"get-library-docs", `{"libraryId": "/acme/widgets", "tokens": 1.` + strings.Repeat("0", 500) + `1}`, "tokens must be a whole number, got 1.000"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.tool, tc.args, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "invalid arguments: "+tc.want) || len(text) > 200 {
			t.Errorf("%s %s: got %q, want a short tool error with %q", tc.tool, tc.args, text, tc.want)
		}
		checkToolError(t, tc.tool, tc.args, text)
	}
}
