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
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Exit codes, documented in usage.
const (
	exitOK      = 0
	exitFailed  = 1 // the command ran and found failures (build, verify), or serve could not start serving
	exitUsage   = 2 // bad flags, config, paths, addresses or URLs: nothing could start
	exitNoMatch = 3 // search found nothing
)

const usage = `indexer turns documentation in git repositories into versioned search
artifacts for coding agents, and queries them.

Usage:
  indexer build   [--config FILE] [--out DIR] [--library ID]... [--force] [--jobs N] [--list-jobs N] [--per-host N] [--fetch-timeout D]
                  [--memory-limit-mib N] [--cpuprofile F] [--memprofile F] [-v]
  indexer verify  [DIR]
  indexer push    [--artifacts DIR] [--tag T]... [-v] oci://HOST[:PORT]/REPO[:TAG]
  indexer pull    [--artifacts DIR] [--missing-ok] [-v] oci://HOST[:PORT]/REPO[:TAG|@DIGEST]
  indexer search  --library ID --query TEXT [--artifacts DIR] [--version V] [--topics a,b] [--limit N] [--json] [--text]
  indexer eval    --questions FILE.jsonl [--artifacts DIR] [--tokens N] [--json] [--misses]
  indexer serve   (--stdio | --http ADDR) [--artifacts DIR|oci://REF]... [--reload-interval D] [--auth FILE] [...]
                  (the rest: indexer help serve)
  indexer token   --name NAME --library PATTERN... [--rate N]
  indexer route   --groups A,B[,...] [--config FILE] [--out DIR] [--server GROUP=HOST:PORT]... [--by library|org]
                  [--bind ADDR] [--map-file PATH]
  indexer context [--artifacts DIR] [--json|--markdown] [--hook] [--tokens N] [--timeout D] [-v] "PROMPT"
  indexer healthcheck [--timeout D] [URL]
  indexer version

Run 'indexer help COMMAND' (or 'indexer COMMAND --help') for a command's
flags and examples.

Exit codes: 0 success; 1 some library version failed to build (or the
build could not finish: output locked by another build, disk errors), verify
found bad files, eval could not ask every question, push or pull failed
(registry unreachable, credentials refused, a version refused), or serve
could not start serving (its --http port in use, a registry it serves from
unreachable) or stopped on an error; 2 bad usage or config (flags, paths,
addresses and URLs are checked before anything runs), or artifacts that
cannot be read (search and eval on a missing or damaged --artifacts, search
on a damaged version); 3 search matched nothing. context warns and exits 0.
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
format, Go version and platform.`, stdout, stderr,
			"indexer version")
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
		switch {
		case len(rest) == 0 || rest[0] == "help" || rest[0] == "-h" || rest[0] == "--help":
			fmt.Fprint(stdout, usage)
			return exitOK
		case len(rest) > 1:
			fmt.Fprintln(stderr, "indexer help: give one command, e.g. indexer help build")
			return exitUsage
		}
		// A command's own help; an unknown one is said so, exit 2.
		return run([]string{rest[0], "--help"}, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "indexer: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

// newFlags makes the flag set of a command. name is the command and its
// synopsis ("build [flags]"); help says what it does; examples are command
// lines that work as written, shown last. Its Usage prints the whole help:
// parse shows it on --help, on stdout, and only a one-line pointer to it
// after a bad flag. Errors go to stderr.
func newFlags(name, help string, stdout, stderr io.Writer, examples ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: indexer %s\n\n%s\n", name, help)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(out, "\nFlags:\n")
			fs.PrintDefaults()
		}
		if len(examples) > 0 {
			fmt.Fprint(out, "\nExamples:\n")
			for _, e := range examples {
				fmt.Fprintf(out, "  %s\n", e)
			}
		}
	}
	return fs
}

// commandOf returns the command a flag set of newFlags is for ("build").
func commandOf(fs *flag.FlagSet) string {
	name, _, _ := strings.Cut(fs.Name(), " ")
	return name
}

// parse parses args; it returns done=true with the exit code when the
// command should stop: help asked (the whole help on stdout, once) or a
// bad flag (its error and one line saying where the help is, on stderr:
// the whole help would bury the error).
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	help := fs.Usage
	// The flag package calls Usage after a bad flag's error: the line
	// below says where the help is instead.
	fs.Usage = func() {}
	defer func() { fs.Usage = help }()
	showHelp := func() (int, bool) {
		fs.SetOutput(stdout)
		help()
		return exitOK, true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			return showHelp()
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return showHelp()
		}
		fmt.Fprintf(fs.Output(), "Run 'indexer %s --help' for usage.\n", commandOf(fs))
		return exitUsage, true
	}
	return 0, false
}

// durationValue is a flag.Value for a time.Duration whose error, unlike
// the flag package's "parse error", says what a duration looks like: a
// number without a unit ("5") is the usual mistake.
type durationValue time.Duration

func (d *durationValue) String() string { return (*time.Duration)(d).String() }

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return fmt.Errorf("a duration needs a unit: e.g. %ss or %sm (units: ms, s, m, h)", s, s)
		}
		return errors.New("not a duration: give a number with a unit, e.g. 30s, 5m or 1h30m")
	}
	*d = durationValue(v)
	return nil
}

// durationFlag defines a duration flag like fs.Duration, with
// durationValue's errors. Its help says a unit is needed, and still
// names the flag's type "duration".
func durationFlag(fs *flag.FlagSet, name string, value time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	*p = value
	fs.Var((*durationValue)(p), name, usage+", a `duration` with a unit (30s, 5m)")
	return p
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
