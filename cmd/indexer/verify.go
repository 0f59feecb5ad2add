package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/codex7/codex7/artifacts"
)

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify [DIR]", `Checks an artifact directory (default dist): the catalog, every manifest's
format version, the sha256 of every file, and that the catalog describes
each version as its manifest does (a build or pull stopped before writing
the catalog leaves it out of date: run it again). Prints each bad file and
exits 1 if there is any.`, stdout, stderr,
		"indexer verify dist")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	dir := "dist"
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "indexer verify: give one directory")
		return exitUsage
	}
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	if err := checkArtifactsDir(dir, ""); err != nil {
		fmt.Fprintf(stderr, "indexer verify: %v\n", err)
		return exitUsage
	}
	probs, err := artifacts.Verify(dir)
	if err != nil {
		fmt.Fprintf(stderr, "indexer verify: %v\n", err)
		return exitUsage
	}
	for _, p := range probs {
		fmt.Fprintf(stdout, "BAD %s\n", p)
	}
	if len(probs) > 0 {
		fmt.Fprintf(stderr, "%s: %d bad files\n", dir, len(probs))
		if _, err := os.Stat(filepath.Join(dir, artifacts.CatalogFile)); errors.Is(err, os.ErrNotExist) {
			// A directory with no catalog at all is no damaged build
			// but none: say how to make one.
			fmt.Fprintf(stderr, "%s holds no build (no %s): run 'indexer build --out %s' to make one, or give the directory a build wrote\n", dir, artifacts.CatalogFile, dir)
		}
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s: ok\n", dir)
	return exitOK
}
