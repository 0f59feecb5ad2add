//go:build !windows

package registrytest

import (
	"errors"
	"syscall"
)

// connRefused reports whether err is a connection refused: ECONNREFUSED.
func connRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
