package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/pipeline"
)

// Build information, stamped by the release and image recipes with
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…". A plain
// go build leaves them empty, and buildInfo falls back to what the Go
// toolchain records (the VCS revision and time of the checkout).
var (
	version string
	commit  string
	date    string
)

// buildInfo returns the release version, commit and build date, each
// "unknown" when nothing recorded it.
func buildInfo() (v, c, d string) {
	v, c, d = version, commit, date
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	if v == "" {
		v = pipeline.IndexerVersion + "-dev"
	}
	if c == "" {
		c = "unknown"
	}
	if d == "" {
		d = "unknown"
	}
	return v, c, d
}

// versionString is what `indexer version` prints.
func versionString() string {
	v, c, d := buildInfo()
	return fmt.Sprintf("indexer %s\ncommit %s\nbuilt %s\nartifact format %d, indexer %s, %s %s/%s",
		v, c, d, artifacts.FormatVersion, pipeline.IndexerVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
