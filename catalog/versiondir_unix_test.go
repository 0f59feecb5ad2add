//go:build unix

package catalog

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// starveFDs lowers the process's file limit so that only extra more
// descriptors can be opened, and returns what puts it back.
func starveFDs(t *testing.T, extra uint64) (restore func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	// A new descriptor takes the lowest number free: below it all are used.
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	lowest := uint64(f.Fd())
	f.Close()
	low := syscall.Rlimit{Cur: lowest + extra, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	return func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
	}
}

// blockFile replaces the file at p with a named pipe, so that whoever
// opens it to read waits until feed writes the original bytes into it;
// feed then puts the file back.
func blockFile(t *testing.T, p string) (feed func()) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	return func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		w.Write(data)
		w.Close()
		os.Remove(p)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// isReadDirError reports whether err is the error of reading a directory
// as a file: EISDIR.
func isReadDirError(err error) bool { return errors.Is(err, syscall.EISDIR) }
