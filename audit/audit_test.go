package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestNilRecordIsSafe(t *testing.T) {
	var r *Record
	r.SetToken("x")
	r.SetQuery("q")
	r.SetResults(1)
	r.SetResponse(200, 1)
	r.Log(context.Background(), slog.New(slog.DiscardHandler), time.Now())
	if From(context.Background()) != nil || r.ID() != "" {
		t.Error("a context without a record gave one")
	}
}

func TestLogLine(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := New("abc-1", start)
	ctx := With(context.Background(), r)
	From(ctx).SetToken("ci")
	From(ctx).SetRoute("/mcp")
	From(ctx).SetTool("get-library-docs")
	From(ctx).SetLibrary("/acme/widgets", "v1")
	From(ctx).SetQuery("ünïcode " + strings.Repeat("é", MaxQueryBytes)) // cut inside a rune
	From(ctx).SetResults(0)
	From(ctx).SetOutcome("ok")
	From(ctx).SetResponse(200, 1234)
	r.Log(ctx, log, start.Add(1500*time.Microsecond))
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	q, _ := got["query"].(string)
	if !utf8.ValidString(q) || len(q) > MaxQueryBytes+len("…") || !strings.HasSuffix(q, "…") {
		t.Errorf("query %q: want valid UTF-8 cut to %d bytes and marked", q, MaxQueryBytes)
	}
	want := map[string]any{"msg": "audit", "request_id": "abc-1", "token": "ci", "route": "/mcp", "tool": "get-library-docs",
		"library": "/acme/widgets", "version": "v1", "outcome": "ok", "results": 0.0, "status": 200.0, "bytes": 1234.0,
		"duration_ms": 1.5, "start": "2026-01-02T03:04:05Z"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	// A record that never learnt a count or a status says nothing of them.
	buf.Reset()
	New("abc-2", start).Log(ctx, log, start)
	if s := buf.String(); strings.Contains(s, `"results"`) || strings.Contains(s, `"status"`) {
		t.Errorf("empty record logged %s", s)
	}
}
