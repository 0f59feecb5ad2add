package artifacts

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two existing directories in one atomic step
// (renameat2 RENAME_EXCHANGE), so readers never see neither. A file
// system that cannot (NFS, many FUSE file systems, kernels before 3.15)
// gets the three renames other systems use, with their short window,
// rather than a failed publish of every version that already exists.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if exchangeUnsupported(err) {
		return exchangeByRenames(a, b)
	}
	return err
}

// exchangeUnsupported reports whether err is renameat2 saying it cannot
// exchange here: EINVAL for a file system without RENAME_EXCHANGE, ENOSYS
// for a kernel without renameat2, EOPNOTSUPP as some file systems answer.
func exchangeUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)
}
