package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/search"
)

// DefaultAddr is where the HTTP server listens unless told otherwise:
// loopback, so nothing is exposed by accident.
const DefaultAddr = "127.0.0.1:8080"

// maxBodyBytes bounds an MCP request body.
const maxBodyBytes = 1 << 20

// Handler serves MCP over streamable HTTP at /mcp, plus /healthz (the
// process is up) and /readyz (200 once a catalog is loaded, with its size
// and the versions refused; 503 before).
// Requests from a browser on another origin and, on loopback, DNS-rebinding
// Host headers are refused with 403.
func Handler(engine *search.Engine, version string, log *slog.Logger) http.Handler {
	srv := New(engine, version)
	mux := http.NewServeMux()
	// The SDK refuses a loopback connection with a foreign Host header (DNS
	// rebinding) by itself; cross-origin browser requests are refused here.
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:              log,
		SessionTimeout:      30 * time.Minute,
		MaxRequestBodyBytes: maxBodyBytes,
	})))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		st := engine.Status()
		if !st.Ready {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: no catalog loaded from %s", st.Dir)
			if st.LastError != "" {
				fmt.Fprintf(w, " (%s)", st.LastError)
			}
			fmt.Fprintln(w)
			return
		}
		fmt.Fprintf(w, "ready: %d libraries, %d versions, %d refused\n", st.Libraries, st.Versions, len(st.Refused))
		for _, r := range st.Refused {
			fmt.Fprintf(w, "refused %s@%s: %s\n", r.Library, r.Version, r.Reason)
		}
		if st.LastError != "" {
			fmt.Fprintf(w, "newest catalog not loaded: %s\n", st.LastError)
		}
	})
	return mux
}

// ListenAndServe serves h on addr until ctx ends, then shuts down
// gracefully, giving requests in flight up to 10 seconds. ready, if not
// nil, receives the bound address once listening (useful with port 0).
func ListenAndServe(ctx context.Context, addr string, h http.Handler, log *slog.Logger, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if ready != nil {
		ready(ln.Addr())
	}
	log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "endpoint", "/mcp")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
