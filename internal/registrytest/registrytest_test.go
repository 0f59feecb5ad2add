package registrytest

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// do sends a request and returns the status, headers and body.
func do(t *testing.T, c *http.Client, method, u string, body []byte, header http.Header) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func basicHeader(user, pass string) http.Header {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(user, pass)
	return req.Header
}

func bearerHeader(tok string) http.Header {
	return http.Header{"Authorization": {"Bearer " + tok}}
}

// pushBlob uploads data to repo in one PUT after opening an upload session
// (distribution v3 ignores ?digest= on the POST) and returns its digest.
func pushBlob(t *testing.T, r *Registry, c *http.Client, repo string, data []byte, h http.Header) string {
	t.Helper()
	sum := sha256.Sum256(data)
	dgst := "sha256:" + hex.EncodeToString(sum[:])
	status, hdr, body := do(t, c, "POST", r.URL+"/v2/"+repo+"/blobs/uploads/", nil, h)
	if status != http.StatusAccepted {
		t.Fatalf("POST upload: %d %s", status, body)
	}
	base, _ := url.Parse(r.URL)
	loc, err := base.Parse(hdr.Get("Location"))
	if err != nil {
		t.Fatalf("upload location %q: %v", hdr.Get("Location"), err)
	}
	q := loc.Query()
	q.Set("digest", dgst)
	loc.RawQuery = q.Encode()
	ph := http.Header{"Content-Type": {"application/octet-stream"}}
	for k, vs := range h {
		ph[k] = vs
	}
	status, _, body = do(t, c, "PUT", loc.String(), data, ph)
	if status != http.StatusCreated {
		t.Fatalf("PUT upload: %d %s", status, body)
	}
	return dgst
}

func TestAuthNone(t *testing.T) {
	t.Parallel()
	r := Start(t, Options{})
	if r.Host != "127.0.0.1:"+strconv.Itoa(r.Port) || r.URL != "http://"+r.Host {
		t.Errorf("Host %q, Port %d, URL %q", r.Host, r.Port, r.URL)
	}
	if r.CAFile != "" || r.Username != "" || r.Password != "" || r.Realm != "" {
		t.Errorf("unexpected fields: %+v", r)
	}
	if status, _, body := do(t, http.DefaultClient, "GET", r.URL+"/v2/", nil, nil); status != http.StatusOK {
		t.Fatalf("GET /v2/: %d %s", status, body)
	}
}

func TestAuthBasic(t *testing.T) {
	t.Parallel()
	r := Start(t, Options{Auth: AuthBasic})
	if r.Username == "" || r.Password == "" {
		t.Fatal("no credentials")
	}
	c := http.DefaultClient
	status, hdr, _ := do(t, c, "GET", r.URL+"/v2/", nil, nil)
	if status != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic ") {
		t.Fatalf("GET /v2/ without credentials: %d, WWW-Authenticate %q", status, hdr.Get("WWW-Authenticate"))
	}
	if status, _, _ := do(t, c, "GET", r.URL+"/v2/", nil, basicHeader(r.Username, "wrong")); status != http.StatusUnauthorized {
		t.Fatalf("GET /v2/ with a wrong password: %d", status)
	}
	if status, _, body := do(t, c, "GET", r.URL+"/v2/", nil, basicHeader(r.Username, r.Password)); status != http.StatusOK {
		t.Fatalf("GET /v2/ with credentials: %d %s", status, body)
	}
	pushBlob(t, r, c, "codex7/basic", []byte("basic blob"), basicHeader(r.Username, r.Password))
}

// challenge parses a Bearer WWW-Authenticate header's parameters.
func challenge(t *testing.T, h string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		t.Fatalf("not a Bearer challenge: %q", h)
	}
	params := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		params[strings.TrimSpace(k)] = v
	}
	return params
}

func TestAuthToken(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		t.Run("tls="+strconv.FormatBool(useTLS), func(t *testing.T) {
			t.Parallel()
			r := Start(t, Options{Auth: AuthToken, TLS: useTLS})
			c := r.Client()
			// An open HTTP/2 connection would hold up the graceful stop.
			defer c.CloseIdleConnections()
			status, hdr, _ := do(t, c, "GET", r.URL+"/v2/", nil, nil)
			if status != http.StatusUnauthorized {
				t.Fatalf("GET /v2/ without token: %d", status)
			}
			ch := challenge(t, hdr.Get("WWW-Authenticate"))
			if ch["realm"] != r.Realm || ch["service"] != r.Service {
				t.Fatalf("challenge %v, want realm %q service %q", ch, r.Realm, r.Service)
			}
			if useTLS != strings.HasPrefix(r.Realm, "https://") {
				t.Errorf("realm %q with TLS %v", r.Realm, useTLS)
			}

			repo := "codex7/token-test"
			tokenURL := ch["realm"] + "?" + url.Values{"service": {ch["service"]}, "scope": {"repository:" + repo + ":pull,push"}}.Encode()
			if status, _, body := do(t, c, "GET", tokenURL, nil, basicHeader(r.Username, "wrong")); status != http.StatusUnauthorized {
				t.Fatalf("token with a wrong password: %d %s", status, body)
			}
			if status, _, _ := do(t, c, "GET", tokenURL, nil, nil); status != http.StatusUnauthorized {
				t.Fatalf("token without credentials: %d", status)
			}
			status, _, body := do(t, c, "GET", tokenURL, nil, basicHeader(r.Username, r.Password))
			if status != http.StatusOK {
				t.Fatalf("token: %d %s", status, body)
			}
			var tr struct {
				Token       string `json:"token"`
				AccessToken string `json:"access_token"`
				ExpiresIn   int    `json:"expires_in"`
			}
			if err := json.Unmarshal(body, &tr); err != nil || tr.Token == "" || tr.Token != tr.AccessToken || tr.ExpiresIn <= 0 {
				t.Fatalf("token response %s (%v)", body, err)
			}
			if status, _, body := do(t, c, "GET", r.URL+"/v2/", nil, bearerHeader(tr.Token)); status != http.StatusOK {
				t.Fatalf("GET /v2/ with token: %d %s", status, body)
			}
			dgst := pushBlob(t, r, c, repo, []byte("token blob"), bearerHeader(tr.Token))
			blobURL := r.URL + "/v2/" + repo + "/blobs/" + dgst
			if status, _, _ := do(t, c, "HEAD", blobURL, nil, bearerHeader(tr.Token)); status != http.StatusOK {
				t.Fatalf("HEAD blob with token: %d", status)
			}

			// A token for another repository does not open this one, and the
			// challenge names the scope needed.
			other := r.Token(t, "repository:codex7/other:pull")
			status, hdr, _ = do(t, c, "HEAD", blobURL, nil, bearerHeader(other))
			if status != http.StatusUnauthorized || challenge(t, hdr.Get("WWW-Authenticate"))["scope"] != "repository:"+repo+":pull" {
				t.Fatalf("HEAD blob with another repository's token: %d, %q", status, hdr.Get("WWW-Authenticate"))
			}

			// The OAuth2 password grant works too.
			form := url.Values{"grant_type": {"password"}, "username": {r.Username}, "password": {r.Password},
				"service": {r.Service}, "scope": {"repository:" + repo + ":pull"}, "client_id": {"registrytest"}}
			status, _, body = do(t, c, "POST", r.Realm, []byte(form.Encode()),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
			if status != http.StatusOK {
				t.Fatalf("POST token: %d %s", status, body)
			}
			if err := json.Unmarshal(body, &tr); err != nil {
				t.Fatal(err)
			}
			if status, _, _ := do(t, c, "HEAD", blobURL, nil, bearerHeader(tr.AccessToken)); status != http.StatusOK {
				t.Fatalf("HEAD blob with the POST token: %d", status)
			}
			form.Set("password", "wrong")
			status, _, _ = do(t, c, "POST", r.Realm, []byte(form.Encode()),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
			if status != http.StatusUnauthorized {
				t.Fatalf("POST token with a wrong password: %d", status)
			}
		})
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	r := Start(t, Options{TLS: true})
	if r.URL != "https://"+r.Host || r.CAFile == "" {
		t.Fatalf("URL %q, CAFile %q", r.URL, r.CAFile)
	}
	pemData, err := os.ReadFile(r.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemData) {
		t.Fatal("CAFile holds no certificate")
	}
	for _, host := range []string{r.Host, "localhost:" + strconv.Itoa(r.Port)} {
		trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		if status, _, body := do(t, trusting, "GET", "https://"+host+"/v2/", nil, nil); status != http.StatusOK {
			t.Fatalf("GET https://%s/v2/ trusting the CA: %d %s", host, status, body)
		}
		trusting.CloseIdleConnections()
	}

	plain := &http.Client{Transport: &http.Transport{}}
	_, err = plain.Get(r.URL + "/v2/")
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	if !errors.As(err, &unknown) && !errors.As(err, &verify) {
		t.Fatalf("GET without the CA: %v, want a certificate error", err)
	}
}

func TestRestartKeepsData(t *testing.T) {
	t.Parallel()
	r := Start(t, Options{})
	c := http.DefaultClient
	before := r.StorageBytes(t)
	data := bytes.Repeat([]byte("restart "), 512)
	dgst := pushBlob(t, r, c, "codex7/restart", data, nil)
	if grew := r.StorageBytes(t) - before; grew < int64(len(data)) {
		t.Errorf("storage grew by %d bytes, want at least %d", grew, len(data))
	}
	if got, err := os.ReadFile(r.BlobPath(dgst)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("BlobPath %s: %v (%d bytes)", r.BlobPath(dgst), err, len(got))
	}
	host := r.Host
	r.Restart(t)
	if r.Host != host {
		t.Fatalf("host changed from %s to %s", host, r.Host)
	}
	blobURL := r.URL + "/v2/codex7/restart/blobs/" + dgst
	if status, _, _ := do(t, c, "HEAD", blobURL, nil, nil); status != http.StatusOK {
		t.Fatalf("HEAD blob after restart: %d", status)
	}

	// A blob corrupted on disk is served as stored: the registry does not
	// re-verify, which is what corruption tests rely on.
	if err := os.WriteFile(r.BlobPath(dgst), []byte("corrupt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if status, _, body := do(t, c, "GET", blobURL, nil, nil); status != http.StatusOK || bytes.Equal(body, data) {
		t.Fatalf("GET corrupted blob: %d, %d bytes", status, len(body))
	}

	// A second registry on the same port and storage sees the data.
	r.Stop()
	r2 := Start(t, Options{Port: r.Port, StorageDir: r.StorageDir})
	if r2.Host != host {
		t.Fatalf("second registry at %s, want %s", r2.Host, host)
	}
	if status, _, _ := do(t, c, "HEAD", blobURL, nil, nil); status != http.StatusOK {
		t.Fatalf("HEAD blob on the second registry: %d", status)
	}
}

func TestKill(t *testing.T) {
	t.Parallel()
	r := Start(t, Options{})
	r.Kill()
	c := &http.Client{Transport: &http.Transport{}}
	_, err := c.Get(r.URL + "/v2/")
	if !connRefused(err) {
		t.Fatalf("GET /v2/ after Kill: %v, want connection refused", err)
	}
	r.Stop() // idempotent after Kill
	r.Kill()
	r.Restart(t)
	if status, _, _ := do(t, c, "GET", r.URL+"/v2/", nil, nil); status != http.StatusOK {
		t.Fatalf("GET /v2/ after Restart: %d", status)
	}
	r.Stop()
	r.Stop()
}

func TestBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex7", "registry", "bin", "registry")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX7_REGISTRY_BIN", "/somewhere/registry")
	if got := Binary(); got != "/somewhere/registry" {
		t.Errorf("Binary() with CODEX7_REGISTRY_BIN = %q", got)
	}
	t.Setenv("CODEX7_REGISTRY_BIN", "")
	t.Setenv("XDG_CACHE_HOME", dir)
	if got := Binary(); got != bin {
		t.Errorf("Binary() with XDG_CACHE_HOME = %q, want %q", got, bin)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("PATH", filepath.Dir(bin))
	if got := Binary(); got != bin {
		t.Errorf("Binary() from PATH = %q, want %q", got, bin)
	}
	t.Setenv("PATH", dir)
	if got := Binary(); got != "" {
		t.Errorf("Binary() with none = %q, want \"\"", got)
	}
}

func TestParseScopes(t *testing.T) {
	got, err := parseScopes([]string{"repository:a/b:pull,push registry:catalog:*", "repository(plugin):c:pull", "repository:d:"})
	if err != nil {
		t.Fatal(err)
	}
	want := []resourceActions{
		{Type: "repository", Name: "a/b", Actions: []string{"pull", "push"}},
		{Type: "registry", Name: "catalog", Actions: []string{"*"}},
		{Type: "repository", Class: "plugin", Name: "c", Actions: []string{"pull"}},
		{Type: "repository", Name: "d", Actions: []string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseScopes = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"repository", "repository:x", ":x:pull"} {
		if _, err := parseScopes([]string{bad}); err == nil {
			t.Errorf("parseScopes(%q) succeeded", bad)
		}
	}
}

func TestRegistryEnv(t *testing.T) {
	t.Setenv("REGISTRY_HTTP_ADDR", "0.0.0.0:5000")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://example.invalid")
	for _, kv := range registryEnv() {
		if strings.HasPrefix(kv, "REGISTRY_") || strings.HasPrefix(kv, "OTEL_EXPORTER") {
			t.Errorf("leaked %s", kv)
		}
	}
}
