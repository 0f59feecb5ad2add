package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session is one client of a Generator: it makes one tool call at a time.
// *mcp.ClientSession is one.
type Session interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
	Close() error
}

// leanProtocolVersion is the MCP version a lean client asks for: the one
// today's agents (Claude Code, the TypeScript SDK) speak.
const leanProtocolVersion = "2025-11-25"

// ConnectLean opens concurrency lean clients of the streamable HTTP
// endpoint, one after the other, each on a connection of its own, and
// returns a Generator over them. A lean client speaks MCP over HTTP by
// hand: the initialize handshake, then one POST per tools/call with the
// headers the protocol asks for, reading the answer whether the server
// sends it as JSON or as an event stream, over one HTTP/1.1 connection it
// writes and reads itself (see httpConn). It does what the SDK's client
// does for a tool call at a fraction of its CPU, so that a load generator
// sharing the machine with the server takes less of it from the server:
// measuring a server's throughput, not its client's. Results carry the
// text content and the structured content undecoded.
func ConnectLean(ctx context.Context, endpoint string, concurrency int, plan []Call) (*Generator, error) {
	return connect(concurrency, plan, func(i int) (Session, error) { return dialLean(ctx, endpoint) })
}

// ConnectMixed opens concurrency clients of the streamable HTTP endpoint,
// lean clients and the SDK's taking turns (the first is lean), so that one
// run drives both of the server's paths: the protocol version agents speak
// today, which a lean client speaks, and the SDK's latest.
func ConnectMixed(ctx context.Context, endpoint string, concurrency int, plan []Call) (*Generator, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "codex7-loadgen", Version: "1"}, nil)
	dial := HTTP(endpoint)
	return connect(concurrency, plan, func(i int) (Session, error) {
		if i%2 == 0 {
			return dialLean(ctx, endpoint)
		}
		return dialSDK(ctx, client, dial(i))
	})
}

// leanSession is a hand-written MCP client of one streamable HTTP
// endpoint.
type leanSession struct {
	endpoint string
	conn     *httpConn
	// session is the Mcp-Session-Id the server gave at initialization,
	// "" for a stateless server.
	session string
	version string
	ids     atomic.Int64
	// decode makes CallTool decode every answer whole. Otherwise an
	// answer is only scanned for its id and whether it is an error (see
	// scanAnswer), and decoded whole only if it is one: the result's
	// content is then left out.
	decode bool
	// body, event and rd are reused from call to call (one call at a
	// time).
	body  bytes.Buffer
	event []byte
	rd    *bufio.Reader
}

func dialLean(ctx context.Context, endpoint string) (*leanSession, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("lean clients speak plain HTTP, not %q: %w", u.Scheme, errBadOptions)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	s := &leanSession{endpoint: endpoint, conn: &httpConn{addr: addr}, version: leanProtocolVersion, decode: true}
	init, err := json.Marshal(map[string]any{
		"protocolVersion": leanProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "codex7-loadgen-lean", "version": "1"},
	})
	if err != nil {
		return nil, err
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	hdr, err := s.request(ctx, "initialize", init, &res)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if res.ProtocolVersion == "" {
		s.Close()
		return nil, fmt.Errorf("initialize: no protocol version in the answer: %w", errBadAnswer)
	}
	s.version, s.session = res.ProtocolVersion, hdr.Get("Mcp-Session-Id")
	if err := s.notify(ctx, "notifications/initialized"); err != nil {
		s.Close()
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return s, nil
}

// leanResult is a tools/call result as a lean client reads it.
type leanResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	// skipped is set when the answer was only scanned (see
	// leanSession.decode): a result that is no error.
	skipped bool
}

// CallTool makes one tools/call request and reads its answer: a
// *jsonrpc.Error if the server answered with one.
func (s *leanSession) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	params, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var lr leanResult
	if _, err := s.request(ctx, "tools/call", params, &lr, "Mcp-Name", p.Name); err != nil {
		return nil, err
	}
	if lr.skipped {
		return &mcp.CallToolResult{}, nil
	}
	res := &mcp.CallToolResult{IsError: lr.IsError, Content: make([]mcp.Content, 0, len(lr.Content))}
	if len(lr.StructuredContent) > 0 {
		res.StructuredContent = lr.StructuredContent
	}
	for _, c := range lr.Content {
		if c.Type == "text" {
			res.Content = append(res.Content, &mcp.TextContent{Text: c.Text})
		}
	}
	return res, nil
}

// Close ends the session (a DELETE, when the server gave one) and closes
// the connection.
func (s *leanSession) Close() error {
	defer s.conn.close()
	if s.session == "" {
		return nil
	}
	req, err := http.NewRequest(http.MethodDelete, s.endpoint, nil)
	if err != nil {
		return err
	}
	s.headers(req.Header, "")
	resp, done, err := s.conn.do(context.Background(), req)
	if err != nil {
		return err
	}
	done()
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed {
		return fmt.Errorf("DELETE: %s: %w", resp.Status, errHTTPStatus)
	}
	return nil
}

func (s *leanSession) headers(h http.Header, method string) {
	h.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		h.Set("Mcp-Session-Id", s.session)
	}
	if method != "initialize" {
		h.Set("Mcp-Protocol-Version", s.version)
	}
	if method != "" {
		h.Set("Mcp-Method", method)
	}
}

// request sends one JSON-RPC request and decodes its result into out,
// returning the response's headers.
func (s *leanSession) request(ctx context.Context, method string, params []byte, out any, extra ...string) (http.Header, error) {
	id := s.ids.Add(1)
	var body bytes.Buffer
	body.Grow(len(params) + 64)
	body.WriteString(`{"jsonrpc":"2.0","id":`)
	body.WriteString(strconv.FormatInt(id, 10))
	body.WriteString(`,"method":`)
	body.WriteString(strconv.Quote(method))
	body.WriteString(`,"params":`)
	body.Write(params)
	body.WriteByte('}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	s.headers(req.Header, method)
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, done, err := s.conn.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer done()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s: %s: %q: %w", method, resp.Status, bytes.TrimSpace(msg), errHTTPStatus)
	}
	msg, err := s.readMessage(resp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if lr, ok := out.(*leanResult); ok && !s.decode {
		if got, rpcErr, toolErr, ok := scanAnswer(msg); ok && !rpcErr && !toolErr {
			if got != id {
				return nil, fmt.Errorf("%s: answer to request %d, want %d: %w", method, got, id, errBadAnswer)
			}
			lr.skipped = true
			return resp.Header, nil
		}
	}
	// One pass: the result is decoded straight into out.
	var rpc struct {
		ID     int64          `json:"id"`
		Result any            `json:"result"`
		Error  *jsonrpc.Error `json:"error"`
	}
	rpc.Result = out
	if err := json.Unmarshal(msg, &rpc); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", method, errBadAnswer, err)
	}
	switch {
	case rpc.Error != nil:
		return nil, rpc.Error
	case rpc.ID != id:
		return nil, fmt.Errorf("%s: answer to request %d, want %d: %w", method, rpc.ID, id, errBadAnswer)
	case !bytes.Contains(msg, []byte(`"result"`)):
		return nil, fmt.Errorf("%s: no result: %w", method, errBadAnswer)
	}
	return resp.Header, nil
}

// notify sends a JSON-RPC notification, which the server accepts with 202.
func (s *leanSession) notify(ctx context.Context, method string) error {
	body := `{"jsonrpc":"2.0","method":` + strconv.Quote(method) + `}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	s.headers(req.Header, method)
	resp, done, err := s.conn.do(ctx, req)
	if err != nil {
		return err
	}
	done()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %w", method, resp.Status, errHTTPStatus)
	}
	return nil
}

// readMessage returns the one JSON-RPC message of a response: its body
// when it is JSON, or the data of its first message event when it is an
// event stream. The message is good until the next call.
func (s *leanSession) readMessage(resp *http.Response) ([]byte, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		s.body.Reset()
		_, err := s.body.ReadFrom(resp.Body)
		return s.body.Bytes(), err
	case "text/event-stream":
	default:
		return nil, fmt.Errorf("content type %q: %w", ct, errBadAnswer)
	}
	if s.rd == nil {
		s.rd = bufio.NewReaderSize(resp.Body, 32<<10)
	} else {
		s.rd.Reset(resp.Body)
	}
	r := s.rd
	data := s.event[:0]
	defer func() { s.event = data }()
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long data line: read the rest of it (ReadSlice's line is
			// only good until the next read).
			head := append([]byte(nil), line...)
			var rest []byte
			rest, err = r.ReadBytes('\n')
			line = append(head, rest...)
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0:
			return data, nil // the end of the event
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
		if err != nil {
			if len(data) > 0 && err == io.EOF {
				return data, nil
			}
			return nil, fmt.Errorf("event stream ended before a message: %w", err)
		}
	}
}

// httpConn is one HTTP/1.1 connection kept alive from request to request,
// written and read in the calling goroutine: net/http's client runs two
// goroutines per connection and reads an answer 4 KiB at a time, which
// for a load generator on the server's machine is CPU the server does
// not get. Responses are parsed by http.ReadResponse, chunked or not. A
// connection that fails, that the server closes or whose request's
// context ends mid-way is dropped, and the next request dials again.
type httpConn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
}

// do sends req and reads the head of its response. The caller reads the
// body as it needs, then calls done, which reads the rest of it.
//
// A request that fails on a kept connection as one the server has closed
// fails (the server's idle timeout, say) is sent once more on a new one,
// as net/http's client does: tools/call changes nothing on the server.
func (h *httpConn) do(ctx context.Context, req *http.Request) (*http.Response, func(), error) {
	reused := h.c != nil
	resp, done, err := h.once(ctx, req)
	if err == nil || !reused || ctx.Err() != nil || !closedByPeer(err) || req.GetBody == nil {
		return resp, done, err
	}
	body, gerr := req.GetBody()
	if gerr != nil {
		return nil, nil, err
	}
	req.Body = body
	return h.once(ctx, req)
}

// closedByPeer reports whether err is how an exchange on a connection the
// other end has closed fails.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || resetByPeer(err)
}

// once is one exchange of do.
func (h *httpConn) once(ctx context.Context, req *http.Request) (*http.Response, func(), error) {
	if h.c == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", h.addr)
		if err != nil {
			return nil, nil, err
		}
		h.c, h.br, h.bw = c, bufio.NewReaderSize(c, 64<<10), bufio.NewWriterSize(c, 4<<10)
	}
	c := h.c
	// A context that ends interrupts the exchange where it is.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	err := req.Write(h.bw)
	if err == nil {
		err = h.bw.Flush()
	}
	var resp *http.Response
	if err == nil {
		resp, err = http.ReadResponse(h.br, req)
	}
	if err != nil {
		stop()
		h.close()
		return nil, nil, err
	}
	done := func() {
		_, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if !stop() || err != nil || resp.Close {
			h.close()
		}
	}
	return resp, done, nil
}

func (h *httpConn) close() {
	if h.c != nil {
		h.c.Close()
		h.c = nil
	}
}
