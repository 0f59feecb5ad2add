package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/registrytest"
)

// BenchmarkRegistry pushes the artifacts of every tree of -corpus (or
// -artifacts-dir) to a local registry and pulls them into an empty
// directory, then changes one library version (a new commit in its
// manifest, so its whole layer is new), pushes and pulls again, and
// times a serving replica (indexer serve --artifacts oci://…
// --reload-interval 1s) from the end of that push to its first answer
// from the new version. One op is the whole sequence with the real
// binary, in a new repository of the registry; run it through
// `task bench:registry` (-benchtime 1x -count 3).
func BenchmarkRegistry(b *testing.B) {
	src := benchArtifacts(b)
	bin := buildServer(b)
	reg := registrytest.Start(b, registrytest.Options{})
	cat, err := artifacts.ReadCatalog(src)
	if err != nil {
		b.Fatal(err)
	}
	// The library with the most sections: its docs answer "install".
	changed := cat.Libraries[0]
	for _, l := range cat.Libraries {
		if l.Versions[0].Counts.Sections > changed.Versions[0].Counts.Sections {
			changed = l
		}
	}
	for i := 0; i < b.N; i++ {
		dist := copyTree(b, src)
		ref := fmt.Sprintf("oci://%s/bench/run%d-%d:latest", reg.Host, time.Now().UnixNano(), i)
		secs, out := timed(b, bin, "push", "--artifacts", dist, ref)
		b.ReportMetric(secs, "push-s")
		b.ReportMetric(sentMB(b, out), "push-MB")
		pulled := filepath.Join(b.TempDir(), "dist")
		secs, out = timed(b, bin, "pull", ref, "--artifacts", pulled)
		b.ReportMetric(secs, "pull-s")
		b.ReportMetric(sentMB(b, out), "pull-MB")

		addr := freeAddr(b)
		serve := exec.Command(bin, "serve", "--http", addr, "--artifacts", ref, "--cache-dir", b.TempDir(), "--reload-interval", "1s")
		if err := serve.Start(); err != nil {
			b.Fatal(err)
		}
		base := "http://" + addr
		waitReady(b, base)

		commit := recommit(b, dist, changed.ID, changed.Latest)
		secs, out = timed(b, bin, "push", "--artifacts", dist, ref)
		pushed := time.Now()
		b.ReportMetric(secs, "push1-s")
		b.ReportMetric(sentMB(b, out)*1024, "push1-KB")
		for {
			text, err := docsText(base, changed.ID, "install")
			if err == nil && strings.Contains(text, "commit "+commit[:12]) {
				break
			}
			if time.Since(pushed) > time.Minute {
				b.Fatalf("the replica did not switch to commit %.12s within a minute: %v %.200s", commit, err, text)
			}
			// A fixed 10 ms, not waitfor's backoff: the interval is the
			// resolution of the push-to-serve time this measures.
			time.Sleep(10 * time.Millisecond)
		}
		b.ReportMetric(time.Since(pushed).Seconds(), "push-to-serve-s")
		serve.Process.Kill()
		serve.Wait()
		secs, out = timed(b, bin, "pull", ref, "--artifacts", pulled)
		b.ReportMetric(secs, "pull1-s")
		b.ReportMetric(sentMB(b, out)*1024, "pull1-KB")
	}
}

// timed runs the binary and returns its wall time and stdout.
func timed(b *testing.B, bin string, args ...string) (float64, string) {
	b.Helper()
	start := time.Now()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		b.Fatalf("%s: %v\n%s", args[0], err, out)
	}
	return time.Since(start).Seconds(), string(out)
}

// sentMB reads the bytes a push or pull printed it sent or received.
func sentMB(b *testing.B, out string) float64 {
	b.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasSuffix(line, " sent") && !strings.HasSuffix(line, " received") {
			continue
		}
		f := strings.Fields(line)
		var n float64
		fmt.Sscan(f[len(f)-3], &n)
		switch f[len(f)-2] {
		case "MiB":
			return n
		case "KiB":
			return n / 1024
		case "B":
			return n / (1 << 20)
		}
	}
	b.Fatalf("no byte count in %q", out)
	return 0
}

// recommit gives the version a new commit in its manifest, as a rebuild
// of a new commit would, and rewrites the catalog; it returns the commit.
func recommit(b *testing.B, dist, id, version string) string {
	b.Helper()
	release, err := artifacts.Lock(dist)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	dir := artifacts.Dir(dist, id, version)
	m, err := artifacts.ReadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	sum := sha256.Sum256([]byte(time.Now().String()))
	m.Commit = hex.EncodeToString(sum[:20])
	data, err := artifacts.EncodeManifest(m)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, artifacts.ManifestFile), data, 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := artifacts.WriteCatalog(dist, nil); err != nil {
		b.Fatal(err)
	}
	return m.Commit
}

// docsText asks the server at base for lib's docs on query over MCP and
// returns the answer's text; a tool error is an error.
func docsText(base, lib, query string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "codex7-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-library-docs", Arguments: map[string]any{"libraryId": lib, "customQuery": query, "tokens": 1000}})
	if err != nil {
		return "", err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", text)
	}
	return text, nil
}
