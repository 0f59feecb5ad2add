package registrytest

import (
	"errors"

	"golang.org/x/sys/windows"
)

// connRefused reports whether err is a connection refused: Winsock's
// WSAECONNREFUSED (syscall.ECONNREFUSED is never returned by sockets on
// Windows).
func connRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
