// Command indexer builds Codex7's documentation artifacts from git
// repositories and queries them. See `indexer help`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, documented in usage.
const (
	exitOK      = 0
	exitFailed  = 1 // the command ran and found failures (build, verify), or serve could not start serving
	exitUsage   = 2 // bad flags, bad config, nothing could start
	exitNoMatch = 3 // search found nothing
)

const usage = `indexer turns documentation in git repositories into versioned search
artifacts for coding agents, and queries them.

Usage:
  indexer build   [--config FILE] [--out DIR] [--library ID]... [--force] [--jobs N] [--list-jobs N] [--per-host N] [--fetch-timeout D] [-v]
  indexer verify  [DIR]
  indexer push    [--artifacts DIR] [--tag T]... oci://HOST[:PORT]/REPO[:TAG]
  indexer pull    [--artifacts DIR] [--missing-ok] oci://HOST[:PORT]/REPO[:TAG|@DIGEST]
  indexer search  --library ID --query TEXT [--artifacts DIR] [--version V] [--topics a,b] [--limit N] [--json] [--text]
  indexer eval    --questions FILE.jsonl [--artifacts DIR] [--tokens N] [--json] [--misses]
  indexer serve   (--stdio | --http ADDR) [--artifacts DIR|oci://REF]... [--reload-interval D] [--auth FILE] [--context7-* ...]
  indexer token   --name NAME --library PATTERN... [--rate N]
  indexer route   --groups A,B[,...] [--config FILE] [--out DIR] [--server GROUP=HOST:PORT]... [--by library|org]
  indexer context [--artifacts DIR] [--json|--markdown] [--hook] [--tokens N] [--timeout D] "PROMPT"
  indexer healthcheck [--timeout D] [URL]
  indexer version

Run 'indexer COMMAND --help' for a command's flags.

Exit codes: 0 success; 1 some library version failed to build (or the
build could not finish: output locked by another build, disk errors), verify
found bad files, eval could not ask every question, push or pull failed
(registry unreachable, credentials refused, a version refused), or serve
could not start serving (its --http port in use, a registry it serves from
unreachable) or stopped on an error; 2 bad usage or config (flags, paths,
addresses and URLs are checked before anything runs); 3 search matched
nothing.
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "build":
		return runBuild(ctx, rest, stdout, stderr)
	case "verify":
		return runVerify(rest, stdout, stderr)
	case "push":
		return runPush(ctx, rest, stdout, stderr)
	case "pull":
		return runPull(ctx, rest, stdout, stderr)
	case "search":
		return runSearch(ctx, rest, stdout, stderr)
	case "eval":
		return runEval(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "token":
		return runToken(rest, stdout, stderr)
	case "route":
		return runRoute(rest, stdout, stderr)
	case "healthcheck":
		return runHealthcheck(ctx, rest, stdout, stderr)
	case "context":
		return runContext(ctx, rest, os.Stdin, stdout, stderr)
	case "version", "--version":
		fs := newFlags("version", `Prints the release version, commit and build date stamped in, the artifact
format, Go version and platform.`, stdout, stderr)
		if code, done := parse(fs, rest, stdout); done {
			return code
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "indexer version: unexpected argument %q\n", fs.Arg(0))
			return exitUsage
		}
		fmt.Fprintln(stdout, versionString())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "indexer: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

// newFlags makes a flag set whose --help prints the command's usage to
// stdout and whose errors go to stderr.
func newFlags(name, synopsis string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: indexer %s\n\n%s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; it returns done=true with the exit code when the
// command should stop: help asked (usage on stdout, once) or bad flags
// (the error and usage on stderr).
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout)
			fs.Usage()
			return exitOK, true
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	return 0, false
}

// newLogger logs to stderr: text on a terminal, JSON otherwise (CI, containers).
func newLogger(stderr io.Writer, verbose, terminal bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if terminal {
		return slog.New(slog.NewTextHandler(stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(stderr, opts))
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// flagGiven reports whether the flag name was set on the command line of
// the parsed fs, as opposed to left at its default.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			given = true
		}
	})
	return given
}

// checkArtifactsDir returns why dir cannot be an artifact directory
// before a command reads it: it does not exist, or is a file. flagName is
// the flag that named it ("--artifacts"), "" for a positional argument;
// the message says what to give instead. A directory without a build is
// no error here: each command says what it lacks.
func checkArtifactsDir(dir, flagName string) error {
	name, fix := dir, "the right directory"
	if flagName != "" {
		name, fix = flagName+" "+dir, "the right "+flagName
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such directory: run 'indexer build --out %s' first, or give %s", name, dir, fix)
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory: it must be an artifact directory, as 'indexer build --out DIR' writes", name)
	}
	return nil
}
