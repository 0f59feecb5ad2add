//go:build !windows

package loadgen

import (
	"errors"
	"syscall"
)

// resetByPeer reports whether err is the system's error for a write or
// read on a connection the other end closed: ECONNRESET or EPIPE.
func resetByPeer(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
