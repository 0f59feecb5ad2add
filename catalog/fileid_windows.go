//go:build windows

package catalog

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// fileIndex returns the NTFS file index of the file at path (fi is its
// os.Stat), which a rename over it changes as an inode does, or 0 when it
// cannot be read. The file is opened for its attributes only, sharing
// read, write and delete, so that a build renaming catalog.json over it
// meanwhile is not refused.
func fileIndex(path string, fi fs.FileInfo) int64 {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0
	}
	return int64(info.FileIndexHigh)<<32 | int64(info.FileIndexLow)
}
