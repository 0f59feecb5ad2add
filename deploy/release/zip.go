//go:build ignore

// Zip writes a reproducible zip archive for release.sh, so that a release
// needs no zip binary and comes out the same wherever it is made:
//
//	go run deploy/release/zip.go -epoch SECONDS -o ARCHIVE FILE...
//
// Each FILE is stored under its base name, entries sorted by name, every
// entry deflated and dated SECONDS (Unix time, UTC), with mode 0755 if the
// file is executable by its owner and 0644 otherwise; nothing else about
// the file (owner, other times, the local time zone) reaches the archive.
// ARCHIVE is written to a temporary name beside it and renamed into place,
// so a failed run leaves no half-written archive.
package main

import (
	"archive/zip"
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	epoch := flag.Int64("epoch", -1, "modification time of every entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	out := flag.String("o", "", "archive to write")
	flag.Parse()
	if *epoch < 0 || *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run deploy/release/zip.go -epoch SECONDS -o ARCHIVE FILE...")
		os.Exit(2)
	}
	if err := write(*out, time.Unix(*epoch, 0).UTC(), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "zip:", err)
		os.Exit(1)
	}
}

// write makes the archive out from files, every entry dated mtime.
func write(out string, mtime time.Time, files []string) (err error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b string) int {
		return cmp.Compare(filepath.Base(a), filepath.Base(b))
	})
	for i := 1; i < len(files); i++ {
		if filepath.Base(files[i]) == filepath.Base(files[i-1]) {
			return fmt.Errorf("%s and %s would share the name %s: give files distinct names", files[i-1], files[i], filepath.Base(files[i]))
		}
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".zip-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	zw := zip.NewWriter(f)
	for _, name := range files {
		if err := add(zw, name, mtime); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

// add appends the file name to zw under its base name.
func add(zw *zip.Writer, name string, mtime time.Time) error {
	src, err := os.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", name)
	}
	h := &zip.FileHeader{Name: filepath.Base(name), Method: zip.Deflate, Modified: mtime}
	mode := os.FileMode(0o644)
	if fi.Mode().Perm()&0o100 != 0 {
		mode = 0o755
	}
	h.SetMode(mode)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, src); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
