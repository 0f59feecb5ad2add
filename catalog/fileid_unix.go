//go:build unix

package catalog

import (
	"io/fs"
	"syscall"
)

// fileIndex returns the inode of fi, the file at path, or 0 when the file
// system has none to give.
func fileIndex(path string, fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino)
	}
	return 0
}
