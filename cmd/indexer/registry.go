package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/oci"
	"github.com/codex7/codex7/pipeline"
)

// registryFlags are the flags of every command that speaks to a registry.
type registryFlags struct {
	plainHTTP *bool
	caFile    *string
}

const credentialsHelp = `Credentials: $CODEX7_REGISTRY_USERNAME and $CODEX7_REGISTRY_PASSWORD
when set (CI; a password alone is sent as a token), else Docker's config
($DOCKER_CONFIG/config.json or ~/.docker/config.json, with its credential
helpers: 'docker login HOST' works), else anonymous. Bearer-token and basic
auth are both handled. TLS with the system's roots (plus --ca-file);
--plain-http for a registry without TLS, implied for loopback hosts.`

func addRegistryFlags(fs *flag.FlagSet) *registryFlags {
	return &registryFlags{
		plainHTTP: fs.Bool("plain-http", false, "speak plain HTTP to the registry (implied for localhost and 127.0.0.1)"),
		caFile:    fs.String("ca-file", "", "PEM file of CA certificates to trust besides the system's"),
	}
}

// options reads the flags and the credential variables of getenv.
func (f *registryFlags) options(getenv func(string) string) oci.Options {
	return oci.Options{
		PlainHTTP: *f.plainHTTP,
		CAFile:    *f.caFile,
		Username:  getenv(oci.EnvUsername),
		Password:  getenv(oci.EnvPassword),
		UserAgent: "codex7-indexer/" + pipeline.IndexerVersion,
	}
}

// registryExit maps a registry error to an exit code and prints it.
func registryExit(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "indexer %s: %v\n", cmd, err)
	switch {
	case errors.Is(err, context.Canceled):
		return exitFailed
	case errors.Is(err, oci.ErrReference):
		return exitUsage
	}
	return exitFailed
}

func runPush(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("push [--artifacts DIR] [--tag T]... oci://HOST[:PORT]/REPO[:TAG]", `Publishes an artifact directory (default dist) to an OCI registry as one
artifact: a manifest whose layers are catalog.json and one reproducible
layer per library version, so the same version always has the same digest.
The directory is verified first and locked until the tag is set (a build
into it meanwhile fails as locked); versions the registry holds already
are not uploaded again; the tag moves only once everything is uploaded. Prints
what was pushed, what was there, the bytes sent and the manifest digest
(pin a deployment to oci://HOST/REPO@DIGEST). The tag defaults to latest.

`+credentialsHelp, stdout, stderr,
		"indexer push --artifacts dist oci://ghcr.io/acme/docs:latest",
		"indexer push --tag v1.4.0 oci://localhost:5000/acme/docs")
	dir := fs.String("artifacts", "dist", "artifact directory to publish (as written by indexer build)")
	var tags listFlag
	fs.Var(&tags, "tag", "another tag for the pushed manifest, e.g. a release (repeatable)")
	rf := addRegistryFlags(fs)
	verbose := fs.Bool("v", false, "log each version as it goes")
	pos, code, done := parseInterspersed(fs, args, stdout)
	if done {
		return code
	}
	ref, code := oneReference(pos, "push", stderr)
	if code != 0 {
		return code
	}
	// Everything the user gave is checked before the registry is
	// contacted: a bad tag or directory is no registry failure.
	for _, t := range tags {
		if err := oci.CheckTag(t); err != nil {
			fmt.Fprintf(stderr, "indexer push: --tag: %v\n", err)
			return exitUsage
		}
	}
	if err := checkArtifactsDir(*dir, "--artifacts"); err != nil {
		fmt.Fprintf(stderr, "indexer push: %v\n", err)
		return exitUsage
	}
	if _, err := os.Stat(filepath.Join(*dir, artifacts.CatalogFile)); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "indexer push: --artifacts %s holds no build (no %s): run 'indexer build --out %s' first, or give the right --artifacts\n", *dir, artifacts.CatalogFile, *dir)
		return exitUsage
	}
	res, err := oci.Push(ctx, *dir, ref, oci.PushOptions{Options: rf.options(os.Getenv), Tags: tags, Logger: verboseLogger(stderr, *verbose)})
	if err != nil {
		return registryExit(stderr, "push", err)
	}
	for _, v := range res.Pushed {
		fmt.Fprintf(stdout, "pushed         %s@%s %s (%s)\n", v.Library, v.Version, v.Digest, bytesOf(v.Size))
	}
	for _, v := range res.Present {
		fmt.Fprintf(stdout, "already there  %s@%s %s\n", v.Library, v.Version, v.Digest)
	}
	fmt.Fprintf(stdout, "%d versions pushed, %d already there, %s sent\n", len(res.Pushed), len(res.Present), bytesOf(res.BytesSent))
	fmt.Fprintf(stdout, "digest %s\n", res.Digest)
	for _, t := range res.Tagged {
		fmt.Fprintf(stdout, "tagged %s\n", t)
	}
	fmt.Fprintf(stdout, "pinned %s\n", res.Pinned)
	return exitOK
}

func runPull(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("pull [--artifacts DIR] [--missing-ok] oci://HOST[:PORT]/REPO[:TAG|@DIGEST]", `Brings an artifact pushed with 'indexer push' into a directory (default
dist), in the layout 'indexer build' writes: only versions that changed
are downloaded; every blob is checked against its digest and every version
against its manifest before it is swapped into place, atomically; versions
the artifact no longer has are removed. A version whose content does not
match is refused with the reason (exit 1) and the rest installed. A pull
stopped at any moment leaves the previous directory complete. In CI,
'pull --missing-ok' then 'build' then 'push' rebuilds and uploads only what
changed; --missing-ok lets the first run start from nothing while a
registry that is down, refuses the credentials or lost a blob of the tag
still fails the job.

`+credentialsHelp, stdout, stderr,
		"indexer pull --artifacts dist oci://ghcr.io/acme/docs:latest",
		"indexer pull --missing-ok oci://ghcr.io/acme/docs && indexer build && indexer push oci://ghcr.io/acme/docs")
	dir := fs.String("artifacts", "dist", "artifact directory to bring up to date")
	missingOK := fs.Bool("missing-ok", false, "a reference that does not exist yet (a first CI run) is no error: the directory is left as it is, exit 0")
	rf := addRegistryFlags(fs)
	verbose := fs.Bool("v", false, "log each version as it goes")
	pos, code, done := parseInterspersed(fs, args, stdout)
	if done {
		return code
	}
	ref, code := oneReference(pos, "pull", stderr)
	if code != 0 {
		return code
	}
	// The directory may be absent (pull makes it), but a file there is
	// the user's mistake, to be said before the registry is asked.
	if fi, err := os.Stat(*dir); err == nil && !fi.IsDir() {
		fmt.Fprintf(stderr, "indexer pull: --artifacts %s: not a directory: give the directory to pull into (it is made if absent), e.g. --artifacts dist\n", *dir)
		return exitUsage
	}
	res, err := oci.Pull(ctx, ref, *dir, oci.PullOptions{Options: rf.options(os.Getenv), Logger: verboseLogger(stderr, *verbose)})
	if *missingOK && errors.Is(err, oci.ErrNotFound) {
		fmt.Fprintf(stdout, "nothing at %s yet: %s left as it is\n", ref, *dir)
		return exitOK
	}
	if err != nil {
		return registryExit(stderr, "pull", err)
	}
	for _, v := range res.Downloaded {
		fmt.Fprintf(stdout, "pulled     %s@%s (%s)\n", v.Library, v.Version, bytesOf(v.Size))
	}
	for _, v := range res.Unchanged {
		fmt.Fprintf(stdout, "unchanged  %s@%s\n", v.Library, v.Version)
	}
	for _, p := range res.Removed {
		fmt.Fprintf(stdout, "removed    %s\n", p)
	}
	for _, r := range res.Refused {
		fmt.Fprintf(stdout, "REFUSED    %s\n", r)
	}
	fmt.Fprintf(stdout, "%d versions pulled, %d unchanged, %d removed, %d refused, %s received\n",
		len(res.Downloaded), len(res.Unchanged), len(res.Removed), len(res.Refused), bytesOf(res.BytesReceived))
	fmt.Fprintf(stdout, "digest %s\npinned %s\n", res.Digest, res.Pinned)
	if len(res.Refused) > 0 {
		return exitFailed
	}
	return exitOK
}

// verboseLogger logs to stderr with -v, else nothing: the command's own
// lines on stdout say what it did.
func verboseLogger(stderr io.Writer, verbose bool) *slog.Logger {
	if !verbose {
		return nil
	}
	return newLogger(stderr, true, isTerminal(stderr))
}

// parseInterspersed parses flags that may come before or after the
// positional arguments ("push oci://… --tag v1"), which the flag package
// alone stops at, and returns the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, done bool) {
	for {
		if code, done := parse(fs, args, stdout); done {
			return nil, code, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, false
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), 0, false
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// oneReference takes the command's single argument as a reference.
func oneReference(pos []string, cmd string, stderr io.Writer) (oci.Reference, int) {
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "indexer %s: give one registry reference, e.g. oci://ghcr.io/acme/docs:latest (see --help)\n", cmd)
		return oci.Reference{}, exitUsage
	}
	ref, err := oci.ParseReference(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "indexer %s: %v\n", cmd, err)
		return oci.Reference{}, exitUsage
	}
	return ref, 0
}

// bytesOf renders a byte count for people.
func bytesOf(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
