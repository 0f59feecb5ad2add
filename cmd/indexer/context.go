package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/cache"
	"github.com/codex7/codex7/contextitems"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

// maxPromptRead bounds what `context -` and `context --hook` read from stdin.
const maxPromptRead = 1 << 20

const contextHelp = `Finds the libraries a prompt is about and prints their best sections for
it: Markdown to paste into an agent's context (the default), or JSON context
items with their provenance (--json).

Libraries are found by their names and aliases in the artifacts (written
as in "Next.js", "nextjs" or "Next JS"), package-manager commands (npm,
yarn, pnpm, bun, pip, uv, poetry, go get, cargo), import and require
statements (Python, JavaScript/TypeScript, Go, Rust), pasted dependency
lists and stack traces; standard-library modules and English words
("express my concern", "react quickly", "next steps") are not libraries.
At most 5.
Each is searched in parallel within --timeout and a share of --tokens (at
least 200 each, so a small budget searches the best-evidenced ones only); a
library that is unknown, fails, does not answer in time or gets no budget
is left out. The command exits 0 whatever
it finds (printing nothing when it finds nothing), 2 on bad usage only;
with --hook, bad usage exits 1, which Claude Code shows without blocking
the prompt (2 would block it).

The prompt is the arguments, or stdin with "-". With --hook, stdin is a
Claude Code hook event (JSON with a "prompt" field). As a UserPromptSubmit
hook, whose output Claude Code adds to the prompt's context, in
.claude/settings.json:

  {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
    "command": "indexer context --hook --artifacts /srv/codex7/dist",
    "timeout": 10}]}]}}`

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := contextCommand(ctx, args, stdin, stdout, stderr)
	if code == exitUsage && hookArg(args) {
		// Claude Code blocks the prompt on a hook's exit 2: a hook
		// misconfigured must not stop its user from working.
		return exitFailed
	}
	return code
}

// hookArg reports whether args ask for --hook, read before the flags are
// parsed, so that a flag error is known to be a hook's too.
func hookArg(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		switch strings.TrimLeft(a, "-") {
		case "hook", "hook=true", "hook=1":
			return strings.HasPrefix(a, "-")
		}
	}
	return false
}

func contextCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags(`context [flags] "PROMPT"`, contextHelp, stdout, stderr,
		`indexer context "how do I add middleware in express?"`,
		"indexer context --json --tokens 2000 - < prompt.txt")
	dir := fs.String("artifacts", "dist", "artifact directory")
	asJSON := fs.Bool("json", false, `print {"libraries":[...],"items":[...]} as JSON`)
	asMarkdown := fs.Bool("markdown", false, "print Markdown for an agent's context (the default)")
	hook := fs.Bool("hook", false, `read the prompt from a Claude Code hook event on stdin ({"prompt": ...})`)
	tokens := fs.Int("tokens", contextitems.DefaultTokens, "token budget of all the sections together")
	timeout := durationFlag(fs, "timeout", contextitems.DefaultTimeout, "time budget; libraries that do not answer in time are left out")
	verbose := fs.Bool("v", false, "log why each library found was left out")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	switch {
	case *asJSON && *asMarkdown:
		fmt.Fprintln(stderr, "indexer context: give --json or --markdown, not both")
		return exitUsage
	case *hook && fs.NArg() > 0:
		fmt.Fprintln(stderr, "indexer context: --hook reads the prompt from stdin; give no prompt argument")
		return exitUsage
	case !*hook && fs.NArg() == 0:
		fmt.Fprintln(stderr, `indexer context: give the prompt, e.g. indexer context "how do I add middleware in express?", or - to read it from stdin`)
		return exitUsage
	case *tokens < request.MinTokens || *tokens > request.MaxTokens:
		fmt.Fprintf(stderr, "indexer context: --tokens must be between %d and %d\n", request.MinTokens, request.MaxTokens)
		return exitUsage
	case *timeout <= 0:
		fmt.Fprintln(stderr, "indexer context: --timeout must be positive, e.g. 3s")
		return exitUsage
	}
	log := newLogger(stderr, *verbose, isTerminal(stderr))

	prompt := strings.Join(fs.Args(), " ")
	if *hook || prompt == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, maxPromptRead))
		prompt = string(data)
		if err == nil && *hook {
			var event struct {
				Prompt string `json:"prompt"`
			}
			err = json.Unmarshal(data, &event)
			prompt = event.Prompt
		}
		if err != nil {
			// Never block the agent's prompt over its hook's input.
			log.Warn("context: cannot read the prompt from stdin", "err", err)
			prompt = ""
		}
	}

	opts := contextitems.Options{Remote: contextRemote(log), Timeout: *timeout, Tokens: *tokens, Logger: log}
	if engine, err := search.Open(*dir); err != nil {
		// A hook's stderr is read by people: one line, as other
		// commands' errors are, not a log record.
		fmt.Fprintf(stderr, "indexer context: no local artifacts in %s (run 'indexer build' first, or give --artifacts): %v\n", *dir, err)
	} else {
		defer engine.Close()
		opts.Engine = engine
		opts.Repos = contextitems.ManifestRepos(*dir, engine.Catalog())
	}
	start := time.Now()
	res := contextitems.Assemble(ctx, prompt, opts)
	log.Debug("context: assembled", "libraries", len(res.Libraries), "items", len(res.Items), "duration_ms", time.Since(start).Milliseconds())
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	} else {
		fmt.Fprint(stdout, res.Markdown())
	}
	return exitOK
}

// contextRemote returns the remote documentation service `indexer
// context` asks for libraries the artifacts lack: Context7 when
// CONTEXT7_API_KEY is set (CONTEXT7_API_URL for another base URL), with
// its short per-call budget and the on-disk cache serve uses; nil
// otherwise.
func contextRemote(log *slog.Logger) contextitems.Remote {
	opts := context7.OptionsFromEnv(os.Getenv)
	if opts.APIKey == "" {
		return nil
	}
	opts.Logger = log
	// Each prompt is a new process: share serve's on-disk cache, so a
	// library asked about again within the hour costs no call.
	copts := cache.Options{Logger: log}
	if dir := defaultContext7CacheDir(); dir != "" {
		if d, err := cache.OpenDir(dir, copts); err == nil {
			opts.Cache = d
		}
	}
	if opts.Cache == nil {
		opts.Cache = cache.NewMemory(copts)
	}
	return contextitems.Context7{Client: context7.New(opts).WithTimeout(context7.ShortTimeout)}
}
