package registrytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testCA is a self-signed ECDSA certificate with its key. It serves both as
// the CA behind the registry's TLS certificate and as the token signer whose
// certificate the registry trusts through auth.token.rootcertbundle.
type testCA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

// newCA makes a self-signed CA certificate valid from an hour ago for a day.
func newCA(cn string) (*testCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serialNumber(),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"codex7 registrytest"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &testCA{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue makes a server certificate for hosts (IP addresses or DNS names)
// and returns it and its PKCS #8 key as PEM.
func (ca *testCA) issue(hosts ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serialNumber(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

func serialNumber() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

// tokenTTL is how long issued tokens are valid.
const tokenTTL = time.Hour

// tokenServer implements the Docker registry token protocol
// (https://distribution.github.io/distribution/spec/auth/token/): GET
// /token?service=S&scope=repository:NAME:pull,push with basic credentials,
// and the OAuth2 password grant POST /token, both answering
// {"token": JWT, "access_token": JWT, ...}. Every authenticated user gets
// every action requested.
//
// The JWTs are ES256, with a header carrying the signer's certificate (x5c)
// and its JWK thumbprint (kid). Distribution v3 verifies the x5c chain
// against its rootcertbundle; with no x5c it would look the kid up among the
// thumbprints of the bundle's keys.
type tokenServer struct {
	username, password string
	service, issuer    string
	realm              string
	signer             *testCA
	certPEM            []byte // the signer's certificate, for rootcertbundle
	header             string // encoded JOSE header
	srv                *httptest.Server
	requests           atomic.Int64 // token requests answered, for Registry.TokenRequests
}

// newTokenServer starts a token service on loopback, over TLS when tlsCfg is
// not nil.
func newTokenServer(username, password string, tlsCfg *tls.Config) (*tokenServer, error) {
	signer, err := newCA("codex7 registrytest token signer")
	if err != nil {
		return nil, err
	}
	kid, err := jwkThumbprint(&signer.key.PublicKey)
	if err != nil {
		return nil, err
	}
	h, err := json.Marshal(map[string]any{
		"typ": "JWT",
		"alg": "ES256",
		"kid": kid,
		"x5c": []string{base64.StdEncoding.EncodeToString(signer.cert.Raw)},
	})
	if err != nil {
		return nil, err
	}
	ts := &tokenServer{
		username: username,
		password: password,
		service:  "codex7-registrytest",
		issuer:   "codex7-registrytest-token-issuer",
		signer:   signer,
		certPEM:  signer.certPEM,
		header:   base64.RawURLEncoding.EncodeToString(h),
	}
	ts.srv = httptest.NewUnstartedServer(http.HandlerFunc(ts.serveHTTP))
	if tlsCfg != nil {
		ts.srv.TLS = tlsCfg.Clone()
		ts.srv.StartTLS()
	} else {
		ts.srv.Start()
	}
	ts.realm = ts.srv.URL + "/token"
	return ts, nil
}

func (ts *tokenServer) close() { ts.srv.Close() }

// Token returns a bearer token for scopes such as
// "repository:NAME:pull,push", signed like those of the token service, for
// tests that want to skip the token round trip. It fails the test unless
// the registry uses AuthToken.
func (r *Registry) Token(t testing.TB, scopes ...string) string {
	t.Helper()
	if r.tokens == nil {
		t.Fatal("registrytest: Token needs AuthToken")
	}
	tok, err := r.tokens.issue(r.Username, scopes)
	if err != nil {
		t.Fatalf("registrytest: token: %v", err)
	}
	return tok
}

// jwkThumbprint is the RFC 7638 thumbprint of a P-256 key as distribution
// v3 computes it (token.GetJWKThumbprint): coordinates as big-endian bytes
// without leading zeros.
func jwkThumbprint(pub *ecdsa.PublicKey) (string, error) {
	b, err := pub.Bytes() // 0x04 || X || Y
	if err != nil {
		return "", err
	}
	size := (len(b) - 1) / 2
	x := new(big.Int).SetBytes(b[1 : 1+size]).Bytes()
	y := new(big.Int).SetBytes(b[1+size:]).Bytes()
	enc := base64.RawURLEncoding.EncodeToString
	s := fmt.Sprintf(`{"crv":"%s","kty":"EC","x":"%s","y":"%s"}`, pub.Curve.Params().Name, enc(x), enc(y))
	sum := sha256.Sum256([]byte(s))
	return enc(sum[:]), nil
}

// resourceActions is one entry of the token's "access" claim.
type resourceActions struct {
	Type    string   `json:"type"`
	Class   string   `json:"class,omitempty"`
	Name    string   `json:"name"`
	Actions []string `json:"actions"`
}

// parseScopes reads scopes of the form TYPE[(CLASS)]:NAME:ACTION[,ACTION]
// (several may share one string, separated by spaces). NAME runs from the
// first colon to the last, so it may itself contain colons.
func parseScopes(scopes []string) ([]resourceActions, error) {
	access := []resourceActions{}
	for _, s := range scopes {
		for _, scope := range strings.Fields(s) {
			i, j := strings.Index(scope, ":"), strings.LastIndex(scope, ":")
			if i <= 0 || i == j {
				return nil, fmt.Errorf("malformed scope %q", scope)
			}
			ra := resourceActions{Type: scope[:i], Name: scope[i+1 : j], Actions: []string{}}
			if k := strings.Index(ra.Type, "("); k > 0 && strings.HasSuffix(ra.Type, ")") {
				ra.Type, ra.Class = ra.Type[:k], ra.Type[k+1:len(ra.Type)-1]
			}
			for _, a := range strings.Split(scope[j+1:], ",") {
				if a != "" {
					ra.Actions = append(ra.Actions, a)
				}
			}
			access = append(access, ra)
		}
	}
	return access, nil
}

// issue signs a token for subject granting scopes.
func (ts *tokenServer) issue(subject string, scopes []string) (string, error) {
	access, err := parseScopes(scopes)
	if err != nil {
		return "", err
	}
	now := time.Now()
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims, err := json.Marshal(map[string]any{
		"iss":    ts.issuer,
		"sub":    subject,
		"aud":    ts.service,
		"exp":    now.Add(tokenTTL).Unix(),
		"nbf":    now.Add(-time.Minute).Unix(),
		"iat":    now.Unix(),
		"jti":    base64.RawURLEncoding.EncodeToString(jti),
		"access": access,
	})
	if err != nil {
		return "", err
	}
	signingInput := ts.header + "." + base64.RawURLEncoding.EncodeToString(claims)
	digest := sha256.Sum256([]byte(signingInput))
	r, s, err := ecdsa.Sign(rand.Reader, ts.signer.key, digest[:])
	if err != nil {
		return "", err
	}
	// ES256 signatures are R || S, each 32 bytes big-endian (RFC 7518 3.4).
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// serveHTTP answers token requests.
func (ts *tokenServer) serveHTTP(w http.ResponseWriter, req *http.Request) {
	ts.requests.Add(1)
	if req.URL.Path != "/token" {
		tokenError(w, http.StatusNotFound, "not_found", "no such endpoint")
		return
	}
	var user, pass, service string
	var scopes []string
	switch req.Method {
	case http.MethodGet:
		var ok bool
		if user, pass, ok = req.BasicAuth(); !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="codex7-registrytest-token"`)
			tokenError(w, http.StatusUnauthorized, "unauthorized", "credentials required")
			return
		}
		q := req.URL.Query()
		service, scopes = q.Get("service"), q["scope"]
	case http.MethodPost:
		if err := req.ParseForm(); err != nil {
			tokenError(w, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		if gt := req.PostForm.Get("grant_type"); gt != "password" {
			tokenError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q", gt))
			return
		}
		user, pass = req.PostForm.Get("username"), req.PostForm.Get("password")
		service, scopes = req.PostForm.Get("service"), req.PostForm["scope"]
	default:
		w.Header().Set("Allow", "GET, POST")
		tokenError(w, http.StatusMethodNotAllowed, "invalid_request", "method not allowed")
		return
	}
	if !ts.check(user, pass) {
		w.Header().Set("WWW-Authenticate", `Basic realm="codex7-registrytest-token"`)
		tokenError(w, http.StatusUnauthorized, "unauthorized", "wrong username or password")
		return
	}
	if service != "" && service != ts.service {
		tokenError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("unknown service %q", service))
		return
	}
	tok, err := ts.issue(user, scopes)
	if err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_scope", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token":        tok,
		"access_token": tok,
		"expires_in":   int(tokenTTL / time.Second),
		"issued_at":    time.Now().UTC().Format(time.RFC3339),
	})
}

// check compares credentials in constant time.
func (ts *tokenServer) check(user, pass string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(ts.username))
	p := subtle.ConstantTimeCompare([]byte(pass), []byte(ts.password))
	return u&p == 1
}

func tokenError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}
