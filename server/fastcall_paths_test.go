package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFastCallsByteIdentical sends the same requests to a Handler and to
// one that answers everything through the SDK, and checks that where the
// fast path answered, its JSON-RPC message is the SDK's byte for byte
// (TestFastCallsMatchSDK compares them decoded): a client that hashes or
// caches answers sees no difference between the paths.
func TestFastCallsByteIdentical(t *testing.T) {
	engine, fake := hostileEngine(t)
	fastURL := serveHardened(t, engine, fake, HTTPOptions{})
	sdkURL := serveHardened(t, engine, fake, HTTPOptions{sdkOnly: true})
	var cases []mcpCase
	for _, c := range fastCases() {
		cases = append(cases, c.mcpCase)
	}
	for _, c := range hostileMCPCases() {
		if c.tool != "" {
			args, err := json.Marshal(c.args)
			if err != nil {
				t.Fatal(err)
			}
			c.raw = toolCall(c.tool, string(args))
		}
		cases = append(cases, c)
	}
	took := 0
	for _, c := range cases {
		fast, sdk := postMCP(t, fastURL, "2025-11-25", c), postMCP(t, sdkURL, "2025-11-25", c)
		if fast.status != http.StatusOK || fast.contentType != "application/json" || sdk.contentType != "text/event-stream" {
			continue // not the fast path's answer
		}
		took++
		want := bytes.TrimSuffix(sdk.data, []byte("\n")) // the event's line end
		if !bytes.Equal(fast.data, want) {
			i := 0
			for i < len(fast.data) && i < len(want) && fast.data[i] == want[i] {
				i++
			}
			from := max(0, i-40)
			t.Errorf("%s: answers differ from byte %d\nfast: %.120q\nSDK:  %.120q", c.name, i, fast.data[from:], want[from:])
		}
	}
	if took < len(fastCases())/2 {
		t.Errorf("the fast path answered %d of %d requests: the comparison covers too little", took, len(cases))
	}
}

// TestFastCallsRunMiddleware checks that receiving middleware added with
// toolServer.use runs for a call the fast path answers, as it does for
// one the SDK answers, even when added after the HTTP handler was built
// (the way a later change might add it), and that what it returns is the
// answer.
func TestFastCallsRunMiddleware(t *testing.T) {
	engine, _ := hostileEngine(t)
	for _, sdkOnly := range []bool{false, true} {
		srv := newServer(engine, "test")
		h := srv.httpHandler(slog.New(slog.DiscardHandler), sdkOnly, false)
		var mu sync.Mutex
		var seen []string
		srv.use(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" {
					mu.Lock()
					seen = append(seen, r.Params.Name+" "+r.GetExtra().Header.Get("X-Probe"))
					mu.Unlock()
					if r.Params.Name == "resolve-library-id" {
						return textResult("answered by the middleware"), nil
					}
				}
				return next(ctx, method, req)
			}
		})
		ts := httptest.NewServer(h)
		call := func(tool, args string) answer {
			t.Helper()
			return postMCPWith(context.Background(), t, ts.URL, "2025-11-25", mcpCase{name: tool, raw: toolCall(tool, args)}, map[string]string{"X-Probe": "p"})
		}
		docs := call("get-library-docs", `{"libraryId":"/acme/widgets","customQuery":"polling"}`)
		resolve := call("resolve-library-id", `{"libraryName":"widgets"}`)
		ts.Close()

		wantType := "application/json" // the fast path's
		if sdkOnly {
			wantType = "text/event-stream"
		}
		if docs.contentType != wantType || resolve.contentType != wantType {
			t.Fatalf("sdkOnly %v: answered as %s and %s, want %s", sdkOnly, docs.contentType, resolve.contentType, wantType)
		}
		if want := []string{"get-library-docs p", "resolve-library-id p"}; !slices.Equal(seen, want) {
			t.Errorf("sdkOnly %v: the middleware saw %q, want %q", sdkOnly, seen, want)
		}
		if !bytes.Contains(resolve.data, []byte("answered by the middleware")) {
			t.Errorf("sdkOnly %v: resolve-library-id answered %.200s, want the middleware's answer", sdkOnly, resolve.data)
		}
	}
}
