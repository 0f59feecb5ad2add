package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/cache"
)

// context7Flags are indexer serve's flags for Context7, the remote source
// of libraries not indexed here.
type context7Flags struct {
	fs       *flag.FlagSet
	url      *string
	cacheDir *string
	mem      *bool
	ttl      *time.Duration
	timeout  *time.Duration
	getenv   func(string) string
}

// addContext7Flags registers the flags on fs. getenv reads
// CONTEXT7_API_URL and CONTEXT7_API_KEY (os.Getenv).
func addContext7Flags(fs *flag.FlagSet, getenv func(string) string) *context7Flags {
	base := context7.OptionsFromEnv(getenv).BaseURL
	if base == "" {
		base = context7.DefaultBaseURL
	}
	return &context7Flags{
		fs:       fs,
		getenv:   getenv,
		url:      fs.String("context7-url", base, "Context7 API base URL (default: CONTEXT7_API_URL, else the public service); Context7 serves get-context7-docs and remote matches when CONTEXT7_API_KEY is set"),
		cacheDir: fs.String("context7-cache-dir", defaultContext7CacheDir(), "directory for cached Context7 answers, which several servers may share"),
		mem:      fs.Bool("context7-cache-mem", false, "keep Context7 answers in memory only, as for a read-only container"),
		ttl:      durationFlag(fs, "context7-cache-ttl", cache.DefaultTTL, "how long a Context7 answer is reused"),
		timeout:  durationFlag(fs, "context7-timeout", context7.DefaultTimeout, "the most one Context7 call may take"),
	}
}

// defaultContext7CacheDir is codex7/context7 under the user's cache
// directory, or "" when there is none (no HOME in a container).
func defaultContext7CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "codex7", "context7")
}

// client returns the Context7 client the flags and environment describe,
// or nil when Context7 is not wanted: no CONTEXT7_API_KEY and no API URL
// given (flag or CONTEXT7_API_URL). Given a URL but no key, the client
// exists and get-context7-docs says the key is missing. A cache directory
// that cannot be written (a read-only container) falls back to memory.
func (f *context7Flags) client(log *slog.Logger) (*context7.Client, error) {
	if *f.ttl <= 0 || *f.timeout <= 0 {
		return nil, errors.New("--context7-cache-ttl and --context7-timeout must be > 0")
	}
	opts := context7.OptionsFromEnv(f.getenv)
	urlGiven := opts.BaseURL != ""
	f.fs.Visit(func(fl *flag.Flag) { urlGiven = urlGiven || fl.Name == "context7-url" })
	if opts.APIKey == "" && !urlGiven {
		return nil, nil
	}
	if u, err := url.Parse(*f.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the Context7 API URL %q is not an http(s) URL such as %s", *f.url, context7.DefaultBaseURL)
	}
	opts.BaseURL, opts.Timeout, opts.Logger = *f.url, *f.timeout, log
	copts := cache.Options{TTL: *f.ttl, Logger: log}
	where := "memory"
	if !*f.mem && *f.cacheDir != "" {
		if d, err := cache.OpenDir(*f.cacheDir, copts); err != nil {
			log.Warn("context7: caching in memory only", "error", err.Error())
		} else {
			opts.Cache, where = d, d.Path()
		}
	}
	if opts.Cache == nil {
		opts.Cache = cache.NewMemory(copts)
	}
	c := context7.New(opts)
	if !c.Configured() {
		log.Warn("context7: CONTEXT7_API_KEY is not set: get-context7-docs will say so, and resolve-library-id stays local")
	}
	log.Info("context7: enabled", "url", c.BaseURL(), "cache", where, "ttl", f.ttl.String(), "timeout", f.timeout.String())
	return c, nil
}
