package catalog

import (
	"errors"
	"syscall"
	"testing"
)

// starveFDs skips the test: Windows has no limit on open files to lower.
func starveFDs(t *testing.T, extra uint64) (restore func()) {
	t.Helper()
	t.Skip("no file descriptor limit on Windows")
	return nil
}

// blockFile skips the test: a Windows named pipe cannot take a file's
// place in a directory.
func blockFile(t *testing.T, p string) (feed func()) {
	t.Helper()
	t.Skip("no named pipes in the file system on Windows")
	return nil
}

// isReadDirError reports whether err is the error of reading a directory
// as a file: on Windows an error of the system (ReadFile fails on a
// directory's handle, with no errno of its own), which is what makes the
// refusal transient.
func isReadDirError(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno)
}
