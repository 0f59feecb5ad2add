package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/registrytest"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/oci"
)

// editions is a dist of libraries whose answers carry an edition marker,
// rebuilt with the binary after each new edition.
type editions struct {
	t    *testing.T
	bin  string
	libs map[string]*gittest.Repo // by id
	cfg  string
	out  string
}

func newEditions(t *testing.T, bin string, ids ...string) *editions {
	t.Helper()
	e := &editions{t: t, bin: bin, libs: map[string]*gittest.Repo{}, out: t.TempDir()}
	var cfg strings.Builder
	cfg.WriteString("libraries:\n")
	var roots []string
	for _, id := range ids {
		r := gittest.New(t, "main")
		e.libs[id] = r
		roots = append(roots, r.Dir)
		fmt.Fprintf(&cfg, "  - id: %s\n    repo: %s\n", id, r.Dir)
	}
	e.cfg = filepath.Join(t.TempDir(), "codex7.yaml")
	if err := os.WriteFile(e.cfg, []byte("allow: {local_roots: ["+strings.Join(roots, ", ")+"]}\n"+cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e.edition(1)
	return e
}

// edition commits edition n of every library and rebuilds.
func (e *editions) edition(n int) {
	e.t.Helper()
	for id, r := range e.libs {
		r.Write(map[string]string{"docs/guide.md": fmt.Sprintf("# Guide to %s\n\n## Edition\n\nThis is edition marker%d of the guide.\n", id, n)})
		r.Commit(fmt.Sprint("edition ", n))
	}
	if msg, err := exec.Command(e.bin, "build", "--config", e.cfg, "--out", e.out).CombinedOutput(); err != nil {
		e.t.Fatalf("build: %v\n%s", err, msg)
	}
}

// cli runs the binary and returns its exit code and output.
func cli(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestPushPullCommands drives indexer push and pull against a registry
// with basic auth, as a CI job would: credentials from the environment,
// what was pushed and the digest printed, extra tags, a pull verified.
func TestPushPullCommands(t *testing.T) {
	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthBasic})
	site := newEditions(t, bin, "/acme/site", "/acme/other")
	ref := "oci://" + reg.Host + "/codex7/docs:v1"
	creds := []string{"CODEX7_REGISTRY_USERNAME=" + reg.Username, "CODEX7_REGISTRY_PASSWORD=" + reg.Password, "DOCKER_CONFIG=" + t.TempDir()}

	code, out, errOut := cli(t, bin, creds, "push", "--artifacts", site.out, ref, "--tag", "release-1")
	if code != 0 {
		t.Fatalf("push: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"pushed         /acme/other@main", "pushed         /acme/site@main", "2 versions pushed, 0 already there", "digest sha256:", "tagged " + ref, "tagged oci://" + reg.Host + "/codex7/docs:release-1", "pinned oci://" + reg.Host + "/codex7/docs@sha256:"} {
		if !strings.Contains(out, want) {
			t.Errorf("push output lacks %q:\n%s", want, out)
		}
	}
	site.edition(2)
	delete(site.libs, "/acme/other")
	code, out, _ = cli(t, bin, creds, "push", "--artifacts", site.out, ref)
	if code != 0 || !strings.Contains(out, "2 versions pushed, 0 already there") {
		t.Errorf("push of a new edition: exit %d\n%s", code, out)
	}
	code, out, _ = cli(t, bin, creds, "push", "--artifacts", site.out, ref)
	if code != 0 || !strings.Contains(out, "0 versions pushed, 2 already there") {
		t.Errorf("push of the same dist: exit %d\n%s", code, out)
	}

	dst := filepath.Join(t.TempDir(), "dist")
	code, out, errOut = cli(t, bin, creds, "pull", ref, "--artifacts", dst)
	if code != 0 || !strings.Contains(out, "2 versions pulled, 0 unchanged") {
		t.Fatalf("pull: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := cli(t, bin, nil, "verify", dst); code != 0 {
		t.Errorf("verify after pull: exit %d\n%s", code, out)
	}
	// The release tag still names the first edition.
	code, out, _ = cli(t, bin, creds, "pull", "oci://"+reg.Host+"/codex7/docs:release-1", "--artifacts", dst)
	if code != 0 || !strings.Contains(out, "2 versions pulled") {
		t.Errorf("pull of release-1: exit %d\n%s", code, out)
	}

	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			name string
			env  []string
			args []string
			code int
			want string
		}{
			{"no scheme", creds, []string{"pull", reg.Host + "/codex7/docs"}, exitUsage, "must start with oci://"},
			{"no reference", creds, []string{"push", "--artifacts", site.out}, exitUsage, "give one registry reference"},
			{"wrong password", []string{"CODEX7_REGISTRY_USERNAME=" + reg.Username, "CODEX7_REGISTRY_PASSWORD=hunter2-wrong", "DOCKER_CONFIG=" + t.TempDir()}, []string{"pull", ref, "--artifacts", t.TempDir()}, exitFailed, "CODEX7_REGISTRY_PASSWORD"},
			{"no credentials", []string{"DOCKER_CONFIG=" + t.TempDir()}, []string{"push", "--artifacts", site.out, ref}, exitFailed, "docker login " + reg.Host},
			{"no such tag", creds, []string{"pull", "oci://" + reg.Host + "/codex7/docs:nope", "--artifacts", t.TempDir()}, exitFailed, "no such artifact"},
			{"no such tag, missing ok", creds, []string{"pull", "--missing-ok", "oci://" + reg.Host + "/codex7/docs:nope", "--artifacts", t.TempDir()}, exitOK, ""},
			{"missing ok, wrong password", []string{"CODEX7_REGISTRY_USERNAME=" + reg.Username, "CODEX7_REGISTRY_PASSWORD=hunter2-wrong", "DOCKER_CONFIG=" + t.TempDir()}, []string{"pull", "--missing-ok", ref, "--artifacts", t.TempDir()}, exitFailed, "refused the credentials"},
			// A missing directory is the user's mistake, said before the
			// registry is contacted.
			{"no dist", creds, []string{"push", "--artifacts", filepath.Join(t.TempDir(), "missing"), ref}, exitUsage, "missing: no such directory"},
			{"registry down", nil, []string{"pull", "oci://127.0.0.1:1/codex7/docs", "--artifacts", t.TempDir()}, exitFailed, "registry unreachable"},
		} {
			code, out, errOut := cli(t, bin, c.env, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("%s: exit %d, stderr %q; want exit %d naming %q (stdout %q)", c.name, code, errOut, c.code, c.want, out)
			}
			if strings.Contains(out+errOut, "hunter2-wrong") || strings.Contains(out+errOut, reg.Password) {
				t.Errorf("%s: a password is shown: %s%s", c.name, out, errOut)
			}
		}
	})
}

// TestPullMissingOKWithMissingBlob: 'pull --missing-ok' is for a first CI
// run, where the reference does not exist yet. A tag that exists but whose
// layer blob the registry lost is no first run: the pull fails (exit 1)
// naming the missing blob and saying to push again, instead of printing
// "nothing at … yet" and exit 0, after which the CI job would rebuild
// every library from scratch and push over the tag.
func TestPullMissingOKWithMissingBlob(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv(oci.EnvUsername, "")
	t.Setenv(oci.EnvPassword, "")
	r := gittest.New(t, "main")
	r.Write(map[string]string{"docs/guide.md": "# Guide\n\n## Install\n\nRun the installer.\n"})
	r.Commit("docs")
	src := t.TempDir()
	buildtest.Build(t, src, "libraries:\n  - id: /acme/widgets\n    repo: "+r.Dir+"\n")
	ref, err := oci.ParseReference("oci://" + reg.Host + "/codex7/docs:latest")
	if err != nil {
		t.Fatal(err)
	}
	res, err := oci.Push(context.Background(), src, ref, oci.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(reg.BlobPath(res.Pushed[0].Digest)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	dst := filepath.Join(t.TempDir(), "dist")
	code := runPull(context.Background(), []string{"--missing-ok", "--artifacts", dst, ref.String()}, &stdout, &stderr)
	if code != exitFailed || !strings.Contains(stderr.String(), res.Pushed[0].Digest) || !strings.Contains(stderr.String(), "push the dist again") {
		t.Errorf("pull --missing-ok of an existing tag whose layer blob is gone: exit %d, stdout %q, stderr %q; want exit %d naming the missing blob %s and saying to push again",
			code, stdout.String(), stderr.String(), exitFailed, res.Pushed[0].Digest)
	}
}

// marker asks the server for lib's guide and returns the edition marker
// in the answer ("marker1"), or "" with the error text.
func marker(t *testing.T, base, lib string) (string, error) {
	t.Helper()
	text, err := docsText(base, lib, "edition guide")
	if err != nil {
		return "", err
	}
	i := strings.Index(text, "marker")
	if i < 0 {
		return "", fmt.Errorf("no marker in %q", text)
	}
	return text[i : i+len("marker")+1], nil
}

// TestServeFromRegistry serves a registry reference: ready once pulled,
// a moved tag switched to without a restart (every library once, never
// back), a registry that goes away named in /readyz while the last pull
// is still served, and its return noticed.
func TestServeFromRegistry(t *testing.T) {
	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{})
	site := newEditions(t, bin, "/acme/site", "/acme/other")
	ref := "oci://" + reg.Host + "/codex7/docs:live"
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", site.out, ref); code != 0 {
		t.Fatalf("push: %d %s%s", code, out, errOut)
	}
	cacheDir := t.TempDir()
	srv := startServer(t, bin, ref, "--cache-dir", cacheDir, "--reload-interval", "100ms")
	base, logs := srv.base, srv.stderr
	waitReady(t, base)
	for _, lib := range []string{"/acme/site", "/acme/other"} {
		if m, err := marker(t, base, lib); m != "marker1" {
			t.Fatalf("%s: first answer %q %v, want marker1", lib, m, err)
		}
	}

	// Move the tag; poll both libraries until both answer edition 2.
	site.edition(2)
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", site.out, ref); code != 0 {
		t.Fatalf("push: %d %s%s", code, out, errOut)
	}
	pushed := time.Now()
	seen := map[string][]string{}
	switched := waitfor.Poll(20*time.Second, func() bool {
		done := true
		for _, lib := range []string{"/acme/site", "/acme/other"} {
			m, err := marker(t, base, lib)
			if err != nil {
				t.Fatalf("%s during the switch: %v (a switch must not fail a request)", lib, err)
			}
			if s := seen[lib]; len(s) == 0 || s[len(s)-1] != m {
				seen[lib] = append(s, m)
			}
			done = done && m == "marker2"
		}
		return done
	})
	if !switched {
		t.Fatalf("waited 20s for the server to switch to the new push: %v\n%s", seen, logs)
	}
	t.Logf("push to new answers: %v", time.Since(pushed).Round(time.Millisecond))
	for lib, s := range seen {
		if len(s) > 2 || s[len(s)-1] != "marker2" {
			t.Errorf("%s answered %v: want marker1 then marker2, once", lib, s)
		}
	}

	// The registry goes away: answers go on, /readyz says so.
	reg.Stop()
	waitfor.Nil(t, 20*time.Second, "/readyz to name the unreachable registry", func() error {
		if code, body := httpGet(t, base+"/readyz"); code != http.StatusOK || !strings.Contains(body, "failing since") || !strings.Contains(body, "registry unreachable") {
			return fmt.Errorf("%d %q", code, body)
		}
		return nil
	})
	if m, err := marker(t, base, "/acme/site"); m != "marker2" {
		t.Errorf("with the registry down: %q %v, want marker2 still served", m, err)
	}
	reg.Restart(t)
	waitfor.Nil(t, 30*time.Second, "the registry's return to be noticed", func() error {
		if _, body := httpGet(t, base+"/readyz"); strings.Contains(body, "failing") {
			return fmt.Errorf("/readyz says %q", body)
		}
		return nil
	})
	// Wait for the server's exit, which ends its writes to logs.
	srv.stop(t)
	if strings.Count(logs.String(), "registry not pulled") > 2 {
		t.Errorf("the failing registry was logged more than once per kind of failure:\n%s", logs)
	}
}

// TestServeSources checks --artifacts given more than once: a local dist
// and a registry served as one catalog, the same library in both refused
// at start, and a registry down at start an error unless an earlier pull
// is cached.
func TestServeSources(t *testing.T) {
	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{})
	remote := newEditions(t, bin, "/acme/remote")
	local := newEditions(t, bin, "/acme/local")
	ref := "oci://" + reg.Host + "/codex7/remote:v1"
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", remote.out, ref); code != 0 {
		t.Fatalf("push: %d %s%s", code, out, errOut)
	}
	cacheDir := t.TempDir()
	srv := startServer(t, bin, local.out, "--artifacts", ref, "--cache-dir", cacheDir)
	base := srv.base
	waitReady(t, base)
	for _, lib := range []string{"/acme/local", "/acme/remote"} {
		if m, err := marker(t, base, lib); m != "marker1" {
			t.Errorf("%s: %q %v, want marker1", lib, m, err)
		}
	}
	srv.stop(t)

	// The same library from two sources.
	if code, out, errOut := cli(t, bin, nil, "push", "--artifacts", local.out, "oci://"+reg.Host+"/codex7/local:v1"); code != 0 {
		t.Fatalf("push: %d %s%s", code, out, errOut)
	}
	code, _, errOut := cli(t, bin, nil, "serve", "--artifacts", local.out, "--artifacts", "oci://"+reg.Host+"/codex7/local:v1", "--cache-dir", cacheDir, "--stdio")
	if code != exitUsage || !strings.Contains(errOut, "/acme/local") || !strings.Contains(errOut, "two sources") {
		t.Errorf("one library from two sources: exit %d, %q; want exit 2 naming /acme/local", code, errOut)
	}

	// Registry down at start: an error without a cache, served from the
	// cache with one.
	reg.Stop()
	code, _, errOut = cli(t, bin, nil, "serve", "--http", freeAddr(t), "--artifacts", ref, "--cache-dir", t.TempDir())
	if code != exitFailed || !strings.Contains(errOut, "registry unreachable") {
		t.Errorf("registry down, nothing cached: exit %d %q; want 1 naming the unreachable registry", code, errOut)
	}
	base = startServer(t, bin, ref, "--cache-dir", cacheDir).base
	waitfor.Nil(t, 10*time.Second, "an earlier pull to be served while the registry is down", func() error {
		if m, err := marker(t, base, "/acme/remote"); m != "marker1" {
			return fmt.Errorf("answer from %q (%v), want marker1", m, err)
		}
		return nil
	})
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "registry unreachable") {
		t.Errorf("/readyz serving a cached pull of a registry never reached: %d %q; want 503 naming the registry", code, body)
	}
}
