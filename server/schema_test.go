package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputSchemasSingleTyped checks that no input schema gives a property
// several types (such as ["null", "array"], which jsonschema-go infers for
// slices): Gemini's function declarations reject such a tool outright.
// cmd/indexer's TestClients checks the same with the MCP Inspector.
func TestInputSchemasSingleTyped(t *testing.T) {
	cs := connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range res.Tools {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema any
		json.Unmarshal(data, &schema)
		if got := typeArrays(schema, "inputSchema"); len(got) > 0 {
			t.Errorf("%s: type arrays at %v, want one type per schema\n%s", tool.Name, got, data)
		}
	}
}

// typeArrays returns the paths in a JSON Schema whose "type" is an array.
func typeArrays(schema any, path string) []string {
	var found []string
	switch s := schema.(type) {
	case map[string]any:
		if _, ok := s["type"].([]any); ok {
			found = append(found, path)
		}
		for k, v := range s {
			found = append(found, typeArrays(v, path+"."+k)...)
		}
	case []any:
		for i, v := range s {
			found = append(found, typeArrays(v, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return found
}

// TestOutputsMatchTheirSchemas checks answers of both tools against the
// output schemas the server publishes: the server does not validate each
// answer at run time (see addTool), so this is where a type and its
// schema drifting apart is caught.
func TestOutputsMatchTheirSchemas(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		data, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"resolve-library-id", map[string]any{"libraryName": "widgets"}},
		{"resolve-library-id", map[string]any{"libraryName": "widgets", "detail": "full"}},
		{"resolve-library-id", map[string]any{"libraryName": "nothing-like-it"}},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "polling", "tokens": 300}},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "zzyzx"}},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "path": "docs/guides/data-sources.md"}},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "path": "docs/guides/data-sources.md", "outline": true}},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "path": "."}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", tc.tool, tc.args, err, res)
		}
		data, _ := json.Marshal(res.StructuredContent)
		var v any
		json.Unmarshal(data, &v)
		if err := schemas[tc.tool].Validate(v); err != nil {
			t.Errorf("%s %v: output does not match its schema: %v\n%s", tc.tool, tc.args, err, data)
		}
	}
}

func TestArgumentsAreDecodedStrictly(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "version": "1"}, `unknown field "version"`},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "tokens": "lots"}, "tokens"},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "topics": "routing"}, "topics"},
		{"resolve-library-id", map[string]any{"libraryName": 42}, "libraryName"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, tc.want) || !strings.Contains(text, "invalid arguments") {
			t.Errorf("%s %v: isError %v, %q; want a tool error naming %q", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
}
