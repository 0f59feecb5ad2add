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
			got, err := readMessage(resp)
			if (err != nil) != tt.wantErr || !bytes.Equal(got, []byte(tt.want)) {
				t.Errorf("got %.60q, %v; want %.60q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
