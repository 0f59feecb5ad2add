package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
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
