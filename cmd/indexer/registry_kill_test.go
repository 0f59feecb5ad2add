package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/registrytest"
)

// largeDist builds libraries of many pages of varied prose, so that a
// push or pull takes long enough to be killed in the middle.
func largeDist(t *testing.T, bin string, libs, pages int, seed uint64) string {
	t.Helper()
	words := strings.Fields("widget gadget poll render cache token stream index shard query route layout hook state effect buffer signal retry backoff registry manifest layer digest catalog version commit branch tag release deploy replica probe volume secret config")
	rng := rand.New(rand.NewPCG(seed, 7))
	var cfg strings.Builder
	var roots []string
	for l := range libs {
		r := gittest.New(t, "main")
		files := map[string]string{}
		for p := range pages {
			var b strings.Builder
			fmt.Fprintf(&b, "# Page %d of library %d\n\n", p, l)
			for s := range 6 {
				fmt.Fprintf(&b, "## Section %d %s\n\n", s, words[rng.IntN(len(words))])
				for range 60 {
					b.WriteString(words[rng.IntN(len(words))])
					b.WriteByte(' ')
				}
				b.WriteString("\n\n")
			}
			files[fmt.Sprintf("docs/p%03d.md", p)] = b.String()
		}
		r.Write(files)
		r.Commit("docs")
		roots = append(roots, r.Dir)
		fmt.Fprintf(&cfg, "  - id: /kill/lib%d\n    repo: %s\n", l, r.Dir)
	}
	p := filepath.Join(t.TempDir(), "codex7.yaml")
	os.WriteFile(p, []byte("allow: {local_roots: ["+strings.Join(roots, ", ")+"]}\nlibraries:\n"+cfg.String()), 0o644)
	out := t.TempDir()
	if msg, err := exec.Command(bin, "build", "--config", p, "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, msg)
	}
	return out
}

// runFor starts the binary and SIGKILLs it after d (if it is still
// running); it reports whether it was killed.
func runFor(t *testing.T, bin string, d time.Duration, args ...string) bool {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s exited early: %v", args[0], err)
		}
		return false
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return true
	}
}

// TestKilledPushAndPull kills indexer push and pull at random moments
// (SIGKILL). A killed push leaves its tag absent or pointing at a
// complete artifact that pulls and verifies; a killed pull leaves the
// previous directory complete and verified, and the next pull finishes it.
func TestKilledPushAndPull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and pushes a few megabytes many times")
	}
	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{})
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	one := largeDist(t, bin, 3, 150, 1)
	two := largeDist(t, bin, 3, 150, 2)

	start := time.Now()
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", one, "oci://"+reg.Host+"/kill/base:v1"); code != 0 {
		t.Fatalf("push: %s%s", out, errOut)
	}
	full := time.Since(start)
	t.Logf("a full push takes %v", full)

	kills := 0
	for i := range 6 {
		ref := fmt.Sprintf("oci://%s/kill/push%d:v1", reg.Host, i)
		if !runFor(t, bin, time.Duration(rng.Int64N(int64(full))), "push", "--artifacts", one, ref) {
			continue
		}
		kills++
		code, out, errOut := cli(t, bin, nil, "pull", ref, "--artifacts", t.TempDir())
		switch {
		case code == 0:
			// The tag was set: the push had finished everything before.
		case strings.Contains(errOut, "no such artifact"):
			// Killed before the tag: nothing published.
		default:
			t.Fatalf("after a killed push, pull %s: exit %d\n%s%s", ref, code, out, errOut)
		}
	}

	// Pulls of edition two into a directory holding edition one.
	base := "oci://" + reg.Host + "/kill/base:v1"
	dst := filepath.Join(t.TempDir(), "dist")
	if code, out, errOut := cli(t, bin, nil, "pull", base, "--artifacts", dst); code != 0 {
		t.Fatalf("pull: %s%s", out, errOut)
	}
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", two, "oci://"+reg.Host+"/kill/base:v2"); code != 0 {
		t.Fatalf("push: %s%s", out, errOut)
	}
	start = time.Now()
	probe := filepath.Join(t.TempDir(), "probe")
	if code, out, errOut := cli(t, bin, nil, "pull", "oci://"+reg.Host+"/kill/base:v2", "--artifacts", probe); code != 0 {
		t.Fatalf("pull: %s%s", out, errOut)
	}
	full = time.Since(start)
	for i := range 6 {
		// Alternate the edition the directory should move to.
		ref := "oci://" + reg.Host + "/kill/base:v" + fmt.Sprint(2-i%2)
		if !runFor(t, bin, time.Duration(rng.Int64N(int64(full))), "pull", ref, "--artifacts", dst) {
			continue
		}
		kills++
		// The one problem a kill may leave is a catalog out of date (a
		// version installed, catalog.json not yet): every file is sound.
		probs, err := artifacts.Verify(dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			if !errors.Is(p.Err, artifacts.ErrStale) {
				t.Fatalf("after a killed pull of %s: verify %v", ref, probs)
			}
		}
		if code, out, errOut := cli(t, bin, nil, "pull", ref, "--artifacts", dst); code != 0 {
			t.Fatalf("pull after a killed one: exit %d\n%s%s", code, out, errOut)
		}
		if code, out, _ := cli(t, bin, nil, "verify", dst); code != 0 {
			t.Fatalf("verify after the pull that followed a killed one: %s", out)
		}
		entries, _ := os.ReadDir(filepath.Join(dst, ".staging"))
		if len(entries) > 0 {
			t.Errorf("staging not cleaned by the next pull: %d entries", len(entries))
		}
	}
	t.Logf("%d of 12 runs killed midway", kills)
	if kills < 4 {
		t.Errorf("only %d runs were killed midway: the dists are too small to test this", kills)
	}
}
