package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Dialer returns the transport client i of a Generator connects with.
// Each call must return a transport of its own.
type Dialer func(i int) mcp.Transport

// HTTP returns a Dialer of streamable HTTP clients of the MCP endpoint
// (http://host:port/mcp). Each client has its own http.Transport, hence
// its own connection and session, as separate agents would. Clients do not
// open the optional stream for unprompted server messages (Codex7 sends
// none) and do not retry: a failed request is counted, never hidden.
func HTTP(endpoint string) Dialer {
	return func(int) mcp.Transport {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = nil
		return &mcp.StreamableClientTransport{
			Endpoint:             endpoint,
			HTTPClient:           &http.Client{Transport: tr},
			MaxRetries:           -1,
			DisableStandaloneSSE: true,
		}
	}
}

// Generator is a set of connected MCP client sessions that replay a plan.
// Its methods must not be called concurrently.
type Generator struct {
	sessions []Session
	plan     []Call
	// next is the plan position of the next run's first call: runs carry
	// on where the previous one stopped, so a warm-up and a measured run
	// make different calls.
	next int
}

// Connect opens concurrency SDK client sessions through dial, one after
// the other, before any call is timed. On error the sessions already open
// are closed. The plan must not be empty; the generator keeps it (callers
// must not modify it afterwards).
func Connect(ctx context.Context, dial Dialer, concurrency int, plan []Call) (*Generator, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "codex7-loadgen", Version: "1"}, nil)
	return connect(concurrency, plan, func(i int) (Session, error) { return dialSDK(ctx, client, dial(i)) })
}

// dialSDK connects client through tr.
func dialSDK(ctx context.Context, client *mcp.Client, tr mcp.Transport) (Session, error) {
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		closeIdle(tr)
		return nil, err
	}
	return sdkSession{cs, tr}, nil
}

// connect opens concurrency sessions with open, one after the other.
func connect(concurrency int, plan []Call, open func(i int) (Session, error)) (*Generator, error) {
	if concurrency < 1 {
		return nil, fmt.Errorf("loadgen: concurrency %d: %w", concurrency, errBadOptions)
	}
	if len(plan) == 0 {
		return nil, fmt.Errorf("loadgen: empty plan: %w", errBadOptions)
	}
	g := &Generator{plan: plan}
	for i := range concurrency {
		s, err := open(i)
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("loadgen: connect client %d of %d: %w", i+1, concurrency, err)
		}
		g.sessions = append(g.sessions, s)
	}
	return g, nil
}

// sdkSession is an SDK client session that, on Close, also closes its
// transport's idle connections.
type sdkSession struct {
	*mcp.ClientSession
	tr mcp.Transport
}

func (s sdkSession) Close() error {
	err := s.ClientSession.Close()
	closeIdle(s.tr)
	return err
}

func closeIdle(tr mcp.Transport) {
	if st, ok := tr.(*mcp.StreamableClientTransport); ok && st.HTTPClient != nil {
		st.HTTPClient.CloseIdleConnections()
	}
}

// Close ends every session (over HTTP, the server forgets it), closes the
// clients' idle connections, so that a server holds nothing for them
// afterwards (goroutines included), and reports the errors of the sessions
// that did not end cleanly.
func (g *Generator) Close() error {
	var errs []error
	for i, s := range g.sessions {
		if err := s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close client %d: %w", i+1, err))
		}
	}
	g.sessions = nil
	return errors.Join(errs...)
}

// RunOptions bound a run and say what to sample during it.
type RunOptions struct {
	// Count is the most calls to start; 0 means no bound.
	Count int
	// Duration is how long to keep starting calls; 0 means no bound.
	// Calls started before it ends are waited for. One of Count and
	// Duration must be set.
	Duration time.Duration
	// PID, when not 0, is a local process (the server) whose memory is
	// read (ReadProcStatus) at the start, every SampleEvery (default 1 s)
	// and at the end of the run, and whose CPU time is measured
	// (ReadProcCPU). Both work on Linux and Windows only: elsewhere Run
	// fails with errors.ErrUnsupported.
	PID         int
	SampleEvery time.Duration
	// Check, when set, is called with every call answered with a result
	// (not a tool error), from the client's goroutine: concurrently with
	// other clients' calls, so it must be safe for concurrent use. An error
	// counts the answer in Result.BadAnswers instead of OK: the server
	// answered, but not what it should have.
	Check func(Answer) error
}

// Answer is one call answered with a result, as RunOptions.Check sees it.
type Answer struct {
	// Client is the index of the session that made the call; a session
	// makes one call at a time, in plan order.
	Client int
	Call   Call
	// Start is just before the request was sent, End just after its
	// answer arrived, on this process's monotonic clock: an answer whose
	// End is before another's Start was produced by the server before that
	// request reached it.
	Start, End time.Time
	Result     *mcp.CallToolResult
}

// Result is what a run measured.
type Result struct {
	Concurrency int
	// Elapsed is from the first call's start to the last call's end.
	Elapsed time.Duration
	// OK counts calls answered with a result; ToolErrors those answered
	// with a tool error (isError: the tool ran and refused);
	// ProtocolErrors those answered with a JSON-RPC error (the server
	// refused the request); TransportErrors those not answered (connection
	// refused or reset, HTTP errors, timeouts); BadAnswers those answered
	// with a result that RunOptions.Check rejected. Calls cut short because
	// the run's context ended are not counted.
	OK, ToolErrors, ProtocolErrors, TransportErrors, BadAnswers int
	// Latency is over every call answered (OK, tool and protocol errors);
	// ByKind splits it by the calls' Kind.
	Latency Stats
	ByKind  map[string]Stats
	// Latencies are the answered calls' latencies, sorted, for pooling
	// runs. Owned by the caller.
	Latencies []time.Duration
	// Errors holds the first few error messages, for diagnosis.
	Errors []string
	// Memory holds the samples of RunOptions.PID, in time order.
	Memory []MemorySample
	// ServerCPU is the CPU time RunOptions.PID used during the run (0
	// without a PID); ClientCPU is this process's, which includes the
	// clients. CPU time per call holds up better than throughput on a
	// shared machine: other work there slows calls down without making
	// them cost more.
	ServerCPU, ClientCPU time.Duration
}

// CPUPerCall returns ServerCPU and ClientCPU per answered call.
func (r *Result) CPUPerCall() (server, client time.Duration) {
	n := r.Answered()
	if n == 0 {
		return 0, 0
	}
	return r.ServerCPU / time.Duration(n), r.ClientCPU / time.Duration(n)
}

// Answered counts the calls that got an answer.
func (r *Result) Answered() int { return r.OK + r.BadAnswers + r.ToolErrors + r.ProtocolErrors }

// Failed counts the calls that did not succeed, for any reason.
func (r *Result) Failed() int {
	return r.BadAnswers + r.ToolErrors + r.ProtocolErrors + r.TransportErrors
}

// Throughput is answered calls per second of Elapsed.
func (r *Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Answered()) / r.Elapsed.Seconds()
}

// String summarizes the result on one line.
func (r *Result) String() string {
	bad := ""
	if r.BadAnswers > 0 {
		bad = fmt.Sprintf(" bad_answers=%d", r.BadAnswers)
	}
	return fmt.Sprintf("c=%d calls=%d ok=%d%s tool_errors=%d protocol_errors=%d transport_errors=%d in %v (%.0f calls/s) latency %v",
		r.Concurrency, r.Answered()+r.TransportErrors, r.OK, bad, r.ToolErrors, r.ProtocolErrors, r.TransportErrors, r.Elapsed.Round(time.Millisecond), r.Throughput(), r.Latency)
}

// maxErrors is how many error messages a Result keeps.
const maxErrors = 10

// sample is one answered call.
type sample struct {
	d    time.Duration
	kind string
}

// worker is what one client recorded; each client writes only its own.
type worker struct {
	samples                     []sample
	ok, bad, tool, proto, trans int
	errs                        []string
	first, last                 time.Time
	started                     int
}

// Run replays the plan from where the previous run stopped, each session
// taking the next call as soon as it is free, until Count calls have
// started, Duration has passed or ctx ends. On ctx's end it returns what
// was measured so far with ctx's error.
func (g *Generator) Run(ctx context.Context, opts RunOptions) (*Result, error) {
	if opts.Count < 0 || opts.Duration < 0 || (opts.Count == 0 && opts.Duration == 0) {
		return nil, fmt.Errorf("loadgen: run needs a count or a duration (got %d, %v): %w", opts.Count, opts.Duration, errBadOptions)
	}
	if len(g.sessions) == 0 {
		return nil, fmt.Errorf("loadgen: run: %w", errClosed)
	}
	var stopSampling func() []MemorySample
	if opts.PID != 0 {
		every := opts.SampleEvery
		if every <= 0 {
			every = time.Second
		}
		stopSampling = sampleMemory(opts.PID, every)
	}
	var serverCPU0 time.Duration
	if opts.PID != 0 {
		cpu, err := ReadProcCPU(opts.PID)
		if err != nil {
			stopSampling()
			return nil, fmt.Errorf("loadgen: run: %w", err)
		}
		serverCPU0 = cpu
	}
	for _, s := range g.sessions {
		if l, ok := s.(*leanSession); ok {
			// Lean clients read answers whole only for a check.
			l.decode = opts.Check != nil
		}
	}
	clientCPU0 := selfCPU()
	var taken atomic.Int64
	start := time.Now()
	var deadline time.Time
	if opts.Duration > 0 {
		deadline = start.Add(opts.Duration)
	}
	workers := make([]worker, len(g.sessions))
	var wg sync.WaitGroup
	for i, cs := range g.sessions {
		wg.Add(1)
		go func(client int, w *worker) {
			defer wg.Done()
			for ctx.Err() == nil && (deadline.IsZero() || time.Now().Before(deadline)) {
				n := taken.Add(1) - 1
				if opts.Count > 0 && n >= int64(opts.Count) {
					return
				}
				w.started++
				call := g.plan[(g.next+int(n))%len(g.plan)]
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.Tool(), Arguments: call.Args()})
				end := time.Now()
				if err != nil && ctx.Err() != nil {
					return // cut short by the caller, not the server's doing
				}
				if w.first.IsZero() {
					w.first = t0
				}
				w.last = end
				var bad error
				if err == nil && !res.IsError && opts.Check != nil {
					bad = opts.Check(Answer{Client: client, Call: call, Start: t0, End: end, Result: res})
				}
				switch {
				case err == nil && !res.IsError && bad != nil:
					w.bad++
					w.note(call, fmt.Errorf("%w: %w", errBadAnswer, bad))
				case err == nil && !res.IsError:
					w.ok++
				case err == nil:
					w.tool++
					w.note(call, errors.New(text(res)))
				case isProtocolError(err):
					w.proto++
					w.note(call, err)
				default:
					w.trans++
					w.note(call, err)
					continue // no answer: no latency
				}
				w.samples = append(w.samples, sample{end.Sub(t0), call.Kind})
			}
		}(i, &workers[i])
	}
	wg.Wait()
	r := &Result{Concurrency: len(g.sessions), ByKind: map[string]Stats{}, ClientCPU: selfCPU() - clientCPU0}
	if opts.PID != 0 {
		if cpu, err := ReadProcCPU(opts.PID); err == nil {
			r.ServerCPU = cpu - serverCPU0
		}
	}
	var first, last time.Time
	byKind := map[string][]time.Duration{}
	started := 0
	for _, w := range workers {
		started += w.started
		r.OK += w.ok
		r.BadAnswers += w.bad
		r.ToolErrors += w.tool
		r.ProtocolErrors += w.proto
		r.TransportErrors += w.trans
		for _, e := range w.errs {
			if len(r.Errors) < maxErrors {
				r.Errors = append(r.Errors, e)
			}
		}
		for _, s := range w.samples {
			r.Latencies = append(r.Latencies, s.d)
			byKind[s.kind] = append(byKind[s.kind], s.d)
		}
		if !w.first.IsZero() && (first.IsZero() || w.first.Before(first)) {
			first = w.first
		}
		if w.last.After(last) {
			last = w.last
		}
	}
	g.next = (g.next + started) % len(g.plan)
	if !first.IsZero() {
		r.Elapsed = last.Sub(first)
	}
	slices.Sort(r.Latencies)
	r.Latency = StatsOf(r.Latencies)
	for k, ds := range byKind {
		slices.Sort(ds)
		r.ByKind[k] = StatsOf(ds)
	}
	if stopSampling != nil {
		r.Memory = stopSampling()
	}
	return r, ctx.Err()
}

// JSON-RPC error codes the SDK's client makes up itself when a request
// never reached the server or its answer never came back (see the SDK's
// internal/jsonrpc2/wire.go): they are transport failures, not answers.
const (
	codeClientClosing       = -32003
	codeServerClosing       = -32004
	codeRejectedByTransport = -32005
)

// isProtocolError reports whether err is a JSON-RPC error the server
// answered with, as opposed to a failure to get an answer at all.
func isProtocolError(err error) bool {
	var rpcErr *jsonrpc.Error
	if errors.Is(err, mcp.ErrConnectionClosed) || !errors.As(err, &rpcErr) {
		return false
	}
	switch rpcErr.Code {
	case codeClientClosing, codeServerClosing, codeRejectedByTransport:
		return false
	}
	return true
}

// note keeps an error message for the result, up to maxErrors.
func (w *worker) note(c Call, err error) {
	if len(w.errs) < maxErrors {
		w.errs = append(w.errs, fmt.Sprintf("%s %s %v: %v", c.Tool(), c.Kind, c.Args(), err))
	}
}

var (
	errBadOptions = errors.New("bad options")
	errClosed     = errors.New("generator closed")
	errBadAnswer  = errors.New("bad answer")
	errBadStatus  = errors.New("unexpected /proc status format")
	errHTTPStatus = errors.New("unexpected HTTP status")
	errNoSeries   = errors.New("no such series")
)

// Stats summarizes latencies.
type Stats struct {
	N                             int
	Min, Mean, P50, P90, P99, Max time.Duration
}

// StatsOf summarizes sorted latencies; percentiles are nearest-rank.
func StatsOf(sorted []time.Duration) Stats {
	n := len(sorted)
	if n == 0 {
		return Stats{}
	}
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return Stats{N: n, Min: sorted[0], Mean: sum / time.Duration(n), P50: Percentile(sorted, 50), P90: Percentile(sorted, 90), P99: Percentile(sorted, 99), Max: sorted[n-1]}
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted latencies, or 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p*float64(len(sorted))/100)) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// String formats the stats in milliseconds.
func (s Stats) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("n=%d p50=%sms p90=%sms p99=%sms max=%sms", s.N, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max))
}
