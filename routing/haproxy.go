package routing

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// AnyBackend is the proxy backend of every replica of every group, for
// requests about no library in particular (MCP initialize, tools/list,
// health checks) and for names the map does not hold.
const AnyBackend = "any"

// GroupHeader is the response header the proxy adds naming the backend
// that answered (a group, or AnyBackend): for operators and tests; agents
// ignore it.
const GroupHeader = "X-Codex7-Group"

// HAProxyOptions shapes the generated proxy configuration.
type HAProxyOptions struct {
	// Bind is the address the proxy listens on (default ":8080").
	Bind string
	// MapFile is the map's path as the proxy reads it: a relative path is
	// relative to the proxy's working directory (haproxy -C DIR sets it;
	// default "libraries.map").
	MapFile string
}

// The library a request is about, wherever its route carries it, read in
// this order (the first found wins). MCP tool calls carry it in their
// JSON-RPC body: get-library-docs as libraryId (or the aliases the tools
// accept), resolve-library-id as libraryName. The REST API carries it in
// the query (v2) or the path (v1). A query parameter is decoded as the
// server decodes it, '+' as a space (url_dec(1)): Context7's clients send
// a space so.
var libraryFrom = []struct{ comment, fetch, cond string }{
	{"MCP get-library-docs", "req.body,json_query('$.params.arguments.libraryId')", "{ path /mcp } { method POST }"},
	{"", "req.body,json_query('$.params.arguments.context7CompatibleLibraryID')", "{ path /mcp } { method POST }"},
	{"", "req.body,json_query('$.params.arguments.libraryID')", "{ path /mcp } { method POST }"},
	{"MCP resolve-library-id", "req.body,json_query('$.params.arguments.libraryName')", "{ path /mcp } { method POST }"},
	{"REST /api/v2/context?libraryId=", "url_param(libraryId),url_dec(1)", "{ path_beg /api/ }"},
	{"REST /api/v2/libs/search?libraryName=", "url_param(libraryName),url_dec(1)", "{ path_beg /api/ }"},
	{"REST /api/v1/{org}/{project}[/{version}]", `"path,regsub('^/api/v1/([^/]+/[^/]+).*\$','\\1'),url_dec"`, "{ path_reg ^/api/v1/[^/]+/[^/]+ } !{ path_beg /api/v1/search }"},
}

// Parts of haproxyKey's regular expressions, as the configuration spells
// them (inside double quotes: "\\" is one backslash; "\$" a dollar sign).
// They are PCRE2, which HAProxy is built with by Debian and in the
// official images. Bytes are written \xNN: a quote would end the
// configuration's string or the argument, and UTF-8 characters are matched
// as their bytes.
const (
	// keyTrimmed is one character request.ParseKey trims from both ends of
	// an id: white space (with U+00A0), the quotes " ' ` and \ , and the
	// typographic quotes ‘ ’ “ ” „.
	keyTrimmed = `(?:[[:space:]\\x22\\x27\\x60\\\\]|\\xc2\\xa0|\\xe2\\x80[\\x98\\x99\\x9c\\x9d\\x9e])`
	// keySpace is white space, which ParseKey drops around a path segment.
	keySpace = `(?:[[:space:]]|\\xc2\\xa0)`
)

// haproxyKey turns the library as sent into its map key as
// request.ParseKey reads it and IDKey and Entries write it, in steps:
// lower-cased; white space and quotes trimmed from both ends, and white
// space around slashes dropped; "git@github.com:" read as
// "github.com/"; doubled slashes made one (not the scheme's); a scheme
// with its user, a github.com or context7.com host with "www." and a
// port, leading slashes, then an @version, a query and a fragment
// dropped; only the first two path segments kept ("/org/project/v1.2.0"
// → "org/project"). A bare name is left as it is, bar the trimming. A
// GitHub clone URL keeps its ".git" ("org/project.git"): Entries maps
// that key too. A form ParseKey refuses gets some key the map rarely
// holds, and goes to any group, which refuses it as every group would.
// (HAProxy's regsub cannot replace with "", hence the groups.)
const haproxyKey = `"var(txn.lib),lower` +
	`,regsub('^` + keyTrimmed + `*(.*?)` + keyTrimmed + `*\$','\\1')` +
	`,regsub('` + keySpace + `*/` + keySpace + `*','/','g')` +
	`,regsub('^git@github\\.com:','github.com/')` +
	`,regsub('([^:])//+','\\1/','g')` +
	`,regsub('^([a-z][a-z0-9+.-]*://([^/@]*@)?)?/*((www\\.)?(github\\.com|context7\\.com)(:[0-9]*)?/)?/*([^@?#]*).*\$','\\7')` +
	`,regsub('^([^/]*/[^/]*)/.*\$','\\1')"`

// configSpecial are the characters HAProxy's configuration reads as more
// than part of a word: white space, quotes, '$', '\' and '#'.
const configSpecial = " \t\r\n\"'$\\#"

// WriteHAProxy writes the HAProxy configuration (2.6 or later, built with
// PCRE2: see haproxyKey) routing to
// groups: a backend per group (health-checked on /readyz, balanced by
// least connections), AnyBackend holding every replica, and one frontend
// that finds each request's library (see libraryFrom), looks it up in the
// map and forwards it to the group holding it.
func WriteHAProxy(w io.Writer, groups []Group, opts HAProxyOptions) error {
	if len(groups) == 0 {
		return ErrNoGroups
	}
	if opts.Bind == "" {
		opts.Bind = ":8080"
	}
	if opts.MapFile == "" {
		opts.MapFile = "libraries.map"
	}
	if strings.ContainsAny(opts.MapFile+opts.Bind, configSpecial) {
		return fmt.Errorf("haproxy config: map file %q or bind %q holds a character the configuration would read otherwise", opts.MapFile, opts.Bind)
	}
	for _, g := range groups {
		for _, s := range g.Servers {
			// A space would start the server's options ("host:80 backup"),
			// a newline another directive.
			if s == "" || strings.ContainsAny(s, configSpecial) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
				return fmt.Errorf("haproxy config: group %s: server %q is not a HOST:PORT the configuration would read as one", g.Name, s)
			}
		}
	}
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("# Generated by `indexer route`: do not edit; regenerate from codex7.yaml.")
	p("# HAProxy 2.6+. Each replica group serves only its libraries; this proxy")
	p("# sends each request to the group holding the library it is about.")
	p("global")
	p("    maxconn 4096")
	p("")
	p("defaults")
	p("    mode http")
	p("    timeout connect 5s")
	p("    timeout client 120s")
	p("    timeout server 120s")
	p("    timeout http-request 10s")
	p("    option http-buffer-request")
	p("    # The client's address, for replicas started with --trusted-proxy")
	p("    # (this proxy's address): their limit on unknown tokens and audit")
	p("    # lines are then per client.")
	p("    option forwardfor")
	p("    default-server init-addr last,libc,none check inter 2s")
	p("")
	p("frontend codex7")
	p("    bind %s", opts.Bind)
	for _, f := range libraryFrom {
		if f.comment != "" {
			p("    # %s", f.comment)
		}
		p("    http-request set-var(txn.lib) %s if %s !{ var(txn.lib) -m found }", f.fetch, f.cond)
	}
	p("    http-request set-var(txn.key) %s if { var(txn.lib) -m found }", haproxyKey)
	p("    use_backend %%[var(txn.key),map(%s,%s)] if { var(txn.key) -m found }", opts.MapFile, AnyBackend)
	p("    default_backend %s", AnyBackend)
	for _, g := range groups {
		if len(g.Servers) == 0 {
			return fmt.Errorf("haproxy config: group %s has no servers", g.Name)
		}
		p("")
		p("backend %s", g.Name)
		backendCommon(p)
		for i, s := range g.Servers {
			p("    server %s-%d %s", g.Name, i+1, s)
		}
	}
	p("")
	p("backend %s", AnyBackend)
	backendCommon(p)
	for _, g := range groups {
		for i, s := range g.Servers {
			p("    server %s-%d %s", g.Name, i+1, s)
		}
	}
	return b.Flush()
}

func backendCommon(p func(string, ...any)) {
	p("    balance leastconn")
	p("    option httpchk GET /readyz")
	p("    http-check expect status 200")
	p("    http-response set-header %s %%[be_name]", GroupHeader)
}

// WriteMap writes entries as an HAProxy map file: one "key group" a line.
func WriteMap(w io.Writer, entries []Entry) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, "# Generated by `indexer route`: library id or name → replica group.")
	for _, e := range entries {
		fmt.Fprintf(b, "%s %s\n", e.Key, e.Group)
	}
	return b.Flush()
}
