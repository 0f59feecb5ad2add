package artifacts

import "golang.org/x/sys/unix"

// exchange swaps two existing directories in one atomic step
// (renameat2 RENAME_EXCHANGE), so readers never see neither.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
