package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codex7/codex7/routing"
)

func runRoute(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("route --groups A,B[,...] [--config FILE] [--out DIR] [--server GROUP=HOST:PORT]... [--by library|org] [--bind ADDR] [--map-file PATH]",
		`Splits the config's libraries across replica groups (rendezvous hashing of
the library id, or of its organization with --by org: adding a group moves
only what it wins) and writes what runs them: codex7.GROUP.yaml beside the
config for each group (its libraries as written there: each group builds,
pushes and serves its own dist), and into --out the HAProxy (2.6+)
configuration haproxy.cfg with its map libraries.map, which route every MCP
tool call and REST request to the group holding its library. A group
without --server gets one replica, codex7-GROUP:8080 (a Kubernetes Service
name). See deploy/replicas.`, stdout, stderr,
		"indexer route --groups a,b --config codex7.yaml --out router",
		"indexer route --groups a,b --by org --server a=10.0.0.5:8080 --server a=10.0.0.6:8080")
	cfgPath := fs.String("config", "codex7.yaml", "config file of the whole catalog")
	out := fs.String("out", "router", "directory for haproxy.cfg and libraries.map")
	groups := fs.String("groups", "", "comma-separated replica group names (letters, digits, - and _)")
	var servers listFlag
	fs.Var(&servers, "server", "a replica of a group, GROUP=HOST:PORT (repeatable)")
	by := fs.String("by", string(routing.ByLibrary), "what picks a library's group: library (its id) or org (its organization)")
	bind := fs.String("bind", ":8080", "address the proxy listens on")
	mapFile := fs.String("map-file", "", "path the proxy reads libraries.map from (default: its absolute path in --out)")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 || *groups == "" {
		fmt.Fprintln(stderr, "indexer route: give --groups (and only flags); see --help")
		return exitUsage
	}
	opts := routing.Options{Config: *cfgPath, Groups: strings.Split(*groups, ","), Servers: map[string][]string{},
		By: routing.By(*by), Out: *out, Bind: *bind, MapFile: *mapFile}
	for _, s := range servers {
		g, addr, ok := strings.Cut(s, "=")
		if !ok || addr == "" {
			fmt.Fprintf(stderr, "indexer route: --server %q: want GROUP=HOST:PORT\n", s)
			return exitUsage
		}
		opts.Servers[g] = append(opts.Servers[g], addr)
	}
	// Whether each file was there before, to say which ones are
	// overwritten: a group's config beside the user's may have been edited.
	files := opts.Files()
	existed := make([]bool, len(files))
	for i, f := range files {
		_, err := os.Stat(f)
		existed[i] = err == nil
	}
	res, err := routing.Generate(opts)
	if err != nil {
		fmt.Fprintf(stderr, "indexer route: %v\n", err)
		return exitUsage
	}
	for _, g := range res {
		fmt.Fprintf(stdout, "group %s: %d libraries, replicas %s\n", g.Name, len(g.Libraries), strings.Join(g.Servers, " "))
		if len(g.Libraries) == 0 {
			// Its config says "libraries: []", which indexer build refuses:
			// say so now rather than in the group's first CI run.
			fmt.Fprintf(stderr, "indexer route: warning: group %s gets no library (the split is by hash, and uneven for few libraries), so its config lists none and indexer build refuses it: give fewer groups, or run no replica for %s\n", g.Name, g.Name)
		}
	}
	for i, f := range files {
		if existed[i] {
			fmt.Fprintf(stdout, "wrote %s (overwriting the one there)\n", f)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", f)
		}
	}
	// The proxy names each client in X-Forwarded-For; replicas that do not
	// trust it count every client as the proxy (one budget of unknown
	// tokens for all, the proxy in every audit line).
	fmt.Fprintln(stdout, "serve each group's replicas with --trusted-proxy and the proxy's address, so that they count and audit each client as itself")
	return exitOK
}
