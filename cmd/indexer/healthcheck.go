package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("healthcheck [--timeout D] [URL]", `Asks a running server whether it is healthy: GET URL (default
http://127.0.0.1:8080/readyz) must answer 200 within --timeout. Exit 0 if
it does, 1 otherwise, with the status or error on stderr. It needs no
shell or curl, so a container image of the binary alone can use it as its
HEALTHCHECK; /healthz checks the process only, /readyz also that the
artifacts are loaded.`, stdout, stderr,
		"indexer healthcheck http://127.0.0.1:8080/readyz",
		"indexer healthcheck --timeout 2s http://codex7:8080/healthz")
	timeout := durationFlag(fs, "timeout", 5*time.Second, "how long to wait for the answer")
	pos, code, done := parseInterspersed(fs, args, stdout)
	if done {
		return code
	}
	target := "http://127.0.0.1:8080/readyz"
	switch len(pos) {
	case 0:
	case 1:
		target = pos[0]
	default:
		fmt.Fprintln(stderr, "indexer healthcheck: give at most one URL")
		return exitUsage
	}
	// A URL that names no server is bad usage, not an unhealthy server:
	// a container runtime would restart a healthy one over it.
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(stderr, "indexer healthcheck: %q is not an http:// or https:// URL with a host: give the server's probe, e.g. http://127.0.0.1:8080/readyz\n", target)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		fmt.Fprintf(stderr, "indexer healthcheck: %v\n", err)
		return exitUsage
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "indexer healthcheck: %v\n", err)
		return exitFailed
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "indexer healthcheck: %s: %s\n%s", target, resp.Status, body)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s: %s\n", target, resp.Status)
	return exitOK
}
