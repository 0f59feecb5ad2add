package artifacts

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExchangeUnsupported pins the answers of renameat2 that mean it
// cannot exchange on this file system or kernel, for which exchange falls
// back to three renames, and that other failures still fail.
func TestExchangeUnsupported(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{unix.EINVAL, true},
		{unix.ENOSYS, true},
		{unix.EOPNOTSUPP, true},
		{&os.LinkError{Op: "renameat2", Old: "a", New: "b", Err: unix.EINVAL}, true},
		{unix.ENOENT, false},
		{unix.EACCES, false},
		{unix.EXDEV, false},
	} {
		if got := exchangeUnsupported(c.err); got != c.want {
			t.Errorf("exchangeUnsupported(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
