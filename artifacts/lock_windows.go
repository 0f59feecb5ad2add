//go:build windows

package artifacts

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockRange is the byte range tryLock locks: all of the file, whatever
// its size (the lock file stays empty).
const lockRange = ^uint32(0)

// tryLock takes an exclusive LockFileEx lock on f without waiting. It
// fails with ERROR_LOCK_VIOLATION when another handle holds one, in this
// process or another.
func tryLock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, lockRange, lockRange, &ol)
}

// unlock releases tryLock's lock. Closing f releases it too, though
// Windows may take a moment to do so.
func unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, lockRange, lockRange, &ol)
}
