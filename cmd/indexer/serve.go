package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/pipeline"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve (--stdio | --http ADDR) [--artifacts DIR]", `Serves the artifacts to agents over MCP, read-only: the tools
resolve-library-id and get-library-docs. With --stdio it speaks MCP on
stdin/stdout (logs go to stderr), for Claude Code, Cursor and other local
clients. Otherwise it serves streamable HTTP at /mcp, with /healthz,
/readyz and /metrics (Prometheus), on --http (default `+server.DefaultAddr+`:
loopback; give 0.0.0.0:8080 in a container). SIGTERM or SIGINT shuts it
down gracefully.`, stdout, stderr)
	dir := fs.String("artifacts", "dist", "artifact directory (as written by indexer build)")
	stdio := fs.Bool("stdio", false, "speak MCP over stdin and stdout")
	addr := fs.String("http", server.DefaultAddr, "address for streamable HTTP")
	maxInFlight := fs.Int("max-in-flight", server.DefaultMaxInFlight, "HTTP requests served at once; more get 503 with Retry-After (negative: no cap)")
	verbose := fs.Bool("v", false, "debug logs")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	engine, err := search.Open(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "indexer serve: %v (run 'indexer build' first?)\n", err)
		return exitUsage
	}
	defer engine.Close()
	if *stdio {
		err = server.New(engine, pipeline.IndexerVersion).Run(ctx, &mcp.StdioTransport{})
	} else {
		log := newLogger(stderr, *verbose, false)
		err = server.ListenAndServe(ctx, *addr, server.Handler(engine, pipeline.IndexerVersion, log, server.HTTPOptions{MaxInFlight: *maxInFlight}), log, nil)
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}
