// Package server exposes the search engine to agents over MCP: the tools
// resolve-library-id and get-library-docs, and get-context7-docs when a
// Context7 client is given, on stdio and streamable HTTP. It is read-only:
// it never writes under the artifact directory.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

// Option configures New.
type Option func(*handlers)

// WithContext7 adds the tool get-context7-docs, answered by c, and, when c
// has a key, Context7's matches to resolve-library-id's and the
// get-context7-docs call to get-library-docs' answer for a library not
// indexed here. A nil c adds nothing.
func WithContext7(c *context7.Client) Option {
	return func(h *handlers) { h.c7 = c }
}

// WithAudit logs a line per tool call to log, as the audit log: who
// called which tool on which library, with what, and how it ended. Over
// HTTP, Handler logs one line per request instead, with the same fields.
func WithAudit(log *slog.Logger) Option {
	return func(h *handlers) { h.audit = log }
}

// New returns an MCP server whose tools answer from engine. version is
// reported to clients as the server's version.
func New(engine Engine, version string, opts ...Option) *mcp.Server {
	return newServer(engine, version, opts...).server
}

// toolServer is the MCP server New builds, with what the HTTP fast path
// (fastCalls) needs to answer a tools/call exactly as the SDK would: each
// tool's handler, and the receiving middleware composed as the SDK
// composes it. Tools are added through addTool and middleware through use
// only, so that both paths have them; use may be called at any time, even
// while serving, and the fast path runs what it added from its next call
// on (see callTool). The HTTP handler, the SDK's with the fast path in
// front, is built by the toolServer itself (httpHandler), so no caller
// can wire one path without the other.
type toolServer struct {
	server *mcp.Server
	tools  map[string]mcp.ToolHandler
	// mu serializes use; call is read without it.
	mu sync.Mutex
	// call is dispatch inside every middleware added with use, in the
	// SDK's order; nil until the first use.
	call atomic.Pointer[mcp.MethodHandler]
}

// use adds receiving middleware to both paths: to the SDK's, with
// mcp.Server.AddReceivingMiddleware, and to the fast path's, composed the
// same way (each call wraps what was there before; in one call, the first
// middleware is the outermost). It is the one place middleware is added.
func (s *toolServer) use(mw ...mcp.Middleware) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.server.AddReceivingMiddleware(mw...)
	h := mcp.MethodHandler(s.dispatch)
	if p := s.call.Load(); p != nil {
		h = *p
	}
	for _, m := range slices.Backward(mw) {
		h = m(h)
	}
	s.call.Store(&h)
}

// callTool runs a decoded tools/call as the SDK does: through the
// receiving middleware added with use so far, to dispatch. It is safe for
// concurrent use, also with use.
func (s *toolServer) callTool(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
	if p := s.call.Load(); p != nil {
		return (*p)(ctx, method, req)
	}
	return s.dispatch(ctx, method, req)
}

// dispatch is what the SDK does with a tools/call under its middleware
// (mcp.Server's callTool): the tool's handler, whose result gets an empty
// content list rather than none.
func (s *toolServer) dispatch(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
	r := req.(*mcp.CallToolRequest)
	th, ok := s.tools[r.Params.Name]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", r.Params.Name)}
	}
	res, err := th(ctx, r)
	if err == nil && res != nil && res.Content == nil {
		res2 := *res
		res2.Content = []mcp.Content{}
		res = &res2
	}
	return res, err
}

func newServer(engine Engine, version string, opts ...Option) *toolServer {
	s := &toolServer{server: mcp.NewServer(&mcp.Implementation{Name: "codex7", Version: version}, nil), tools: map[string]mcp.ToolHandler{}}
	h := &handlers{engine: engine}
	for _, o := range opts {
		o(h)
	}
	if h.audit != nil {
		ids := newRequestIDs()
		s.use(auditToolCalls(h.audit, &ids))
	}
	addTool(s, &mcp.Tool{
		Name:        "resolve-library-id",
		Description: resolveDescription,
		InputSchema: inputSchema[ResolveInput](),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, Title: "Find a library's id"},
	}, h.resolve)
	addTool(s, &mcp.Tool{
		Name:        "get-library-docs",
		Description: docsDescription,
		InputSchema: inputSchema[DocsInput](),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, Title: "Get a library's documentation"},
	}, h.docs)
	tools := []string{"resolve-library-id", "get-library-docs"}
	if h.c7 != nil {
		addTool(s, &mcp.Tool{
			Name:        "get-context7-docs",
			Description: context7Description,
			InputSchema: inputSchema[Context7Input](),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true), Title: "Get a remote library's documentation from Context7"},
		}, h.context7Docs)
		tools = append(tools, "get-context7-docs")
	}
	s.use(unknownTools(tools))
	return s
}

// unknownTools is MCP receiving middleware that answers a call of a tool
// other than tools as the SDK does (a JSON-RPC invalid-params error), but
// quoting the name short and listing the tools there are: the SDK quotes
// the name whole, so a megabyte of name came back.
func unknownTools(tools []string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil && !slices.Contains(tools, r.Params.Name) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("unknown tool %q: this server has %s", clipText(r.Params.Name, 40), strings.Join(tools, ", "))}
			}
			return next(ctx, method, req)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// addTool registers a tool whose handler takes In and returns Out, as
// mcp.AddTool does, with two differences that matter on the hot path. The
// arguments are decoded strictly (an unknown parameter or a wrong type is a
// tool error naming it) instead of being validated through a generic map
// first. The output is marshalled once: mcp.AddTool marshals it, decodes
// it into a map and validates that against the schema derived from Out,
// which for a 5,000-token answer costs more than the search. The output
// schema is still published; tests check answers against it.
func addTool[In, Out any](s *toolServer, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) {
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("output schema of %s: %v", t.Name, err))
	}
	t.OutputSchema = out
	names := paramNames(reflect.TypeFor[In]())
	ints := wholeParams(reflect.TypeFor[In]())
	th := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if args := req.Params.Arguments; len(args) > 0 && string(args) != "null" {
			if err := checkArguments(args, names); err != nil {
				return errorResult(fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)), nil
			}
			args, err := wholeArguments(args, ints)
			if err != nil {
				return errorResult(fmt.Errorf("invalid arguments: %w; see the tool's input schema", err)), nil
			}
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return errorResult(fmt.Errorf("invalid arguments: %s; see the tool's input schema", decodeError(err, reflect.TypeFor[In]()))), nil
			}
		}
		res, o, err := h(ctx, req, in)
		if err != nil {
			return errorResult(err), nil
		}
		data, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("%s: encode the answer: %w", t.Name, err)
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		res.StructuredContent = json.RawMessage(data)
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
		}
		return res, nil
	}
	s.server.AddTool(t, th)
	s.tools[t.Name] = th
}

// wholeParams returns the JSON names of the int fields of the struct type
// t: a tool's whole-number parameters.
func wholeParams(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" && f.Type.Kind() == reflect.Int {
			names = append(names, name)
		}
	}
	return names
}

// wholeArguments reads the whole-number parameters ints of args, a JSON
// value checkArguments passed, by request.ParseWhole's rule (the REST API's
// too), and returns args with each written as the int it means, for the
// decoder: "2", 2.0 and 2e0 become 2, 1e12 becomes 2147483647 (which the
// parameter's bounds then clamp), null 0 (left out). A value that is not
// a whole number is an error naming the parameter. args is returned as it
// is when nothing changes.
func wholeArguments(args []byte, ints []string) ([]byte, error) {
	present := false
	for _, name := range ints {
		present = present || bytes.Contains(args, []byte(`"`+name+`"`))
	}
	var obj map[string]json.RawMessage
	if !present || json.Unmarshal(args, &obj) != nil {
		return args, nil // no such parameter, or not an object: the decoder says so
	}
	changed := false
	for _, name := range ints {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		n, err := request.ParseWholeJSON(name, raw)
		if err != nil {
			return nil, err
		}
		if canon := strconv.Itoa(n); string(raw) != canon {
			obj[name] = json.RawMessage(canon)
			changed = true
		}
	}
	if !changed {
		return args, nil
	}
	return json.Marshal(obj)
}

// maxQuoted bounds how much of an argument an error message quotes back.
const maxQuoted = 200

// paramNames returns the JSON names of the fields of the struct type t:
// a tool's parameters.
func paramNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// checkArguments refuses what encoding/json would quietly accept but no
// agent can have meant, so that a tool never answers a question other than
// the one sent: text that is not UTF-8 (raw bytes, or an escaped lone
// surrogate such as \udc80; both would decode to U+FFFD, and
// "/acme/wid\xffgets" would then find /acme/widgets), a parameter given
// twice (the decoder keeps the last), and a parameter named in another
// case ("LibraryId", which the decoder would take as libraryId though the
// input schema does not). Other unknown parameters are named too, quoted
// short. args is the arguments as sent, a JSON value the SDK has already
// parsed; names are the tool's parameters.
func checkArguments(args []byte, names map[string]bool) error {
	if !utf8.Valid(args) {
		i := 0
		for i < len(args) {
			r, n := utf8.DecodeRune(args[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return fmt.Errorf("the text is not UTF-8 (byte %d of the arguments is 0x%02x): send every string as UTF-8", i, args[i])
	}
	if err := checkSurrogates(args); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the decoder says so
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		switch {
		case seen[key]:
			return fmt.Errorf("parameter %q given twice: give each parameter once", clipText(key, 40))
		case !names[key]:
			if n := sameBut(key, names); n != "" {
				return fmt.Errorf("unknown field %q: parameter names are case-sensitive; did you mean %q?", clipText(key, 40), n)
			}
			return fmt.Errorf("unknown field %q", clipText(key, 40))
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// sameBut returns the name in names that key spells in another case, the
// one with the fewest letters in another case ("libraryId" for
// "LibraryId", though "libraryID" matches too), or "".
func sameBut(key string, names map[string]bool) string {
	best, fewest := "", len(key)+1
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if !strings.EqualFold(n, key) || len(n) != len(key) {
			continue
		}
		d := 0
		for i := range len(n) {
			if n[i] != key[i] {
				d++
			}
		}
		if d < fewest {
			best, fewest = n, d
		}
	}
	return best
}

// decodeError says what was wrong with arguments the decoder refused,
// naming the parameter and what it takes. Type errors are put in words of
// JSON rather than Go; every other message is clipped, since the decoder
// quotes a number whole, and a megabyte of digits must not come back.
// in is the tool's input type.
func decodeError(err error, in reflect.Type) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return clipText(strings.TrimPrefix(err.Error(), "json: "), maxQuoted)
	}
	got := "a " + clipText(te.Value, 40) // "number 1e+308", "string", "bool"…
	if strings.HasPrefix(te.Value, "array") || strings.HasPrefix(te.Value, "object") {
		got = "an " + te.Value
	}
	if te.Field == "" {
		return fmt.Sprintf("the arguments must be an object of parameters, got %s", got)
	}
	// The decoder names the parameter whose item is wrong too: say which
	// it is.
	for f := range in.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == te.Field && f.Type.Kind() == reflect.Slice && f.Type != te.Type {
			return fmt.Sprintf("%s must be %s, got an item that is %s", te.Field, jsonKind(f.Type), got)
		}
	}
	return fmt.Sprintf("%s must be %s, got %s", te.Field, jsonKind(te.Type), got)
}

// jsonKind says in words of JSON what a value of type t is written as.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.Kind().String()
}

// checkSurrogates refuses a \u escape of a UTF-16 surrogate that is not
// one half of a pair: JSON allows it, but it stands for no character.
// data is valid JSON.
func checkSurrogates(data []byte) error {
	in := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(data) && data[i+1] == 'u':
			r := hex4(data[i+2:])
			switch {
			case r >= 0xD800 && r < 0xDC00 && len(data) >= i+12 && data[i+6] == '\\' && data[i+7] == 'u' && hex4(data[i+8:]) >= 0xDC00 && hex4(data[i+8:]) < 0xE000:
				i += 11 // a pair: one character beyond the BMP
			case r >= 0xD800 && r < 0xE000:
				return fmt.Errorf("the text has a lone UTF-16 surrogate (\\u%04x), which is no character: send every string as UTF-8", r)
			default:
				i += 5
			}
		case c == '\\':
			i++ // the escaped character
		}
	}
	return nil
}

// hex4 reads the four hex digits at the start of b, or returns -1.
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	n := 0
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return n
}

func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// inputSchema is the input schema the SDK would infer for In, except that a
// []string is {"type": "array"} rather than {"type": ["null", "array"]}:
// Gemini's function declarations, which agents build from input schemas,
// take a single type and reject the whole tool otherwise. null is then
// refused, as it already is for every other parameter.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]string](): {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}})
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err))
	}
	return s
}

type handlers struct {
	engine Engine
	// c7 answers get-context7-docs and adds remote matches; nil without
	// Context7.
	c7 *context7.Client
	// audit receives the audit lines of tool calls not made over HTTP;
	// nil logs none.
	audit *slog.Logger
}

// agentError turns engine errors into messages that say what to do.
func agentError(err error) error {
	switch {
	case errors.Is(err, catalog.ErrLibraryNotFound):
		return fmt.Errorf("%v. Call resolve-library-id to find the right id", err)
	case errors.Is(err, catalog.ErrVersionNotFound):
		return fmt.Errorf("%v. Ask for one of those, or omit the version for the latest", err)
	case errors.Is(err, catalog.ErrVersionUnavailable):
		return fmt.Errorf("%v. Ask for one of the versions served, or try again later", err)
	case errors.Is(err, search.ErrTopicNotFound):
		return fmt.Errorf("%v. Use those slugs, or drop topics and use customQuery", err)
	case errors.Is(err, search.ErrDocumentNotFound):
		return fmt.Errorf("%v. Give a path from resolve-library-id's documents (detail \"full\"), or a folder to list (\".\" for all)", err)
	case errors.Is(err, search.ErrPageNotFound):
		return fmt.Errorf("%v. Ask for a page from 1 to the last", err)
	case errors.Is(err, request.ErrInvalidKey), errors.Is(err, request.ErrInvalidMode), errors.Is(err, request.ErrInvalidPath),
		errors.Is(err, request.ErrInvalidRequest), errors.Is(err, catalog.ErrNotReady):
		return err
	case errors.Is(err, search.ErrEmptyQuery):
		return errors.New("give customQuery (what you need, in words) or topics")
	case errors.Is(err, context.DeadlineExceeded):
		return errors.New("the server gave up on this call: it took longer than its time limit. Try again, with a shorter customQuery or a smaller tokens budget")
	}
	return err
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// firstNonEmpty returns the first of ss that is not blank, as it is: an
// id's control characters must reach request.ParseKey, which refuses
// them, rather than be trimmed here (plain spaces around it are trimmed
// there).
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
