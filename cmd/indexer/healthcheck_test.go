package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheck checks the exit codes a container runtime reads: 0 for
// a 200, 1 for any other status or no answer, 2 for bad usage.
func TestHealthcheck(t *testing.T) {
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			w.Write([]byte("ready: 1 libraries\n"))
			return
		}
		http.Error(w, "not ready", http.StatusServiceUnavailable)
	}))
	defer ready.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"healthcheck", ready.URL + "/readyz"}, exitOK, "200 OK"},
		{[]string{"healthcheck", ready.URL + "/other"}, exitFailed, "503"},
		{[]string{"healthcheck", "--timeout", "2s", down.URL + "/readyz"}, exitFailed, "connect"},
		{[]string{"healthcheck", "a", "b"}, exitUsage, "at most one URL"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: exit %d, %q %q; want %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
}
