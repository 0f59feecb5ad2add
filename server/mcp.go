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
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7"
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

// New returns an MCP server whose tools answer from engine. version is
// reported to clients as the server's version.
func New(engine *search.Engine, version string, opts ...Option) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "codex7", Version: version}, nil)
	h := &handlers{engine: engine}
	for _, o := range opts {
		o(h)
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
	if h.c7 != nil {
		addTool(s, &mcp.Tool{
			Name:        "get-context7-docs",
			Description: context7Description,
			InputSchema: inputSchema[Context7Input](),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true), Title: "Get a remote library's documentation from Context7"},
		}, h.context7Docs)
	}
	return s
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
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) {
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("output schema of %s: %v", t.Name, err))
	}
	t.OutputSchema = out
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if args := req.Params.Arguments; len(args) > 0 && string(args) != "null" {
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return errorResult(argumentsError(err, reflect.TypeFor[In]())), nil
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
	})
}

// argumentsError says what is wrong with the arguments of a tool whose
// input type is in, in terms of JSON and the tool's parameters rather than
// of Go types, quoting at most a few dozen bytes of what the agent sent.
func argumentsError(err error, in reflect.Type) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		got := clipText(te.Value, 40)
		if te.Field == "" {
			return fmt.Errorf("invalid arguments: they must be a JSON object of parameters, not %s; see the tool's input schema", got)
		}
		if f, ok := fieldByJSONName(in, te.Field); ok && f.Type.Kind() == reflect.Slice && f.Type.Elem() == te.Type {
			return fmt.Errorf("invalid arguments: %s must be %s, and one item is %s; see the tool's input schema", te.Field, jsonTypeName(f.Type), got)
		}
		return fmt.Errorf("invalid arguments: %s must be %s, not %s; see the tool's input schema", te.Field, jsonTypeName(te.Type), got)
	}
	return fmt.Errorf("invalid arguments: %s; see the tool's input schema", clipText(strings.TrimPrefix(err.Error(), "json: "), 200))
}

// fieldByJSONName returns the field of struct type t that JSON names name.
func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonTypeName names the JSON value a parameter of Go type t takes.
func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonTypeName(t.Elem()), "a "), "an ") + "s"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return "an object"
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
	engine *search.Engine
	// c7 answers get-context7-docs and adds remote matches; nil without
	// Context7.
	c7 *context7.Client
}

// agentError turns engine errors into messages that say what to do.
func agentError(err error) error {
	switch {
	case errors.Is(err, search.ErrLibraryNotFound):
		return fmt.Errorf("%v. Call resolve-library-id to find the right id", err)
	case errors.Is(err, search.ErrVersionNotFound):
		return fmt.Errorf("%v. Ask for one of those, or omit the version for the latest", err)
	case errors.Is(err, search.ErrVersionUnavailable):
		return fmt.Errorf("%v. Ask for one of the versions served, or try again later", err)
	case errors.Is(err, search.ErrTopicNotFound):
		return fmt.Errorf("%v. Use those slugs, or drop topics and use customQuery", err)
	case errors.Is(err, search.ErrDocumentNotFound):
		return fmt.Errorf("%v. Give a path from resolve-library-id's documents (detail \"full\"), or a folder to list (\".\" for all)", err)
	case errors.Is(err, search.ErrPageNotFound):
		return fmt.Errorf("%v. Ask for a page from 1 to the last", err)
	case errors.Is(err, search.ErrInvalidKey), errors.Is(err, search.ErrInvalidMode), errors.Is(err, search.ErrInvalidPath),
		errors.Is(err, search.ErrInvalidRequest), errors.Is(err, search.ErrNotReady):
		return err
	case errors.Is(err, search.ErrEmptyQuery):
		return errors.New("give customQuery (what you need, in words) or topics")
	}
	return err
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
