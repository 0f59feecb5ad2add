package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/registrytest"
	"github.com/codex7/codex7/internal/waitfor"
)

// podman returns a function running podman with this machine's
// containers.conf (../shared/containers), or skips the test without
// podman; under CI, or with CODEX7_REQUIRE_PODMAN=1, it fails instead.
func podman(t *testing.T) func(args ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		msg := "podman not installed: eval \"$(../shared/containers/setup.sh)\" installs it (apt-get install podman runc)"
		if os.Getenv("CI") == "true" || os.Getenv("CODEX7_REQUIRE_PODMAN") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	env := os.Environ()
	if os.Getenv("CONTAINERS_CONF") == "" {
		if conf, err := filepath.Abs("../../../shared/containers/containers.conf"); err == nil {
			if _, err := os.Stat(conf); err == nil {
				env = append(env, "CONTAINERS_CONF="+conf)
			}
		}
	}
	return func(args ...string) (string, error) {
		cmd := exec.Command("podman", args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
}

// openToAll makes a test directory, and the test's temporary root above
// it, traversable by the container's user (65532).
func openToAll(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	for d := dir; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()) {
			os.Chmod(d, 0o755)
		}
	}
	os.Chmod(dir, mode)
}

// TestImage builds the image as `task image` does (deploy/image/build.sh,
// both platforms), checks what it is made of, pushes it as a multi-arch
// image to a real registry (deploy/image/push.sh), and runs it under
// podman with a read-only root file system: serving a dist mounted
// read-only, then a registry reference into a writable cache volume,
// each answering a real MCP call from the host.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two static binaries and an image")
	}
	pm := podman(t)
	image := fmt.Sprintf("localhost/codex7/indexer:test-%d", os.Getpid())
	build := exec.Command("../../deploy/image/build.sh")
	build.Env = append(os.Environ(), "IMAGE="+image, "VERSION=v9.9.9-test")
	if conf, err := filepath.Abs("../../../shared/containers/containers.conf"); err == nil && os.Getenv("CONTAINERS_CONF") == "" {
		build.Env = append(build.Env, "CONTAINERS_CONF="+conf)
	}
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		for _, tag := range []string{image, image + "-amd64", image + "-arm64"} {
			pm("rmi", "-f", tag)
		}
	})

	// What the image is made of.
	raw, err := pm("image", "inspect", image)
	if err != nil {
		t.Fatal(err)
	}
	var inspect []struct {
		Size   int64
		Config struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Labels     map[string]string
			Env        []string
		}
	}
	if err := json.Unmarshal([]byte(raw), &inspect); err != nil || len(inspect) != 1 {
		t.Fatalf("podman image inspect: %v\n%s", err, raw)
	}
	cfg := inspect[0].Config
	t.Logf("image size %.1f MB", float64(inspect[0].Size)/1e6)
	if inspect[0].Size > 30e6 {
		t.Errorf("image is %d bytes, want under 30 MB", inspect[0].Size)
	}
	if cfg.User != "65532:65532" || strings.Join(cfg.Entrypoint, " ") != "indexer" || strings.Join(cfg.Cmd, " ") != "serve --http 0.0.0.0:8080" {
		t.Errorf("user %q, entrypoint %q, cmd %q; want 65532:65532, indexer, serve --http 0.0.0.0:8080", cfg.User, cfg.Entrypoint, cfg.Cmd)
	}
	for _, l := range []string{"source", "version", "revision", "licenses", "created"} {
		if cfg.Labels["org.opencontainers.image."+l] == "" {
			t.Errorf("no label org.opencontainers.image.%s", l)
		}
	}
	if v, _ := pm("run", "--rm", "--read-only", image, "version"); !strings.Contains(v, "indexer v9.9.9-test") || !strings.Contains(v, "linux/") {
		t.Errorf("indexer version in the image: %q, want the stamped version", v)
	}
	// No shell, nothing but the binary, certificates and users.
	if out, err := pm("run", "--rm", "--entrypoint", "/bin/sh", image, "-c", "true"); err == nil {
		t.Errorf("the image has a shell: %s", out)
	}

	// Multi-arch: push both platforms as one image index.
	reg := registrytest.Start(t, registrytest.Options{})
	push := exec.Command("../../deploy/image/push.sh")
	push.Env = append(build.Env, "DEST="+reg.Host+"/codex7/indexer:test", "PLAIN_HTTP=1")
	if out, err := push.CombinedOutput(); err != nil {
		t.Fatalf("push.sh: %v\n%s", err, out)
	}
	req, _ := http.NewRequest("GET", "http://"+reg.Host+"/v2/codex7/indexer/manifests/test", nil)
	req.Header.Set("Accept", "application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.index.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, arch := range []string{`"amd64"`, `"arm64"`} {
		if !strings.Contains(string(body), arch) {
			t.Errorf("the pushed image index lacks %s: %s", arch, body)
		}
	}

	bin := testBinary(t)
	site := newEditions(t, bin, "/acme/site")
	openToAll(t, site.out, 0o755)
	run := func(name string, args ...string) string {
		t.Helper()
		id, err := pm(append([]string{"run", "-d", "--name", name, "--read-only", "--network", "host", "--health-cmd", "none"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pm("rm", "-f", name) })
		return id
	}
	ready := func(name, base string) {
		t.Helper()
		ok := waitfor.Poll(30*time.Second, func() bool {
			resp, err := http.Get(base + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
		if !ok {
			logs, _ := pm("logs", name)
			t.Fatalf("waited 30s for %s to be ready:\n%s", name, logs)
		}
	}

	// A dist mounted read-only.
	addr := freeAddr(t)
	name := fmt.Sprintf("codex7-test-dist-%d", os.Getpid())
	run(name, "-v", site.out+":/srv/dist:ro", image, "serve", "--http", addr)
	ready(name, "http://"+addr)
	if m, err := marker(t, "http://"+addr, "/acme/site"); m != "marker1" {
		t.Errorf("container serving a mounted dist: %q %v, want marker1", m, err)
	}
	if out, err := pm("exec", name, "indexer", "healthcheck", "http://"+addr+"/readyz"); err != nil {
		t.Errorf("healthcheck inside the container: %v %s", err, out)
	}
	if out, err := pm("exec", name, "indexer", "healthcheck", "http://"+addr+"/nope"); err == nil {
		t.Errorf("healthcheck of a 404 passed: %s", out)
	}

	// A registry reference, pulled into a writable cache volume.
	ref := "oci://" + reg.Host + "/codex7/docs:v1"
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", site.out, ref); code != 0 {
		t.Fatalf("push: %s%s", out, errOut)
	}
	cache := t.TempDir()
	openToAll(t, cache, 0o777)
	addr = freeAddr(t)
	name = fmt.Sprintf("codex7-test-oci-%d", os.Getpid())
	run(name, "-v", cache+":/var/cache", image, "serve", "--http", addr, "--artifacts", ref)
	ready(name, "http://"+addr)
	if m, err := marker(t, "http://"+addr, "/acme/site"); m != "marker1" {
		t.Errorf("container serving a registry reference: %q %v, want marker1", m, err)
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "codex7", "oci", "*", "catalog.json")); len(entries) != 1 {
		t.Errorf("the pull is not in the cache volume: %v", entries)
	}
}
