package web

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/server"
)

// Login, as the server's guard sees it: under a policy every page needs a
// token the policy knows, sent as "Authorization: Bearer" or kept in
// CookieName. A person enters it once at /-/login; the cookie is
// HttpOnly (no script reads it), SameSite=Strict (no other site's page
// sends it) and Secure over TLS. The guard scopes the request to the
// token's libraries and rate; the site only decides whether to show a page
// or the login form.

// policy is the access policy in force, nil for none.
func (s *Site) policy() *access.Policy {
	if s.opts.Auth == nil {
		return nil
	}
	return s.opts.Auth()
}

// grant is the grant of the request's token, and whether a login is
// needed at all. Without a policy it is (nil, false).
func (s *Site) grant(r *http.Request) (g *access.Grant, required bool) {
	pol := s.policy()
	if pol == nil {
		return nil, false
	}
	if tok, ok := requestToken(r); ok {
		return pol.Authenticate(tok), true
	}
	return nil, true
}

// requestToken is the token of the request's Authorization header, or
// else of its cookie.
func requestToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(tok) != "" {
		return strings.TrimSpace(tok), true
	}
	c, err := r.Cookie(CookieName)
	if err != nil {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

// authed serves h to requests that need no login or have a known token,
// and sends the others to the login form, which brings them back.
func (s *Site) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if g, required := s.grant(r); required && g == nil {
			http.Redirect(w, r, "/-/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		h(w, r)
	}
}

// loginData is the login page's content.
type loginData struct {
	Next  string
	Error string
}

func (s *Site) loginForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if g, required := s.grant(r); !required || g != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", "Sign in", loginData{Next: next})
}

// login checks the token a person entered and keeps it in the cookie.
func (s *Site) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, http.StatusBadRequest, "the form could not be read: "+err.Error())
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	pol := s.policy()
	if pol == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	var g *access.Grant
	if tok != "" {
		var err error
		g, err = server.Authenticate(r, pol, tok)
		if ge := (*access.GuessError)(nil); errors.As(err, &ge) {
			w.Header().Set("Retry-After", strconv.Itoa(ge.Seconds()))
			s.render(w, r, http.StatusTooManyRequests, "login", "Sign in", loginData{Next: next,
				Error: fmt.Sprintf("Too many unknown tokens came from this address: for %d s every token from it is refused, a right one too. Try again then.", ge.Seconds())})
			return
		}
	}
	if g == nil {
		s.render(w, r, http.StatusUnauthorized, "login", "Sign in", loginData{Next: next,
			Error: "This token is not known to the server: check it, or ask the server's operator for one."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: base64.RawURLEncoding.EncodeToString([]byte(tok)),
		Path: "/", HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout forgets the cookie.
func (s *Site) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/-/login", http.StatusSeeOther)
}

// overTLS reports whether the browser reached the site over HTTPS: the
// server's own TLS, or a proxy's that says so (X-Forwarded-Proto, or
// Forwarded's proto=, as ingresses send them). The login cookie holds
// the token, so it is then Secure: never sent over plain HTTP. Trusting
// the header is safe here: a client that sends it falsely only stops its
// own browser from sending its own cookie over plain HTTP.
func overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if p, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ","); strings.EqualFold(strings.TrimSpace(p), "https") {
		return true
	}
	first, _, _ := strings.Cut(r.Header.Get("Forwarded"), ",")
	for _, kv := range strings.Split(first, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && strings.EqualFold(k, "proto") && strings.EqualFold(strings.Trim(v, `"`), "https") {
			return true
		}
	}
	return false
}

// safeNext is where a login may send the browser back to: a path on this
// site, never another host. Anything else ("//evil.example",
// "https://evil.example", "/\\evil.example", "javascript:…") is "/".
func safeNext(next string) string {
	if next == "" || next[0] != '/' || len(next) > 2048 {
		return "/"
	}
	if len(next) > 1 && (next[1] == '/' || next[1] == '\\') {
		return "/"
	}
	if strings.ContainsAny(next, "\\\r\n\t") || strings.ContainsRune(next, 0) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}
