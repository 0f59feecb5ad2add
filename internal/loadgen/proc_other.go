//go:build !linux && !windows

package loadgen

import (
	"errors"
	"fmt"
	"time"
)

// ReadProcStatus fails with errors.ErrUnsupported: reading another
// process's memory is implemented on Linux and Windows only.
func ReadProcStatus(pid int) (ProcStatus, error) {
	return ProcStatus{}, fmt.Errorf("read process status of %d: %w (Linux and Windows only)", pid, errors.ErrUnsupported)
}

// ReadProcCPU fails with errors.ErrUnsupported: reading another process's
// CPU time is implemented on Linux and Windows only.
func ReadProcCPU(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("read process CPU time of %d: %w (Linux and Windows only)", pid, errors.ErrUnsupported)
}
