//go:build !windows

package artifacts

import (
	"errors"
	"os"
	"syscall"
)

// rename is os.Rename.
func rename(from, to string) error { return os.Rename(from, to) }

// syncDirectory fsyncs the directory dir, so that the renames and
// creations in it survive a crash. File systems that cannot sync a
// directory (EINVAL) are let be.
func syncDirectory(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// syncFile fsyncs the file p, opened for reading (which suffices here).
func syncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
