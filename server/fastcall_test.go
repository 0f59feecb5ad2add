package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answer is what one POST to /mcp got.
type answer struct {
	status      int
	contentType string // without parameters
	body        string
	length      int64  // Content-Length, -1 when not given
	data        []byte // the JSON-RPC message of a 200: the body, or its event's data
	msg         any    // data decoded, numbers as written
}

// postMCP sends c's body to url's /mcp as c says (method, Content-Type,
// Accept) with the protocol version ("" for none), and reads the answer.
func postMCP(t *testing.T, url, version string, c mcpCase) answer {
	t.Helper()
	return postMCPWith(context.Background(), t, url, version, c, nil)
}

// postMCPWith is postMCP within ctx, with more headers ("Host" sets the
// request's host).
func postMCPWith(ctx context.Context, t *testing.T, url, version string, c mcpCase, header map[string]string) answer {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, url+"/mcp", strings.NewReader(c.raw))
	if err != nil {
		t.Fatal(err)
	}
	switch c.contentType {
	case "":
		req.Header.Set("Content-Type", "application/json")
	case "none":
	default:
		req.Header.Set("Content-Type", c.contentType)
	}
	if !c.noAccept {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, body: string(body), length: resp.ContentLength}
	a.contentType, _, _ = strings.Cut(resp.Header.Get("Content-Type"), ";")
	if resp.StatusCode != http.StatusOK {
		return a
	}
	data := body
	if a.contentType == "text/event-stream" {
		for line := range strings.Lines(string(body)) {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = []byte(d)
			}
		}
	}
	a.data = data
	// Numbers as written, so that ids are compared digit for digit.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&a.msg); err != nil {
		t.Fatalf("%s: a 200 without a JSON-RPC message: %v\n%.300s", c.name, err, body)
	}
	return a
}

// fastCases are requests for TestFastCallsMatchSDK beyond the hostile
// ones: normal calls of every kind, and requests just outside what the fast
// path takes (fast says which the fast path should answer itself).
func fastCases() []struct {
	mcpCase
	fast bool
} {
	const docs, resolve, c7 = "get-library-docs", "resolve-library-id", "get-context7-docs"
	call := func(id, tool, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	type fc = struct {
		mcpCase
		fast bool
	}
	return []fc{
		{mcpCase{name: "query", raw: call("1", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, true},
		{mcpCase{name: "code", raw: call("2", docs, `{"libraryId":"/acme/widgets","customQuery":"create a widget","mode":"code"}`)}, true},
		{mcpCase{name: "topics", raw: call("3", docs, `{"libraryId":"/acme/widgets","topics":["guides"]}`)}, true},
		{mcpCase{name: "document", raw: call("4", docs, `{"libraryId":"/acme/widgets","path":"docs/guides/data-sources.md"}`)}, true},
		{mcpCase{name: "folder", raw: call("5", docs, `{"libraryId":"/acme/widgets","path":"."}`)}, true},
		{mcpCase{name: "outline", raw: call("6", docs, `{"libraryId":"/acme/widgets","path":"docs/guides/data-sources.md","outline":true}`)}, true},
		{mcpCase{name: "small budget, page 2", raw: call("7", docs, `{"libraryId":"/acme/widgets","customQuery":"widget","tokens":200,"page":2}`)}, true},
		{mcpCase{name: "old version", raw: call("8", docs, `{"libraryId":"/acme/widgets@v1.0.0","customQuery":"polling"}`)}, true},
		{mcpCase{name: "unknown library", raw: call("9", docs, `{"libraryId":"/acme/nothing","customQuery":"polling"}`)}, true},
		{mcpCase{name: "unknown topic", raw: call("10", docs, `{"libraryId":"/acme/widgets","topics":["nope"]}`)}, true},
		{mcpCase{name: "no arguments", raw: `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get-library-docs"}}`}, true},
		{mcpCase{name: "resolve", raw: call("12", resolve, `{"libraryName":"widgets"}`)}, true},
		{mcpCase{name: "resolve full", raw: call("13", resolve, `{"libraryName":"widgets","detail":"full"}`)}, true},
		{mcpCase{name: "resolve bad detail", raw: call("14", resolve, `{"libraryName":"widgets","detail":"all"}`)}, true},
		{mcpCase{name: "context7", raw: call("15", c7, `{"libraryId":"/facebook/react","topic":"hooks"}`)}, true},
		{mcpCase{name: "string id", raw: call(`"a\u00e9\"b"`, docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, true},
		{mcpCase{name: "negative id", raw: call("-42", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, true},
		{mcpCase{name: "id 0", raw: call("0", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, true},
		{mcpCase{name: "escaped tool name", raw: call("16", `get-library\u002ddocs`, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, true},
		{mcpCase{name: "progress token", raw: `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"_meta":{"progressToken":"p1"},"name":"get-library-docs","arguments":{"libraryId":"/acme/widgets","customQuery":"polling"}}}`}, true},
		{mcpCase{name: "arguments 999 deep", raw: call("18", docs, `{"libraryId":"/acme/widgets","topics":`+strings.Repeat("[", 997)+strings.Repeat("]", 997)+`}`)}, true},
		{mcpCase{name: "text with HTML and control characters", raw: call("19", resolve, `{"libraryName":"<b>&\u0001\u2028"}`)}, true},
		// Left to the SDK.
		{mcpCase{name: "arguments 1,000 deep", raw: call("20", docs, `{"libraryId":"/acme/widgets","topics":`+strings.Repeat("[", 998)+strings.Repeat("]", 998)+`}`)}, false},
		{mcpCase{name: "fractional id", raw: call("1.5", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, false},
		{mcpCase{name: "id with exponent", raw: call("1e2", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, false},
		{mcpCase{name: "id null", raw: call("null", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, false},
		{mcpCase{name: "no id", raw: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get-library-docs","arguments":{}}}`}, false},
		{mcpCase{name: "other metadata", raw: `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"_meta":{"trace":"x"},"name":"get-library-docs","arguments":{"libraryId":"/acme/widgets","customQuery":"polling"}}}`}, false},
		{mcpCase{name: "extra member", raw: `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"get-library-docs","arguments":{}},"x":1}`}, false},
		{mcpCase{name: "extra parameter", raw: `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"get-library-docs","arguments":{},"task":{}}}`}, false},
		{mcpCase{name: "Method in another case", raw: `{"jsonrpc":"2.0","id":24,"Method":"tools/call","params":{"name":"get-library-docs","arguments":{}}}`}, false},
		{mcpCase{name: "tools/list", raw: `{"jsonrpc":"2.0","id":25,"method":"tools/list"}`}, false},
		{mcpCase{name: "unknown tool", raw: call("26", "nope", `{}`)}, false},
		{mcpCase{name: "id of 15 digits", raw: call("123456789012345", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, true},
		{mcpCase{name: "id of 17 digits", raw: call("12345678901234567", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, false},
		{mcpCase{name: "id -0", raw: call("-0", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, false},
		{mcpCase{name: "string id not UTF-8", raw: call("\"a\xffb\"", docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`)}, false},
		{mcpCase{name: "another method with a tool name", raw: `{"jsonrpc":"2.0","id":27,"method":"prompts/get","params":{"name":"get-library-docs","arguments":{}}}`}, false},
	}
}

// TestFastCallsMatchSDK sends the same requests to a Handler and to one
// that answers everything through the SDK, and checks that the answers
// agree: status, body, and the JSON-RPC message whether it comes as JSON
// or as an event. Normal calls go at every protocol version the fast path
// serves, and must be answered by it (as JSON; the SDK sends events).
func TestFastCallsMatchSDK(t *testing.T) {
	engine, fake := hostileEngine(t)
	fastURL := serveHardened(t, engine, fake, HTTPOptions{})
	sdkURL := serveHardened(t, engine, fake, HTTPOptions{sdkOnly: true})
	compare := func(t *testing.T, version string, c mcpCase) (fast, sdk answer) {
		t.Helper()
		fast, sdk = postMCP(t, fastURL, version, c), postMCP(t, sdkURL, version, c)
		if fast.status != sdk.status {
			t.Fatalf("status %d, the SDK's %d\nfast: %.300s\nSDK: %.300s", fast.status, sdk.status, fast.body, sdk.body)
		}
		if fast.status != http.StatusOK && fast.body != sdk.body {
			t.Errorf("body %.300q, the SDK's %.300q", fast.body, sdk.body)
		}
		if !reflect.DeepEqual(fast.msg, sdk.msg) {
			f, _ := json.Marshal(fast.msg)
			s, _ := json.Marshal(sdk.msg)
			t.Errorf("answer differs\nfast: %.600s\nSDK:  %.600s", f, s)
		}
		return fast, sdk
	}
	for _, c := range hostileMCPCases() {
		if c.tool != "" {
			args, err := json.Marshal(c.args)
			if err != nil {
				t.Fatal(err)
			}
			c.raw = toolCall(c.tool, string(args))
		}
		t.Run("hostile/"+c.name, func(t *testing.T) { compare(t, "2025-11-25", c) })
	}
	// Requests the SDK refuses whatever their body: the fast path must
	// leave them to it.
	docsCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"libraryId":"/acme/widgets","customQuery":"polling"}}}`
	for _, c := range []struct {
		name, version string
		header        map[string]string
	}{
		{"Host not loopback (DNS rebinding)", "2025-11-25", map[string]string{"Host": "evil.example"}},
		{"Last-Event-ID", "2025-11-25", map[string]string{"Last-Event-ID": "1"}},
		{"unknown protocol version", "2024-01-01", nil},
		{"2026-07-28 without its metadata", "2026-07-28", nil},
	} {
		t.Run("refused/"+c.name, func(t *testing.T) {
			mc := mcpCase{name: c.name, raw: docsCall}
			fast, sdk := postMCPWith(context.Background(), t, fastURL, c.version, mc, c.header), postMCPWith(context.Background(), t, sdkURL, c.version, mc, c.header)
			if fast.status < 400 || fast.status != sdk.status || fast.body != sdk.body {
				t.Errorf("got %d %.200q, the SDK %d %.200q; want the SDK's refusal", fast.status, fast.body, sdk.status, sdk.body)
			}
		})
	}
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		for _, c := range fastCases() {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				fast, sdk := compare(t, version, c.mcpCase)
				if fast.status != http.StatusOK {
					return
				}
				took := fast.contentType == "application/json" && sdk.contentType == "text/event-stream"
				if took != c.fast {
					t.Errorf("answered as %s (the SDK as %s): fast path %v, want %v", fast.contentType, sdk.contentType, took, c.fast)
				}
				if took && fast.length != int64(len(fast.body)) {
					t.Errorf("Content-Length %d, body of %d bytes", fast.length, len(fast.body))
				}
			})
		}
	}
}

// TestFastCallsEdges compares the two paths on what no Codex7 tool
// returns today but a tool may: a result without content (the SDK sends
// an empty list) and an error that wraps a JSON-RPC error (the SDK keeps
// its code with the outer message).
func TestFastCallsEdges(t *testing.T) {
	s := &toolServer{server: mcp.NewServer(&mcp.Implementation{Name: "edges", Version: "1"}, nil), tools: map[string]mcp.ToolHandler{}}
	add := func(name string, h mcp.ToolHandler) {
		s.server.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, h)
		s.tools[name] = h
	}
	add("empty", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"a":1}`)}, nil
	})
	add("empty with metadata", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Meta: mcp.Meta{"k": "v"}}, nil // written by json.Marshal
	})
	add("wrapped", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("outer: %w", &jsonrpc.Error{Code: -32001, Message: "inner"})
	})
	add("plain error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("plain")
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, &mcp.StreamableHTTPOptions{Stateless: true})
	fastTS, sdkTS := httptest.NewServer(newFastCalls(s, sdk)), httptest.NewServer(sdk)
	defer fastTS.Close()
	defer sdkTS.Close()
	for _, name := range []string{"empty", "empty with metadata", "wrapped", "plain error"} {
		t.Run(name, func(t *testing.T) {
			c := mcpCase{name: name, raw: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`}
			fast, sdk := postMCP(t, fastTS.URL, "2025-11-25", c), postMCP(t, sdkTS.URL, "2025-11-25", c)
			if fast.contentType != "application/json" {
				t.Fatalf("answered as %s: not by the fast path", fast.contentType)
			}
			if fast.status != sdk.status || !reflect.DeepEqual(fast.msg, sdk.msg) {
				f, _ := json.Marshal(fast.msg)
				g, _ := json.Marshal(sdk.msg)
				t.Errorf("fast %d %s\nSDK  %d %s", fast.status, f, sdk.status, g)
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.1.2.3": true, "[::1]:80": true, "[::1]": true, "::1": true,
		"localhost:8080": true, "localhost": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:8080": false, "10.0.0.1": false,
		"example.com:80": false, "evil.example": false, "": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
