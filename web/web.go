// Package web is the read-only web site for people that `indexer serve
// --http` mounts at "/": the catalog of libraries and versions, a library
// version's topic tree and documents, a document rendered with its
// outline, and, for a question, exactly the answer get-library-docs (or
// resolve-library-id) gives an agent, with its sections' provenance, its
// token count against its budget and its raw text.
//
// It asks the same engine the MCP tools ask, through the same calls
// (Docs, FindLibraries), so a page never shows an answer an agent would
// not get. Pages are server-rendered with html/template and work without
// JavaScript; a small script filters the catalog as you type and adds copy
// buttons. Documents are rendered from markdown by goldmark with raw HTML
// dropped and dangerous link targets emptied. Every response carries a
// strict Content-Security-Policy: styles and scripts only from the site's
// own embedded files, which are served under content-hashed names and
// cached for a year.
//
// Access control is the server's (see server.HTTPOptions.Site): under a
// policy, a person enters a token once in a form; the site keeps it in an
// HttpOnly, SameSite=Strict cookie (Secure over TLS), and every page sees
// only the libraries that token allows, as over MCP.
package web

import (
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/yuin/goldmark"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/lru"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
	"github.com/codex7/codex7/topics"
)

// CookieName is the cookie in which the site keeps a person's token
// (unpadded base64url); pass it to the server as HTTPOptions.SiteCookie.
const CookieName = "codex7_token"

// Engine is what the site needs of the search engine: what the MCP tools
// ask (server.Engine), and a version's topics, documents and the catalog;
// *search.Engine has it. Its methods must be safe for concurrent use and
// must honour the request.Scope in their context, as the tools rely on.
type Engine interface {
	server.Engine
	Topics(ctx context.Context, id string) (*catalog.Resolved, *topics.Tree, error)
	Documents(ctx context.Context, id string) (*catalog.Resolved, []artifacts.DocumentInfo, error)
	Catalog() *artifacts.Catalog
}

var _ Engine = (*search.Engine)(nil)

// Options configures New. The zero value serves without access control
// and without links to git hosts.
type Options struct {
	// Auth returns the access policy in force, as the server's
	// HTTPOptions.Auth does; nil, or a nil policy, means no login.
	Auth func() *access.Policy
	// Repo returns the repository URL a library version was built from
	// (its manifest's), for links to files on their git host; nil or ""
	// links nowhere. See ManifestRepos.
	Repo func(library, version string) string
	// Logger receives errors the pages could not show; nil discards them.
	Logger *slog.Logger
}

// Site is the web site's handler. It is safe for concurrent use.
type Site struct {
	engine Engine
	opts   Options
	log    *slog.Logger
	pages  map[string]*template.Template
	assets *assets
	mux    *http.ServeMux
	// sectionMD renders sections shown under a page's h3, documentMD whole
	// documents; goldmark's renderers are safe for concurrent use.
	sectionMD, documentMD goldmark.Markdown
	// linkers holds the linkers of the versions shown lately (see linkerFor).
	linkers *lru.Cache[string, *linker]
}

// New returns the site serving engine.
func New(engine Engine, opts Options) *Site {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Site{engine: engine, opts: opts, log: log, assets: loadAssets(), sectionMD: newMarkdown(3), documentMD: newMarkdown(0),
		linkers: lru.New[string, *linker](lru.Options[*linker]{MaxBytes: maxLinkerBytes, MaxEntries: maxLinkers})}
	s.pages = parseTemplates(s.assets)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /-/static/{name}", s.assets.serve)
	mux.HandleFunc("GET /-/login", s.loginForm)
	// A login or logout posted by another site's page is refused (403):
	// no one signs a person in with the wrong token, or out.
	cop := http.NewCrossOriginProtection()
	mux.Handle("POST /-/login", cop.Handler(http.HandlerFunc(s.login)))
	mux.Handle("POST /-/logout", cop.Handler(http.HandlerFunc(s.logout)))
	mux.HandleFunc("GET /-/resolve", s.authed(s.resolvePage))
	mux.HandleFunc("GET /{$}", s.authed(s.catalogPage))
	mux.HandleFunc("GET /{org}/{project}", s.authed(s.libraryPage))
	mux.HandleFunc("GET /{org}/{project}/{version}", s.authed(s.libraryPage))
	mux.HandleFunc("GET /{org}/{project}/-/query", s.authed(s.queryPage))
	mux.HandleFunc("GET /{org}/{project}/{version}/-/query", s.authed(s.queryPage))
	mux.HandleFunc("GET /{org}/{project}/-/doc/{path...}", s.authed(s.documentPage))
	mux.HandleFunc("GET /{org}/{project}/{version}/-/doc/{path...}", s.authed(s.documentPage))
	mux.HandleFunc("/", s.authed(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "No page here: the catalog lists what this server serves.")
	}))
	s.mux = mux
	return s
}

// ServeHTTP serves the site, every response with its security headers.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	s.mux.ServeHTTP(w, r)
}

// contentSecurityPolicy allows the site's own stylesheet and script and
// nothing else: no inline script or style (not even style attributes), no
// other origin, no plugins, no framing, forms posting only here.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'none'; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// libraryID is the library id a page's path names: "/org/project", with
// "/version" when the path names one.
func libraryID(r *http.Request) (id, version string) {
	id = "/" + r.PathValue("org") + "/" + r.PathValue("project")
	version = r.PathValue("version")
	if version != "" {
		return id + "/" + version, version
	}
	return id, ""
}

// errMixedBuilds means the engine calls a page is made of answered from
// two builds of a version: a publish came between them.
var errMixedBuilds = errors.New("answers from two builds")

// maxPageReads is how many times a page made of several engine calls is
// read when a publish keeps coming between them.
const maxPageReads = 3

// consistently calls read, which makes a page of several engine calls,
// until it returns anything but errMixedBuilds, at most maxPageReads
// times, and returns its last error.
func consistently(read func() error) error {
	var err error
	for range maxPageReads {
		if err = read(); !errors.Is(err, errMixedBuilds) {
			break
		}
	}
	return err
}

// errorStatus maps an engine error to the page's status and message. The
// engine's messages are written for agents and people alike: they say what
// exists instead.
func errorStatus(err error) (int, string) {
	switch {
	case errors.Is(err, catalog.ErrLibraryNotFound), errors.Is(err, catalog.ErrVersionNotFound),
		errors.Is(err, search.ErrDocumentNotFound), errors.Is(err, search.ErrTopicNotFound),
		errors.Is(err, search.ErrPageNotFound):
		return http.StatusNotFound, err.Error()
	case errors.Is(err, request.ErrInvalidKey), errors.Is(err, request.ErrInvalidPath),
		errors.Is(err, request.ErrInvalidMode), errors.Is(err, request.ErrInvalidRequest),
		errors.Is(err, libraries.ErrInvalidDetail), errors.Is(err, search.ErrEmptyQuery):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, errMixedBuilds):
		return http.StatusServiceUnavailable, "the library was republished again and again while this page was read: reload the page"
	case errors.Is(err, catalog.ErrNotReady), errors.Is(err, catalog.ErrVersionUnavailable):
		return http.StatusServiceUnavailable, err.Error()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "the request was cancelled or took too long: try again"
	}
	return http.StatusInternalServerError, "the engine could not answer: " + err.Error()
}
