// What the fast path (fastCalls) copies from the MCP go-sdk, and must
// stay in step with it. Each was checked against the release in
// checkedSDKVersion; TestFastCallsPinnedSDK fails when go.mod moves the
// SDK, and before raising checkedSDKVersion each line below is checked
// again against the new release's source (paths are in the module
// github.com/modelcontextprotocol/go-sdk), then TestFastCallsMatchSDK and
// TestFastCallsByteIdentical are run.
//
//   - Protocol versions (fastVersion): a subset of supportedProtocolVersions
//     in mcp/shared.go, all before protocolVersion20260728, whose requests
//     mcp/streamable.go checks further (servePOST's SEP-2575 metadata, the
//     headers of streamable_headers.go); no header is taken as 2025-03-26
//     (ephemeralConnectOpts). It holds while newServer passes no
//     ServerOptions.SupportedProtocolVersions.
//   - DNS rebinding (rebinding, IsLoopback): StreamableHTTPHandler.ServeHTTP
//     in mcp/streamable.go with internal/util's IsLoopback, on while
//     StreamableHTTPOptions.DisableLocalhostProtection is false.
//   - POST only, Content-Type application/json (isJSON) and an Accept of
//     both JSON and an event stream (acceptsBoth): serveStateless,
//     baseMediaType and streamableAccepts in mcp/streamable.go.
//   - No Last-Event-ID on a POST: streamableServerConn.servePOST.
//   - The body limit and its 413 wording ("request body exceeds %d
//     bytes"), and "failed to read body: ": serveStateless and
//     ephemeralConnectOpts, with StreamableHTTPOptions.MaxRequestBodyBytes
//     set to maxBodyBytes by httpHandler.
//   - The nesting limit (sdkMaxDepth, deeperThan): defaultMaxDepth and
//     checkMaxDepth in internal/json/json.go.
//   - The message (parse): "jsonrpc" "2.0" and a method make a request
//     (internal/jsonrpc2's DecodeMessage); member names match in their case
//     only (internal/json's DontMatchCaseInsensitiveStructFields); a
//     tools/call's params are CallToolParamsRaw's name, arguments and _meta,
//     where only progressToken is taken (other _meta is the SDK's, such as
//     servePOST's protocol version).
//   - Ids (validID, and parse re-encoding strings): internal/jsonrpc2's
//     MakeID (numbers read as float64, written as int64) and jsonMarshal.
//   - Middleware order (toolServer.use): Server.AddReceivingMiddleware in
//     mcp/server.go and addMiddleware in mcp/shared.go.
//   - The call (toolServer.dispatch): Server.callTool in mcp/server.go: an
//     unknown tool's error, an empty content list for none. Its
//     multi-round-trip handling (handleMultiRoundTripResult) is not copied:
//     these tools never ask the client for input.
//   - What a handler sees (the CallToolRequest ServeHTTP makes): Extra's
//     TokenInfo and Header as servePOST sets them; Session is nil and
//     Extra.CloseSSEStream is not set, so no middleware or tool may use
//     them.
//   - Errors (ServeHTTP): toWireError in internal/jsonrpc2/messages.go,
//     encoded as its jsonMarshal encodes (sdkMarshal: <, > and & as they
//     are).
//   - Results (appendResult): TextContent.MarshalJSON in mcp/content.go and
//     CallToolResult.MarshalJSON in mcp/protocol.go (json.Marshal: <, > and
//     & escaped), inside internal/jsonrpc2's EncodeMessage; the headers
//     Cache-Control and Content-Type of servePOST's JSON answers.
//   - Compatibility settings (MCPGODEBUG, internal/mcpgodebug) at their
//     defaults: with allowsessionsinstateless=1, say, the SDK would answer
//     with a session id the fast path does not send.

package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastCalls answers the one request agents make over and over, a
// tools/call of a stateless streamable HTTP client, without the SDK's
// per-request machinery, and hands every other request to the SDK's
// handler. For each request, the SDK sets up a session and a JSON-RPC
// connection, decodes the body twice, re-encodes the tool's input schema
// to look for header annotations, and encodes the answer three times over
// (each json.Marshaler's output is compacted again by the encoder around
// it): for a 5,000-token answer, that cost more CPU than the search. Here
// the body is decoded once, the tool runs through the same receiving
// middleware as under the SDK (toolServer.callTool: all that was added with
// toolServer.use, whenever it was), and the answer is written once, as
// JSON, which the streamable HTTP transport allows for any request.
//
// Only requests whose every detail is understood take this path: a single
// JSON-RPC request with an id, method tools/call, a tool this server has,
// no parameters but name, arguments and a progress token, a protocol
// version before 2026-07-28 (whose per-request metadata and header checks
// the SDK handles), the Content-Type and Accept the SDK asks for, and a
// Host header the SDK's DNS-rebinding check accepts. Anything else, and
// every error in the request, is the SDK's to answer, so the two paths
// cannot disagree on what is valid; TestFastCallsMatchSDK checks that they
// agree on every answer.
//
// What it copies from the SDK, and must stay in step with it, is listed at
// the top of this file.
type fastCalls struct {
	srv  *toolServer
	next http.Handler
	// buffers holds the *bytes.Buffer answers are written in: an answer
	// is tens of kilobytes, and a buffer grown for one serves the next.
	buffers sync.Pool
}

// newFastCalls returns the fast path for s's tool calls, handing every
// other request to next, the SDK's handler of s.server. Only
// toolServer.httpHandler and tests call it.
func newFastCalls(s *toolServer, next http.Handler) *fastCalls {
	return &fastCalls{srv: s, next: next, buffers: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
}

// httpHandler returns the handler of s's streamable HTTP endpoint: the
// SDK's, stateless, with the fast path in front of it unless sdkOnly (for
// tests that compare the two). It is the one place either is built, so
// that the two paths always serve the same tools through the same
// middleware (see toolServer). HTTP middleware (access control, audit
// lines, rate and in-flight limits, request metrics) wraps what this
// returns, and so both paths; receiving middleware is added with use, at
// any time. log receives the SDK's own log lines.
//
// hostsChecked says the caller refuses foreign Host headers itself
// (HTTPOptions.AllowedHosts): the SDK's own check, which on loopback
// refuses every name but a loopback one, would refuse the names allowed.
// The fast path still hands such requests to the SDK (rebinding), which
// then serves them.
func (s *toolServer) httpHandler(log *slog.Logger, sdkOnly, hostsChecked bool) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, &mcp.StreamableHTTPOptions{
		Logger:                     log,
		MaxRequestBodyBytes:        maxBodyBytes,
		DisableLocalhostProtection: hostsChecked,
		// The tools keep no state between calls and the server sends
		// nothing unprompted, so each request is served on its own: no
		// session table to grow with every client that never says
		// goodbye, any replica can answer any request, and clients of the
		// sessionless protocol versions are served too.
		Stateless: true,
	})
	if sdkOnly {
		return sdk
	}
	return newFastCalls(s, sdk)
}

// fastVersion reports whether the fast path serves a protocol version
// (Mcp-Protocol-Version); "" is a client that sends none, which the SDK
// takes as 2025-03-26.
func fastVersion(v string) bool {
	switch v {
	case "", "2025-03-26", "2025-06-18", "2025-11-25":
		return true
	}
	return false
}

func (f *fastCalls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A Last-Event-ID asks to resume a stream, which the SDK refuses for a
	// stateless server.
	if r.Method != http.MethodPost || !fastVersion(r.Header.Get("Mcp-Protocol-Version")) || r.Header.Get("Last-Event-ID") != "" ||
		!isJSON(r.Header.Get("Content-Type")) || !acceptsBoth(r.Header.Values("Accept")) || rebinding(r) {
		f.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	r.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			// As the SDK answers it.
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	id, params, ok := f.parse(body)
	if !ok {
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.next.ServeHTTP(w, r)
		return
	}
	// As the SDK's transport fills it in (streamableServerConn.servePOST),
	// but for CloseSSEStream: this answer is no stream.
	extra := &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	res, err := f.srv.callTool(r.Context(), "tools/call", &mcp.CallToolRequest{Params: params, Extra: extra})
	out := f.buffers.Get().(*bytes.Buffer)
	defer f.putBuffer(out)
	out.Reset()
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	if err == nil {
		out.WriteString(`,"result":`)
		if result, _ := res.(*mcp.CallToolResult); result != nil {
			err = appendResult(out, result)
		} else {
			out.WriteString("null")
		}
	}
	if err != nil {
		out.Truncate(0)
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(id)
		out.WriteString(`,"error":`)
		// As the SDK's JSON-RPC layer words an error: a wire error as it
		// is, any other by its message, with the code of a wire error it
		// wraps.
		wire, ok := err.(*jsonrpc.Error)
		if !ok {
			wire = &jsonrpc.Error{Message: err.Error()}
			var wrapped *jsonrpc.Error
			if errors.As(err, &wrapped) {
				wire.Code = wrapped.Code
			}
		}
		data, merr := sdkMarshal(wire)
		if merr != nil {
			http.Error(w, "internal server error", http.StatusInternalServerError)
			return
		}
		out.Write(data)
	}
	out.WriteByte('}')
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	// The whole answer is in hand: say its length rather than chunk it.
	h.Set("Content-Length", strconv.Itoa(out.Len()))
	w.Write(out.Bytes())
}

// maxPooled is the largest buffer kept for reuse, so that one huge answer
// does not pin its memory.
const maxPooled = 256 << 10

func (f *fastCalls) putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		f.buffers.Put(b)
	}
}

// parse returns the id and parameters of a request the fast path takes, or
// false for one it leaves to the SDK.
func (f *fastCalls) parse(body []byte) (json.RawMessage, *mcp.CallToolParamsRaw, bool) {
	var msg map[string]json.RawMessage
	if deeperThan(body, sdkMaxDepth) || json.Unmarshal(body, &msg) != nil || len(msg) != 4 {
		return nil, nil, false
	}
	var version, method string
	if json.Unmarshal(msg["jsonrpc"], &version) != nil || version != "2.0" ||
		json.Unmarshal(msg["method"], &method) != nil || method != "tools/call" {
		return nil, nil, false
	}
	id := msg["id"]
	if !validID(id) {
		return nil, nil, false
	}
	if id[0] == '"' {
		// The SDK writes back the string it read, not the JSON text sent:
		// "caf\u00e9" comes back as "café".
		var s string
		json.Unmarshal(id, &s)
		if id, _ = sdkMarshal(s); id == nil {
			return nil, nil, false
		}
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &fields) != nil || fields == nil {
		return nil, nil, false
	}
	p := &mcp.CallToolParamsRaw{}
	for k, v := range fields {
		switch k {
		case "name":
			if json.Unmarshal(v, &p.Name) != nil {
				return nil, nil, false
			}
		case "arguments":
			p.Arguments = v
		case "_meta":
			// A progress token asks for progress notifications, which
			// these tools never send; other metadata is the SDK's.
			var meta map[string]any
			if json.Unmarshal(v, &meta) != nil || meta == nil {
				return nil, nil, false
			}
			for mk := range meta {
				if mk != "progressToken" {
					return nil, nil, false
				}
			}
			p.Meta = meta
		default:
			return nil, nil, false
		}
	}
	if _, ok := f.srv.tools[p.Name]; !ok {
		return nil, nil, false
	}
	return id, p, true
}

// checkedSDKVersion is the go-sdk release fastCalls' copied rules were
// last checked against (see the list at the top of this file).
const checkedSDKVersion = "v1.8.0"

// sdkMaxDepth is the deepest nesting of arrays and objects the SDK decodes
// in a message (internal/json's defaultMaxDepth).
const sdkMaxDepth = 1000

// deeperThan reports whether the JSON text data nests arrays and objects
// more than max deep, counting as the SDK does.
func deeperThan(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// validID reports whether the fast path writes a JSON-RPC id back as the
// SDK does: a string of valid UTF-8 (the SDK would replace bad bytes; parse
// re-encodes the string as the SDK does), or a whole number of at most 15
// digits, other than -0, written back as sent (the SDK reads numbers as
// float64, which holds those exactly, and writes -0 as 0).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		var s string
		return utf8.Valid(id) && json.Unmarshal(id, &s) == nil
	}
	s := strings.TrimPrefix(string(id), "-")
	if s == "" || len(s) > 15 || (s[0] == '0' && len(id) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// appendResult writes res as the SDK would, byte for byte, once: text
// content is escaped straight into the buffer and structured content,
// already compact JSON with <, > and & escaped (addTool sets it from
// json.Marshal, as the SDK would re-encode it), copied. A result of any
// other shape is marshalled as the SDK does.
func appendResult(buf *bytes.Buffer, res *mcp.CallToolResult) error {
	raw, isRaw := res.StructuredContent.(json.RawMessage)
	simple := res.Meta == nil && (res.StructuredContent == nil || isRaw && len(raw) > 0)
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); !ok || tc.Meta != nil || tc.Annotations != nil {
			simple = false
		}
	}
	if !simple {
		data, err := json.Marshal(res)
		if err != nil {
			return err
		}
		buf.Write(data)
		return nil
	}
	// Text is escaped as mcp.TextContent's MarshalJSON escapes it (with
	// json.Marshal: <, > and & too); the SDK's encoder around it keeps
	// that as it is.
	enc := json.NewEncoder(buf)
	buf.WriteString(`{"content":[`)
	for i, c := range res.Content {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"type":"text","text":`)
		if err := enc.Encode(c.(*mcp.TextContent).Text); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
	if res.StructuredContent != nil {
		buf.WriteString(`,"structuredContent":`)
		buf.Write(raw)
	}
	if res.IsError {
		buf.WriteString(`,"isError":true`)
	}
	buf.WriteByte('}')
	return nil
}

// sdkMarshal encodes v as the SDK's JSON-RPC layer encodes a message
// (internal/jsonrpc2's jsonMarshal): as json.Marshal does, but leaving <,
// > and & unescaped.
func sdkMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// isJSON reports whether a Content-Type is application/json.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// acceptsBoth reports whether Accept headers take both JSON and an event
// stream, as the SDK requires of every POST.
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for raw := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(raw, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// rebinding reports whether a request reached a loopback address with a
// Host header that is not loopback, which the SDK refuses (DNS rebinding).
func rebinding(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && IsLoopback(local.String()) && !IsLoopback(r.Host)
}

// IsLoopback reports whether host[:port] (an address, or a Host header)
// is localhost or a loopback IP: reachable from this machine only.
func IsLoopback(addr string) bool {
	host := hostname(addr)
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
