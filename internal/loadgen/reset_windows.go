package loadgen

import (
	"errors"
	"syscall"
)

// resetByPeer reports whether err is the system's error for a write or
// read on a connection the other end closed: Winsock's WSAECONNRESET or
// WSAECONNABORTED (the Unix errno values syscall defines for Windows are
// never returned by sockets).
func resetByPeer(err error) bool {
	return errors.Is(err, syscall.WSAECONNRESET) || errors.Is(err, syscall.WSAECONNABORTED)
}
