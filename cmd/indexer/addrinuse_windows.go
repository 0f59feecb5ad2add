package main

import (
	"errors"
	"syscall"
)

// wsaeAddrInUse is Winsock's WSAEADDRINUSE, which a listen on Windows
// fails with (syscall.EADDRINUSE is only Go's invented value there).
const wsaeAddrInUse = syscall.Errno(10048)

// addrInUse reports whether err is a listen failing because the address
// is taken.
func addrInUse(err error) bool {
	return errors.Is(err, wsaeAddrInUse) || errors.Is(err, syscall.EADDRINUSE)
}
