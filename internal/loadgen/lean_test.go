package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLeanMatchesSDK checks that a lean client reads every answer of a
// plan, tool errors and protocol errors included, as the SDK's client
// does.
func TestLeanMatchesSDK(t *testing.T) {
	endpoint, _ := fixtureServer(t)
	ctx := context.Background()
	plan := fixturePlan(t, endpoint)
	plan = append(plan, Call{Kind: KindQuery, Library: "/acme/nothing", Query: "widgets"})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, HTTP(endpoint)(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lean, err := dialLean(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer lean.Close()
	for _, c := range plan {
		// Each its own params: the SDK's client writes into them.
		want, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool(), Arguments: c.Args()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := lean.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool(), Arguments: c.Args()})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if got.IsError != want.IsError || text(got) != text(want) || len(got.Content) != len(want.Content) {
			t.Errorf("%+v: lean read error=%v %.80q, SDK error=%v %.80q", c, got.IsError, text(got), want.IsError, text(want))
		}
		if !sameJSON(t, got.StructuredContent, want.StructuredContent) {
			t.Errorf("%+v: structured content differs", c)
		}
	}
	_, err = lean.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !isProtocolError(err) || !strings.Contains(rpcErr.Message, "unknown tool") {
		t.Errorf("unknown tool: %v, want the server's JSON-RPC error", err)
	}
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(data, &x); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(x)
		return string(out)
	}
	return norm(a) == norm(b)
}

func TestReadMessage(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name, contentType, body string
		want                    string
		wantErr                 bool
	}{
		{"json", "application/json", `{"id":1}`, `{"id":1}`, false},
		{"json with charset", "application/json; charset=utf-8", `{"id":1}`, `{"id":1}`, false},
		{"event", "text/event-stream", "event: message\nid: 1\ndata: {\"id\":1}\n\n", `{"id":1}`, false},
		{"event, CRLF", "text/event-stream", "event: message\r\ndata: {\"id\":1}\r\n\r\n", `{"id":1}`, false},
		{"event in two data lines", "text/event-stream", "data: {\"id\":\ndata: 1}\n\n", "{\"id\":\n1}", false},
		{"event without blank line at the end", "text/event-stream", "data: {\"id\":1}", `{"id":1}`, false},
		{"long data line", "text/event-stream", "data: \"" + long + "\"\n\n", `"` + long + `"`, false},
		{"comment then event", "text/event-stream", ": ping\n\ndata: 2\n\n", "2", false},
		{"no event", "text/event-stream", ": ping\n\n", "", true},
		{"html", "text/html", "<p>no</p>", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{"Content-Type": {tt.contentType}}, Body: io.NopCloser(strings.NewReader(tt.body))}
			got, err := (&leanSession{}).readMessage(resp)
			if (err != nil) != tt.wantErr || !bytes.Equal(got, []byte(tt.want)) {
				t.Errorf("got %.60q, %v; want %.60q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestScanAnswer(t *testing.T) {
	tests := []struct {
		name, msg               string
		id                      int64
		rpcErr, toolErr, wantOK bool
	}{
		{"result", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a \"quoted\" \\ text }]"}],"structuredContent":{"a":[1,{"b":"}"}]}}}`, 7, false, false, true},
		{"tool error", `{"jsonrpc":"2.0","id":8,"result":{"content":[],"isError":true}}`, 8, false, true, true},
		{"isError false", `{"id":9,"result":{"isError":false}}`, 9, false, false, true},
		{"JSON-RPC error", `{"jsonrpc":"2.0","id":-3,"error":{"code":-32602,"message":"no"}}`, -3, true, false, true},
		{"spaces", " {\n \"id\" : 10 ,\t\"result\" : { \"isError\" : true } } \n", 10, false, true, true},
		{"backslashes before a quote", `{"id":1,"result":{"content":[{"text":"a\\\\"}],"x":"\\\""}}`, 1, false, false, true},
		{"empty objects", `{"id":2,"result":{}}`, 2, false, false, true},
		{"escaped key", `{"i\u0064":1,"result":{}}`, 0, false, false, false},
		{"string id", `{"id":"1","result":{}}`, 0, false, false, false},
		{"truncated", `{"id":1,"result":{"content":[{"text":"abc`, 1, false, false, false},
		{"trailing garbage", `{"id":1,"result":{}} x`, 1, false, false, false},
		{"not an object", `[1]`, 0, false, false, false},
		{"bracket out of place", `{"id":1,"result":{"content":[}}}`, 1, false, false, false},
		{"misspelt literal", `{"id":1,"result":{"x":tru}}`, 1, false, false, false},
		{"isError a string", `{"id":1,"result":{"isError":"true"}}`, 1, false, false, false},
		{"trailing comma", `{"id":1,"result":{"a":1,}}`, 1, false, false, false},
		{"missing colon", `{"id":1,"result":{"a" 1}}`, 1, false, false, false},
		{"number with a leading zero", `{"id":1,"result":{"a":01}}`, 1, false, false, false},
		{"numbers and nesting", `{"id":1,"result":{"a":[-0.5e+3,{"b":[null,false,[]]}],"c":{}}}`, 1, false, false, true},
		{"nested past the bound", `{"id":1,"result":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`, 1, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, rpcErr, toolErr, ok := scanAnswer([]byte(tt.msg))
			if ok != tt.wantOK || (ok && (id != tt.id || rpcErr != tt.rpcErr || toolErr != tt.toolErr)) {
				t.Errorf("got id %d, error %v, isError %v, ok %v; want %d, %v, %v, %v", id, rpcErr, toolErr, ok, tt.id, tt.rpcErr, tt.toolErr, tt.wantOK)
			}
		})
	}
}

// FuzzScanAnswer checks that scanAnswer never calls an answer a plain
// result when decoding it says it is an error, or has another id.
func FuzzScanAnswer(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a \"q\" \\"}],"structuredContent":{"a":[1]}}}`,
		`{"id":8,"result":{"isError":true}}`, `{"id":1,"error":{"code":1,"message":"x"}}`, `{"id":1,"result":{"isError":false,"isError":true}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		id, rpcErr, toolErr, ok := scanAnswer(msg)
		if !ok || rpcErr || toolErr {
			return // decoded whole by the caller
		}
		var full struct {
			ID     int64           `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(msg, &full); err != nil {
			// Not JSON, and the scan took it: the scan checks structure,
			// not what strings hold, so the fault must be in a string.
			if err := json.Unmarshal(unstring(msg), &full); err != nil {
				t.Errorf("scanned as a plain result: %q, whose structure is not JSON: %v", msg, err)
			}
			return
		}
		if full.ID != id || (len(full.Error) > 0 && string(full.Error) != "null") || (full.Result != nil && full.Result.IsError) {
			t.Errorf("scanned as id %d, no error; decoded as %+v (error %s)", id, full, full.Error)
		}
	})
}

// unstring replaces the contents of every string of msg (as the scanner
// finds strings: from a quote to the next quote not escaped) with "s".
func unstring(msg []byte) []byte {
	var out []byte
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			out = append(out, msg[i])
			continue
		}
		sc := scanner{data: msg, i: i}
		if sc.str() != nil {
			return append(out, msg[i:]...)
		}
		out = append(out, `"s"`...)
		i = sc.i - 1
	}
	return out
}

// TestLeanReconnects checks that a lean client whose kept connection the
// server has closed (its idle timeout, say) sends its next call on a new
// one instead of failing it.
func TestLeanReconnects(t *testing.T) {
	endpoint, ts := fixtureServer(t)
	ctx := context.Background()
	s, err := dialLean(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call := func() error {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: ToolDocs, Arguments: map[string]any{"libraryId": "/acme/widgets", "customQuery": "polling"}})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		ts.CloseClientConnections()
		if err := call(); err != nil {
			t.Fatalf("call %d after the server closed the connection: %v", i+1, err)
		}
	}
}
