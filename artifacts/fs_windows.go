//go:build windows

package artifacts

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameAttempts and renameBackoff bound rename's retries: six attempts,
// the waits between them doubling from 10ms, 310ms in all.
const (
	renameAttempts = 6
	renameBackoff  = 10 * time.Millisecond
)

// rename is os.Rename, retried briefly while another process has the file
// open, or a file of the directory: Windows refuses to rename what is
// open without FILE_SHARE_DELETE, which os.Open does not grant, so a
// server reading catalog.json or a manifest at that moment would fail a
// build. A server's open versions hold no file (index.releaseFiles reads
// them into memory on Windows), so only such brief reads are waited out;
// a directory some other program keeps open still fails after the
// retries, and the error says so.
func rename(from, to string) error {
	var waited time.Duration
	for i := 1; ; i++ {
		err := os.Rename(from, to)
		if err == nil || !inUse(err) {
			return err
		}
		if i == renameAttempts {
			return fmt.Errorf("%w (retried for %v: another process, such as a server, may have it open)", err, waited)
		}
		wait := renameBackoff << (i - 1)
		time.Sleep(wait)
		waited += wait
	}
}

// inUse reports whether err is Windows refusing a rename or removal of a
// file or directory another handle has open.
func inUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// syncDirectory does nothing: Windows cannot flush a directory opened for
// reading (FlushFileBuffers fails with ERROR_ACCESS_DENIED), and NTFS
// journals its metadata, renames included.
func syncDirectory(dir string) error { return nil }

// syncFile flushes the file p to disk. It opens p for writing, without
// truncating it: FlushFileBuffers fails with ERROR_ACCESS_DENIED on a
// handle without write access, such as os.Open's, which made every
// publish fail. p is writable: publishModes made it 0o644.
func syncFile(p string) error {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
