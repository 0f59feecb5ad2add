// Package golden compares what a test produced with a golden file, or
// rewrites the file when the test runs with its package's -update flag,
// so that the readers' golden tests share one comparison and one message.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// JSON compares v, as indented JSON ending in a newline, with the file at
// path; with update it writes the file instead. what names the output in
// the failure message ("Split(docs/a.md)").
func JSON(t testing.TB, path, what string, v any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	Bytes(t, path, what, append(got, '\n'), update)
}

// Bytes compares got with the file at path; with update it writes the file
// instead. A difference fails t with the first differing line.
func Bytes(t testing.TB, path, what string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", what, path, FirstDiff(string(want), string(got)))
	}
}

// FirstDiff describes the first differing line of two texts.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n-want " + wl + "\n+got  " + gl
		}
	}
	return "(no line differs)"
}
