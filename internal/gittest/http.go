package gittest

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// HTTPServer is a real git server over smart HTTP: git http-backend, run
// by net/http/cgi, serving every repository under a root. It counts what
// it is asked, so tests can check how a build talks to a forge: how many
// requests run at once, and how many listings (GET info/refs) and
// fetches (POST git-upload-pack) each repository saw.
type HTTPServer struct {
	// URL is the server's base: a repository at ROOT/name.git is
	// URL+"/name.git".
	URL string

	cur, peak atomic.Int32
	mu        sync.Mutex
	lists     map[string]int
	fetches   map[string]int
}

// ServeHTTP starts an HTTPServer over the bare repositories under root,
// closed when the test ends. It skips the test without the git binary.
func ServeHTTP(t testing.TB, root string) *HTTPServer {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not found")
	}
	s := &HTTPServer{lists: map[string]int{}, fetches: map[string]int{}}
	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.cur.Add(1)
		defer s.cur.Add(-1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		s.mu.Lock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/info/refs"):
			s.lists[strings.TrimSuffix(r.URL.Path, "/info/refs")]++
		case strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
			s.fetches[strings.TrimSuffix(r.URL.Path, "/git-upload-pack")]++
		}
		s.mu.Unlock()
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Peak returns the most requests the server has handled at once.
func (s *HTTPServer) Peak() int { return int(s.peak.Load()) }

// Counts returns, by repository path ("/name.git"), the listings and the
// fetches seen so far, and resets them.
func (s *HTTPServer) Counts() (lists, fetches map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lists, fetches = s.lists, s.fetches
	s.lists, s.fetches = map[string]int{}, map[string]int{}
	return lists, fetches
}
