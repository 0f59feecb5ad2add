// Package registrytest runs a real OCI registry for a test: the `registry`
// binary of CNCF distribution v3, started per test on a loopback port with
// its own filesystem storage, optionally behind TLS from a fresh test CA and
// behind htpasswd or bearer-token authentication. The bearer tokens come from
// a small token service that the harness runs in-process.
//
// The binary is not built by the tests; CI installs it with
//
//	GOBIN=$HOME/.cache/codex7/registry/bin go install github.com/distribution/distribution/v3/cmd/registry@v3.1.2
//
// and Start skips a test when it is missing (or fails it under CI=true or
// CODEX7_REQUIRE_REGISTRY=1).
package registrytest

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// registryPackage is what `go install` builds to get the binary.
const registryPackage = "github.com/distribution/distribution/v3/cmd/registry@v3.1.2"

// startTimeout bounds how long a registry may take to answer GET /v2/.
const startTimeout = 30 * time.Second

// stopTimeout bounds how long Stop waits after SIGTERM before it kills.
const stopTimeout = 10 * time.Second

// AuthMode chooses how the registry authenticates clients.
type AuthMode int

const (
	// AuthNone lets every client do everything.
	AuthNone AuthMode = iota
	// AuthBasic checks HTTP basic credentials against an htpasswd file with
	// a bcrypt hash of Registry.Password.
	AuthBasic
	// AuthToken demands bearer tokens issued by the in-process token
	// service at Registry.Realm, which hands them out to clients presenting
	// Registry.Username and Registry.Password.
	AuthToken
)

// String names the mode for test logs.
func (m AuthMode) String() string {
	switch m {
	case AuthNone:
		return "none"
	case AuthBasic:
		return "basic"
	case AuthToken:
		return "token"
	}
	return "AuthMode(" + strconv.Itoa(int(m)) + ")"
}

// Options choose a configuration.
type Options struct {
	// Auth is the authentication scheme; the zero value is AuthNone.
	Auth AuthMode
	// TLS serves HTTPS with an ECDSA certificate for 127.0.0.1 and
	// localhost issued by a fresh test CA, written to Registry.CAFile.
	TLS bool
	// StorageDir reuses a storage directory, for example to start a second
	// registry on the data of a first one; the default is a new t.TempDir().
	StorageDir string
	// Port reuses a port, for example to come back on the same address;
	// the default is a free one.
	Port int
}

// Registry is a running (or stopped) registry process.
type Registry struct {
	// Host is "127.0.0.1:PORT", as used in image references.
	Host string
	// Port is the TCP port on 127.0.0.1.
	Port int
	// URL is "http://Host" or "https://Host".
	URL string
	// StorageDir is the filesystem storage's root directory.
	StorageDir string
	// CAFile is the PEM certificate of the test CA when TLS is on, else "".
	CAFile string
	// Username and Password are the credentials for AuthBasic and
	// AuthToken, else "".
	Username, Password string
	// Realm is the token service's URL for AuthToken, else "".
	Realm string
	// Service is the service name tokens are issued for under AuthToken,
	// else "".
	Service string
	// LogFile collects the registry process's output across restarts.
	LogFile string

	bin        string
	configFile string
	caPool     *x509.CertPool
	tokens     *tokenServer

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Binary finds the registry binary: $CODEX7_REGISTRY_BIN when set (even if
// it does not exist, so that a wrong setting fails loudly), else
// ${XDG_CACHE_HOME:-$HOME/.cache}/codex7/registry/bin/registry (registry.exe
// on Windows), else `registry` on PATH. It returns "" when there is none.
func Binary() string {
	if b := os.Getenv("CODEX7_REGISTRY_BIN"); b != "" {
		return b
	}
	if dir := binDir(); dir != "" {
		// Windows has no executable bits: the .exe name is what counts.
		name, execBits := "registry", fs.FileMode(0o111)
		if runtime.GOOS == "windows" {
			name, execBits = "registry.exe", 0
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (execBits == 0 || fi.Mode()&execBits != 0) {
			return p
		}
	}
	if p, err := exec.LookPath("registry"); err == nil {
		return p
	}
	return ""
}

// binDir is where CI installs the binary, or "" without a home directory.
func binDir() string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" || !filepath.IsAbs(cache) {
		home := os.Getenv("HOME")
		if home == "" {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "codex7", "registry", "bin")
}

// Start starts a registry for the test and returns once GET /v2/ answers
// 200 or 401. It skips the test when there is no registry binary, unless
// CI=true or CODEX7_REQUIRE_REGISTRY=1, where it fails it instead. The
// process is stopped at t.Cleanup, and its log, kept in Registry.LogFile, is
// shown with t.Logf if the test failed.
func Start(t testing.TB, opts Options) *Registry {
	t.Helper()
	bin := Binary()
	if bin == "" {
		dir := binDir()
		if dir == "" {
			dir = "$HOME/.cache/codex7/registry/bin"
		}
		msg := fmt.Sprintf("no registry binary: install it with `GOBIN=%s go install %s` or set CODEX7_REGISTRY_BIN", dir, registryPackage)
		if os.Getenv("CI") == "true" || os.Getenv("CODEX7_REQUIRE_REGISTRY") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	dir := t.TempDir()
	r := &Registry{
		StorageDir: opts.StorageDir,
		LogFile:    filepath.Join(dir, "registry.log"),
		bin:        bin,
		configFile: filepath.Join(dir, "config.yml"),
	}
	if r.StorageDir == "" {
		r.StorageDir = t.TempDir()
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		b, err := os.ReadFile(r.LogFile)
		if err != nil {
			t.Logf("registry log: %v", err)
			return
		}
		const limit = 64 << 10
		if len(b) > limit {
			b = append([]byte("...\n"), b[len(b)-limit:]...)
		}
		t.Logf("registry log (%s):\n%s", r.LogFile, b)
	})

	var tlsCfg *tls.Config
	cfg := config{storage: r.StorageDir, secret: randomHex(t, 16)}
	if opts.TLS {
		ca, err := newCA("codex7 registrytest CA")
		if err != nil {
			t.Fatalf("registrytest: test CA: %v", err)
		}
		certPEM, keyPEM, err := ca.issue("127.0.0.1", "localhost")
		if err != nil {
			t.Fatalf("registrytest: server certificate: %v", err)
		}
		r.CAFile = filepath.Join(dir, "ca.pem")
		cfg.cert = filepath.Join(dir, "server.pem")
		cfg.key = filepath.Join(dir, "server-key.pem")
		writeFile(t, r.CAFile, ca.certPEM)
		writeFile(t, cfg.cert, certPEM)
		writeFile(t, cfg.key, keyPEM)
		r.caPool = x509.NewCertPool()
		r.caPool.AddCert(ca.cert)
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatalf("registrytest: server key pair: %v", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}

	switch opts.Auth {
	case AuthNone:
	case AuthBasic:
		r.Username, r.Password = "codex7", randomHex(t, 12)
		hash, err := bcrypt.GenerateFromPassword([]byte(r.Password), bcrypt.MinCost)
		if err != nil {
			t.Fatalf("registrytest: bcrypt: %v", err)
		}
		cfg.htpasswd = filepath.Join(dir, "htpasswd")
		writeFile(t, cfg.htpasswd, []byte(r.Username+":"+string(hash)+"\n"))
	case AuthToken:
		r.Username, r.Password = "codex7", randomHex(t, 12)
		ts, err := newTokenServer(r.Username, r.Password, tlsCfg)
		if err != nil {
			t.Fatalf("registrytest: token service: %v", err)
		}
		t.Cleanup(ts.close)
		r.tokens, r.Realm, r.Service = ts, ts.realm, ts.service
		cfg.tokenRealm, cfg.tokenService, cfg.tokenIssuer = ts.realm, ts.service, ts.issuer
		cfg.tokenRoots = filepath.Join(dir, "token-roots.pem")
		writeFile(t, cfg.tokenRoots, ts.certPEM)
	default:
		t.Fatalf("registrytest: unknown auth mode %v", opts.Auth)
	}

	t.Cleanup(r.Stop)
	scheme := "http"
	if opts.TLS {
		scheme = "https"
	}
	for attempt := 1; ; attempt++ {
		r.Port = opts.Port
		if r.Port == 0 {
			r.Port = freePort(t)
		}
		r.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Port))
		r.URL = scheme + "://" + r.Host
		cfg.addr = r.Host
		writeFile(t, r.configFile, []byte(cfg.yaml()))
		err := r.launch()
		if err == nil {
			break
		}
		// Another process may have taken the free port between our probe
		// and the registry's bind; try another one.
		if opts.Port == 0 && attempt < 5 && errors.Is(err, errAddrInUse) {
			t.Logf("registrytest: port %d taken, retrying", r.Port)
			continue
		}
		t.Fatalf("registrytest: %v", err)
	}
	t.Logf("registrytest: registry (auth %v, tls %v) at %s, storage %s", opts.Auth, opts.TLS, r.URL, r.StorageDir)
	return r
}

// TokenRequests counts the requests the token service answered (0
// without AuthToken): a client that logs in once per session, not once
// per request, keeps it low.
func (r *Registry) TokenRequests() int64 {
	if r.tokens == nil {
		return 0
	}
	return r.tokens.requests.Load()
}

// Client returns an HTTP client that trusts the test CA when TLS is on. It
// does not authenticate.
func (r *Registry) Client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	if r.caPool != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: r.caPool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr}
}

// Stop ends the process with SIGTERM and waits for it to exit, killing it if
// it has not exited after ten seconds. It does nothing when the process is
// not running. The registry drains connections for up to two seconds; an
// HTTP/2 connection a client keeps open (as over TLS) delays the exit by
// about a second, which closing the client's idle connections first avoids.
func (r *Registry) Stop() { r.signal(syscall.SIGTERM, stopTimeout) }

// Kill ends the process with SIGKILL and waits for it to exit.
func (r *Registry) Kill() { r.signal(syscall.SIGKILL, 0) }

// signal sends sig to a running process and waits; after grace (when not
// zero) it sends SIGKILL. A signal the system cannot send (Windows sends
// only SIGKILL) kills the process at once.
func (r *Registry) signal(sig syscall.Signal, grace time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	select {
	case <-r.done:
		return
	default:
	}
	if err := r.cmd.Process.Signal(sig); err != nil {
		_ = r.cmd.Process.Kill()
	}
	if grace > 0 {
		select {
		case <-r.done:
			return
		case <-time.After(grace):
			_ = r.cmd.Process.Kill()
		}
	}
	<-r.done
}

// Restart stops the registry if it is running and starts it again on the
// same port, storage and configuration.
func (r *Registry) Restart(t testing.TB) {
	t.Helper()
	r.Stop()
	if err := r.launch(); err != nil {
		t.Fatalf("registrytest: restart: %v", err)
	}
}

// StorageBytes returns the sum of the sizes of the regular files under
// StorageDir, to measure how much a push added.
func (r *Registry) StorageBytes(t testing.TB) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(r.StorageDir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			var fi fs.FileInfo
			if fi, err = d.Info(); err == nil {
				n += fi.Size()
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil // no storage yet, or a file removed while walking
		}
		return err
	})
	if err != nil {
		t.Fatalf("registrytest: storage size: %v", err)
	}
	return n
}

// BlobPath returns where the filesystem storage keeps the data of the blob
// with digest dgst ("sha256:HEX", or bare HEX taken as sha256), so that a
// test can corrupt or delete it on disk.
func (r *Registry) BlobPath(dgst string) string {
	alg, hexPart, ok := strings.Cut(dgst, ":")
	if !ok {
		alg, hexPart = "sha256", dgst
	}
	prefix := hexPart
	if len(prefix) > 2 {
		prefix = prefix[:2]
	}
	return filepath.Join(r.StorageDir, "docker", "registry", "v2", "blobs", alg, prefix, hexPart, "data")
}

// errAddrInUse marks a registry that could not bind its port.
var errAddrInUse = errors.New("address already in use")

// launch starts the process on the written configuration and waits until it
// answers GET /v2/.
func (r *Registry) launch() error {
	logf, err := os.OpenFile(r.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "=== registrytest: %s serve %s (%s)\n", r.bin, r.configFile, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(r.bin, "serve", r.configFile)
	cmd.Env = registryEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = filepath.Dir(r.configFile)
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return fmt.Errorf("start %s: %w", r.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	r.mu.Lock()
	r.cmd, r.done = cmd, done
	r.mu.Unlock()

	client := r.Client()
	defer client.CloseIdleConnections()
	client.Timeout = 2 * time.Second
	deadline := time.Now().Add(startTimeout)
	var last error
	for {
		select {
		case <-done:
			if b, _ := os.ReadFile(r.LogFile); strings.Contains(lastRun(string(b)), "address already in use") {
				return fmt.Errorf("registry on %s: %w", r.Host, errAddrInUse)
			}
			return fmt.Errorf("registry exited during start (%v); log:\n%s", cmd.ProcessState, lastRun(readFile(r.LogFile)))
		default:
		}
		resp, err := client.Get(r.URL + "/v2/")
		if err == nil {
			resp.Body.Close()
			api := resp.Header.Get("Docker-Distribution-API-Version")
			if (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized) && api != "" {
				return nil
			}
			err = fmt.Errorf("GET /v2/: %s (API version %q)", resp.Status, api)
		}
		last = err
		if time.Now().After(deadline) {
			r.Kill()
			return fmt.Errorf("registry at %s not ready after %v: %v; log:\n%s", r.URL, startTimeout, last, lastRun(readFile(r.LogFile)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lastRun returns the log since the latest launch.
func lastRun(log string) string {
	if i := strings.LastIndex(log, "=== registrytest: "); i >= 0 {
		return log[i:]
	}
	return log
}

func readFile(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// registryEnv is the parent's environment without variables that would
// override the configuration file (REGISTRY_*) or turn on trace export
// (OTEL_*): distribution v3 exports OpenTelemetry traces over OTLP unless
// told not to.
func registryEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "REGISTRY_") || strings.HasPrefix(kv, "OTEL_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"OTEL_SDK_DISABLED=true",
		"OTEL_TRACES_EXPORTER=none",
		"OTEL_METRICS_EXPORTER=none",
		"OTEL_LOGS_EXPORTER=none",
	)
}

// config is the part of the registry configuration that varies.
type config struct {
	addr, storage, secret                             string
	cert, key                                         string
	htpasswd                                          string
	tokenRealm, tokenService, tokenIssuer, tokenRoots string
}

// yaml renders the configuration file. Strings are JSON-quoted, which YAML
// reads as double-quoted scalars.
func (c config) yaml() string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	b.WriteString("version: 0.1\n")
	b.WriteString("log:\n  level: info\n  formatter: text\n")
	b.WriteString("storage:\n")
	fmt.Fprintf(&b, "  filesystem:\n    rootdirectory: %s\n", q(c.storage))
	b.WriteString("  delete:\n    enabled: true\n")
	b.WriteString("  redirect:\n    disable: true\n")
	b.WriteString("  maintenance:\n    uploadpurging:\n      enabled: false\n")
	b.WriteString("http:\n")
	fmt.Fprintf(&b, "  addr: %s\n", q(c.addr))
	fmt.Fprintf(&b, "  secret: %s\n", q(c.secret))
	b.WriteString("  draintimeout: 2s\n")
	b.WriteString("  headers:\n    X-Content-Type-Options: [nosniff]\n")
	if c.cert != "" {
		fmt.Fprintf(&b, "  tls:\n    certificate: %s\n    key: %s\n", q(c.cert), q(c.key))
	}
	switch {
	case c.htpasswd != "":
		fmt.Fprintf(&b, "auth:\n  htpasswd:\n    realm: %s\n    path: %s\n", q("codex7-registrytest"), q(c.htpasswd))
	case c.tokenRealm != "":
		fmt.Fprintf(&b, "auth:\n  token:\n    realm: %s\n    service: %s\n    issuer: %s\n    rootcertbundle: %s\n",
			q(c.tokenRealm), q(c.tokenService), q(c.tokenIssuer), q(c.tokenRoots))
	}
	return b.String()
}

func writeFile(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatalf("registrytest: %v", err)
	}
}

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("registrytest: random: %v", err)
	}
	return hex.EncodeToString(b)
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("registrytest: free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
