package loadgen

import (
	"fmt"
	"os"
	"time"
)

// ReadProcStatus reads the status of process pid.
func ReadProcStatus(pid int) (ProcStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ProcStatus{}, fmt.Errorf("read process status: %w", err)
	}
	st, err := parseProcStatus(data)
	if err != nil {
		return ProcStatus{}, fmt.Errorf("read process status of %d: %w", pid, err)
	}
	return st, nil
}

// ReadProcCPU returns the CPU time (user and system, all threads) process
// pid has used, at a 10 ms resolution.
func ReadProcCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read process CPU time: %w", err)
	}
	d, err := parseProcStat(data)
	if err != nil {
		return 0, fmt.Errorf("read process CPU time of %d: %w", pid, err)
	}
	return d, nil
}
