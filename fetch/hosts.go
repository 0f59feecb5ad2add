package fetch

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/sync/semaphore"
)

// DefaultPerHost is how many listings and clones a Fetcher runs against one
// host at once unless told otherwise: enough to hide a remote's round
// trips when a build lists thousands of repositories, few enough that a
// forge does not take a build for an attack (GitHub's guidance is to keep
// concurrent requests from one client low).
const DefaultPerHost = 8

// hostLimiter holds one semaphore per host.
type hostLimiter struct {
	mu    sync.Mutex
	hosts map[string]*semaphore.Weighted
}

// acquire waits for a slot of repo's host (at most n at once) and returns
// its release, or ctx's error.
func (l *hostLimiter) acquire(ctx context.Context, repo string, n int) (func(), error) {
	if n <= 0 {
		n = DefaultPerHost
	}
	host := Host(repo)
	l.mu.Lock()
	if l.hosts == nil {
		l.hosts = map[string]*semaphore.Weighted{}
	}
	sem := l.hosts[host]
	if sem == nil {
		sem = semaphore.NewWeighted(int64(n))
		l.hosts[host] = sem
	}
	l.mu.Unlock()
	if err := sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	return func() { sem.Release(1) }, nil
}

// Host names the machine repo is fetched from, lower-cased, with its port
// when one is given: "github.com", "git.example.com:8443", and "" for a
// local repository (file:// or a path), whose listings and clones are git
// processes on this machine and share its limit like any host.
func Host(repo string) string {
	if t, err := Transport(repo); err != nil || t == TransportFile {
		return ""
	}
	if schemeRE.MatchString(repo) {
		if u, err := url.Parse(repo); err == nil {
			return strings.ToLower(u.Host)
		}
		return ""
	}
	// scp-like: [user@]host:path
	host, _, _ := strings.Cut(repo, ":")
	if _, h, ok := strings.Cut(host, "@"); ok {
		host = h
	}
	return strings.ToLower(host)
}
