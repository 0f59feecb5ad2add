package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and either returns a config that
// passes Validate or at most maxProblems *Error problems, each matching
// ErrInvalid. Seeds are testdata/example.yaml, the small hostile configs
// and the interesting inputs in testdata/fuzz.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("testdata", "example.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte("libraries:\n  - id: /a/b\n    repo: ./b\n    topics: {}\n"))
	f.Add([]byte("libraries: [{id: /a/b, repo: 'git@h:a/b', versions: [{ref: v1}], latest: v1}]"))
	for _, h := range hostileConfigs() {
		if len(h.src) < 4096 {
			f.Add([]byte(h.src))
		}
	}
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
		if n := len(j.Unwrap()); n > maxProblems {
			t.Fatalf("got %d problems, want at most %d", n, maxProblems)
		}
		for _, e := range j.Unwrap() {
			var pe *Error
			if !errors.As(e, &pe) || pe.Msg == "" || pe.File != "fuzz.yaml" {
				t.Fatalf("problem is not a complete *Error: %#v", e)
			}
		}
	})
}

// hostileConfigs are YAML attacks on Parse and what the single problem
// (or the first problems) it reports must say. go.yaml.in/yaml/v3 by itself
// keeps aliases unexpanded in a yaml.Node (findUnsupported then refuses
// them) and stops at 10,000 levels of nesting; Parse refuses more than
// maxNesting levels, files over MaxFileSize, and the mappings whose keys
// the decoder would compare pair by pair for hours (crowded).
func hostileConfigs() []struct {
	name string
	src  string
	want wantErr
} {
	rep := strings.Repeat
	laughs := `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n"
	for c := 'b'; c <= 'i'; c++ {
		prev := string(c - 1)
		laughs += fmt.Sprintf("%c: &%c [%s]\n", c, c, strings.TrimSuffix(rep("*"+prev+",", 9), ","))
	}
	laughs += "libraries: *i\n"
	nest := func(n int) string { return "libraries: " + rep("[", n) + rep("]", n) + "\n" }
	return []struct {
		name string
		src  string
		want wantErr
	}{
		{"billion laughs", laughs, wantErr{1, "a", "anchor &a; YAML anchors and aliases are not supported"}},
		{"merge key", "x: &a {id: /a/b}\nlibraries:\n  - <<: *a\n", wantErr{1, "x", "anchor &a"}},
		{"alias as key", "x: &a k\nlibraries:\n  - *a : v\n", wantErr{1, "x", "anchor &a"}},
		{"100,000 aliases", "x: &a y\nlibraries:\n" + rep("  - *a\n", 100_000), wantErr{1, "x", "anchor &a"}},
		{"100,000 nested flow sequences", nest(100_000), wantErr{0, "", "nested more than 16 levels deep"}},
		{"100,000 nested flow mappings", "libraries: " + rep("{a: ", 100_000) + "x" + rep("}", 100_000) + "\n", wantErr{0, "", "nested more than 16 levels deep"}},
		{"100,000 nested block sequences", "libraries:\n" + rep("- ", 100_000) + "x\n", wantErr{2, "", "nested more than 16 levels deep"}},
		{"9,999 nested flow sequences", nest(9_999), wantErr{1, "libraries" + rep("[0]", 15), "nested more than 16 levels deep"}},
		{"17 levels of nesting", nest(16), wantErr{1, "libraries" + rep("[0]", 15), "nested more than 16 levels deep"}},
		{"deep under an unknown key", "libraries: []\nx:\n  y: " + rep("[", 20) + rep("]", 20) + "\n", wantErr{3, "x.y" + rep("[0]", 14), "nested more than 16 levels deep"}},
		{"200,000 repeats of a key", "libraries: []\n" + rep("x: 1\n", 200_000), wantErr{1, "", "a mapping of 200001 keys at the top level"}},
		{"60 repeats of a key in 2,500 libraries", "libraries:\n" + rep("  - {"+rep("a: 1, ", 60)+"}\n", 2_500), wantErr{2, "libraries[0].a", `key "a" appears twice in libraries[0] (first at line 2)`}},
		{"larger than 1 MiB", "libraries:\n" + rep("# padding padding padding\n", MaxFileSize/20), wantErr{0, "", "larger than 1 MiB"}},
	}
}

// TestParseHostile checks that every hostile config is refused, with a
// problem that names what is wrong first. It asserts no timing (a blow-up
// would time it out); BenchmarkParseHostile gives the figures.
func TestParseHostile(t *testing.T) {
	for _, tt := range hostileConfigs() {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseString(t, tt.src)
			if cfg != nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, %v; want nil and ErrInvalid", cfg, err)
			}
			got := problems(err)
			if len(got) > maxProblems {
				t.Errorf("got %d problems, want at most %d", len(got), maxProblems)
			}
			first := got[0]
			if first.Line != tt.want.line || first.Field != tt.want.field || !strings.Contains(first.Msg, tt.want.msg) {
				t.Errorf("first problem %q (line %d, field %q), want line %d, field %q, msg containing %q",
					first.Msg, first.Line, first.Field, tt.want.line, tt.want.field, tt.want.msg)
			}
		})
	}
}

// TestParseNestingLimit checks that maxNesting levels are allowed: a file
// as deep as the limit gets the usual shape problem, not the nesting one.
func TestParseNestingLimit(t *testing.T) {
	src := "libraries: [{id: /a/b, repo: ./b, topics: [{name: x, paths: [" + strings.Repeat("[", 10) + strings.Repeat("]", 10) + "]}]}]\n"
	_, err := parseString(t, src)
	got := problems(err)
	if len(got) != 1 || strings.Contains(got[0].Msg, "nested") || got[0].Field != "libraries[0].topics[0].paths[0]" {
		t.Errorf("got %v, want one shape problem at libraries[0].topics[0].paths[0]", err)
	}
}

// BenchmarkParseHostile times the refusal of each hostile config (one op
// is one Parse).
func BenchmarkParseHostile(b *testing.B) {
	for _, tt := range hostileConfigs() {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.src)))
			for b.Loop() {
				if _, err := Parse(strings.NewReader(tt.src), "codex7.yaml"); err == nil {
					b.Fatal("Parse accepted a hostile config")
				}
			}
		})
	}
}
