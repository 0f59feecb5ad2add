package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics and either returns a config that
// passes Validate or only *Error problems, each matching ErrInvalid. Seeds
// are testdata/example.yaml and the interesting inputs in testdata/fuzz.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("testdata", "example.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte("libraries:\n  - id: /a/b\n    repo: ./b\n    topics: {}\n"))
	f.Add([]byte("libraries: [{id: /a/b, repo: 'git@h:a/b', versions: [{ref: v1}], latest: v1}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(bytes.NewReader(data), "fuzz.yaml")
		if err == nil {
			if cfg == nil {
				t.Fatal("nil config without an error")
			}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("Parse accepted a config that Validate rejects: %v", err)
			}
			for i, l := range cfg.Libraries {
				if l.Line <= 0 {
					t.Fatalf("libraries[%d].Line = %d", i, l.Line)
				}
			}
			return
		}
		if cfg != nil {
			t.Fatal("config returned with an error")
		}
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("error does not match ErrInvalid: %v", err)
		}
		j, ok := err.(interface{ Unwrap() []error })
		if !ok {
			t.Fatalf("error is not a join: %T", err)
		}
		for _, e := range j.Unwrap() {
			var pe *Error
			if !errors.As(e, &pe) || pe.Msg == "" || pe.File != "fuzz.yaml" {
				t.Fatalf("problem is not a complete *Error: %#v", e)
			}
		}
	})
}
