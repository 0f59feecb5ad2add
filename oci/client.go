package oci

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// Environment variables that give CI jobs registry credentials without a
// Docker config; the command line reads them (see Options).
const (
	EnvUsername = "CODEX7_REGISTRY_USERNAME"
	EnvPassword = "CODEX7_REGISTRY_PASSWORD"
)

// Options say how to reach and log in to registries. The zero value uses
// TLS with the system's roots and Docker's credentials, as docker and
// oras do.
type Options struct {
	// PlainHTTP speaks HTTP instead of HTTPS. A loopback registry
	// (localhost, 127.0.0.0/8, ::1) gets it without asking.
	PlainHTTP bool
	// CAFile is a PEM file of certificates trusted besides the system's,
	// for registries with a private CA.
	CAFile string
	// Username and Password, when Username is set, are used for every
	// registry instead of Docker's config (CODEX7_REGISTRY_USERNAME and
	// CODEX7_REGISTRY_PASSWORD in CI). A password alone is a token sent
	// with a placeholder user name, as GHCR and most registries accept.
	Username, Password string
	// DockerConfig is the Docker config file read for credentials and
	// credential helpers; "" means $DOCKER_CONFIG/config.json, else
	// ~/.docker/config.json. A file that does not exist means anonymous.
	DockerConfig string
	// UserAgent is sent with every request.
	UserAgent string
	// ResponseTimeout bounds the wait for the registry's answer (its
	// status and headers) to each request once it is sent; 0 means
	// DefaultResponseTimeout. A registry that accepts connections and
	// never answers otherwise holds a pull, or a mirror's poll, forever.
	ResponseTimeout time.Duration
	// IdleTimeout fails a download when the registry sends no byte of
	// the body for that long, and an upload when the registry takes no
	// byte of it for that long; 0 means DefaultIdleTimeout. It is no
	// overall deadline: a large layer takes as long as it needs while
	// bytes keep moving.
	IdleTimeout time.Duration
}

// Defaults of Options' timeouts.
const (
	DefaultResponseTimeout = 30 * time.Second
	DefaultIdleTimeout     = time.Minute
)

// timeouts returns ResponseTimeout and IdleTimeout, defaults filled in.
func (o Options) timeouts() (response, idle time.Duration) {
	response, idle = o.ResponseTimeout, o.IdleTimeout
	if response <= 0 {
		response = DefaultResponseTimeout
	}
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return response, idle
}

// repository returns a client of ref's repository as opts say. Nothing is
// contacted yet.
func (o Options) repository(ref Reference) (*remote.Repository, error) {
	repo, err := remote.NewRepository(ref.ref.Registry + "/" + ref.ref.Repository)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrReference, ref, err)
	}
	repo.PlainHTTP = o.PlainHTTP || (ref.IsLoopback() && !speaksTLS(ref.Host()))
	client, err := o.authClient(ref)
	if err != nil {
		return nil, err
	}
	repo.Client = client
	repo.ManifestMediaTypes = []string{mediaTypeManifest}
	repo.MaxMetadataBytes = maxManifestBytes
	return repo, nil
}

// speaksTLS reports whether the server at host (a loopback registry)
// answers a TLS handshake, as Docker decides for localhost: a registry on
// this machine gets plain HTTP without asking unless it serves TLS. Only
// whether the server speaks TLS is probed here; its certificate is
// verified by the real connection.
func speaksTLS(host string) bool {
	conn, err := net.DialTimeout("tcp", tlsProbeAddr(host), 2*time.Second)
	if err != nil {
		return false // down: the real request reports it
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	// The probe never trusts what it learns: it only looks at whether a
	// handshake comes back.
	tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"}) //nolint:gosec // probe only
	err = tc.Handshake()
	var rec tls.RecordHeaderError
	return err == nil || !errors.As(err, &rec)
}

// tlsProbeAddr is the address speaksTLS dials for host, a reference's
// registry: host as it is when it names a port, else its port 443
// ("[::1]" is dialled at [::1]:443, not the malformed [[::1]]:443).
func tlsProbeAddr(host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "443")
}

// authClient makes the HTTP client: retries of timeouts, 429 and 5xx
// (oras' retry transport), the response and idle timeouts, TLS roots
// plus CAFile, and credentials.
func (o Options) authClient(ref Reference) (*auth.Client, error) {
	response, idle := o.timeouts()
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = response
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--ca-file: %w", err)
		}
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it", o.CAFile)
		}
		base.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	cred, err := o.credential()
	if err != nil {
		return nil, err
	}
	c := &auth.Client{
		Client:     &http.Client{Transport: retry.NewTransport(&idleTransport{base: base, idle: idle, response: response})},
		Credential: cred,
		Cache:      auth.NewCache(),
	}
	if ref.IsLoopback() {
		// A registry on this machine may have its token service on this
		// machine too; oras refuses loopback token realms by default, as
		// a guard against remote registries pointing clients at local
		// services. Loopback is allowed only for a loopback registry.
		c.BlockedRealmPrefixes = slices.DeleteFunc(auth.DefaultBlockedRealmPrefixes(), func(p netip.Prefix) bool { return p.Addr().IsLoopback() })
	}
	ua := o.UserAgent
	if ua == "" {
		ua = "codex7-indexer"
	}
	c.SetUserAgent(ua)
	return c, nil
}

// credential chooses where credentials come from: Username/Password, else
// Docker's config with its credential helpers.
func (o Options) credential() (auth.CredentialFunc, error) {
	if o.Username != "" || o.Password != "" {
		user := o.Username
		if user == "" {
			user = "codex7"
		}
		c := auth.Credential{Username: user, Password: o.Password}
		return func(context.Context, string) (auth.Credential, error) { return c, nil }, nil
	}
	var store *credentials.DynamicStore
	var err error
	if o.DockerConfig != "" {
		store, err = credentials.NewStore(o.DockerConfig, credentials.StoreOptions{})
	} else {
		store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("read Docker's credentials (%s): %w", dockerConfigName(o.DockerConfig), err)
	}
	return credentials.Credential(store), nil
}

func dockerConfigName(p string) string {
	if p != "" {
		return p
	}
	if d := os.Getenv("DOCKER_CONFIG"); d != "" {
		return d + "/config.json"
	}
	return "~/.docker/config.json"
}

// classify turns what the registry client returned into an error that
// names the problem, wraps one of this package's sentinels and says what
// to do. It never includes credentials: oras' errors carry the method and
// URL (which hold none) and the registry's own message.
func classify(ref Reference, op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", op, ref, err)
	}
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		err = &errcode.ErrorResponse{StatusCode: http.StatusUnauthorized}
	}
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return fmt.Errorf("%s %s: %w: the registry refused the credentials (or asked for some): set %s and %s, or log in with 'docker login %s' (credentials are read from %s)",
				op, ref, ErrUnauthorized, EnvUsername, EnvPassword, ref.Host(), dockerConfigName(""))
		case http.StatusForbidden:
			return fmt.Errorf("%s %s: %w: the credentials may not %s this repository (a token needs the packages or repository scope)", op, ref, ErrUnauthorized, op)
		case http.StatusNotFound:
			// Only the manifest or tag: a pull turns a missing blob
			// into ErrRegistry (missingBlob) before it gets here.
			return fmt.Errorf("%s %s: %w (push one with 'indexer push'): %v", op, ref, ErrNotFound, err)
		}
		return fmt.Errorf("%s %s: %w: %v", op, ref, ErrRegistry, err)
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return fmt.Errorf("%s %s: %w (push one with 'indexer push'): %v", op, ref, ErrNotFound, err)
	}
	var uerr *url.Error
	var nerr net.Error
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	switch {
	case errors.As(err, &cert), errors.As(err, &unknown):
		return fmt.Errorf("%s %s: %w: the registry's TLS certificate is not trusted: give its CA with --ca-file (or --plain-http for a registry without TLS): %v", op, ref, ErrUnreachable, err)
	case errors.Is(err, http.ErrSchemeMismatch) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return fmt.Errorf("%s %s: %w: the registry speaks plain HTTP: give --plain-http", op, ref, ErrUnreachable)
	case errors.As(err, &uerr):
		// Connection refused, DNS, timeouts: the request never got an
		// answer.
		return fmt.Errorf("%s %s: %w: %v", op, ref, ErrUnreachable, uerr.Err)
	case errors.As(err, &nerr), errors.Is(err, io.ErrUnexpectedEOF):
		// The transfer began and the connection then failed: reset, cut
		// short, or stalled either way (stallError).
		return fmt.Errorf("%s %s: %w: the connection failed during the transfer (try again): %v", op, ref, ErrUnreachable, err)
	}
	return fmt.Errorf("%s %s: %w", op, ref, err)
}
