package loadgen

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processMemoryCounters is Windows' PROCESS_MEMORY_COUNTERS.
type processMemoryCounters struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
}

// errNoProcess is ReadProcStatus not finding pid among the processes.
var errNoProcess = errors.New("no such process")

// ReadProcStatus reads the memory and thread count of process pid: RSS
// and PeakRSS are its working set and peak working set; AnonRSS and
// FileRSS stay 0.
func ReadProcStatus(pid int) (ProcStatus, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return ProcStatus{}, fmt.Errorf("read process status of %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	mc := processMemoryCounters{cb: uint32(unsafe.Sizeof(processMemoryCounters{}))}
	proc := windows.NewLazySystemDLL("psapi.dll").NewProc("GetProcessMemoryInfo")
	if err := proc.Find(); err != nil {
		return ProcStatus{}, fmt.Errorf("read process status of %d: %w", pid, err)
	}
	if ok, _, err := proc.Call(uintptr(h), uintptr(unsafe.Pointer(&mc)), uintptr(mc.cb)); ok == 0 {
		return ProcStatus{}, fmt.Errorf("read process status of %d: %w", pid, err)
	}
	threads, err := threadCount(uint32(pid))
	if err != nil {
		return ProcStatus{}, fmt.Errorf("read process status of %d: %w", pid, err)
	}
	return ProcStatus{RSS: int64(mc.workingSetSize), PeakRSS: int64(mc.peakWorkingSetSize), Threads: threads}, nil
}

// threadCount returns the number of threads of process pid, from a
// snapshot of all processes.
func threadCount(pid uint32) (int, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(snap)
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID == pid {
			return int(e.Threads), nil
		}
	}
	if errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return 0, errNoProcess
	}
	return 0, err
}

// ReadProcCPU returns the CPU time (user and kernel, all threads) process
// pid has used, at the resolution of the system's clock tick.
func ReadProcCPU(pid int) (time.Duration, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("read process CPU time of %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	d, err := processCPU(h)
	if err != nil {
		return 0, fmt.Errorf("read process CPU time of %d: %w", pid, err)
	}
	return d, nil
}

// selfCPU returns the CPU time this process has used.
func selfCPU() time.Duration {
	d, _ := processCPU(windows.CurrentProcess())
	return d
}

// processCPU returns the user and kernel time of the process h.
func processCPU(h windows.Handle) (time.Duration, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	return filetimeDuration(kernel) + filetimeDuration(user), nil
}

// filetimeDuration reads a FILETIME that holds a duration, in 100 ns
// units (Filetime.Nanoseconds is for instants: it subtracts 1601's epoch).
func filetimeDuration(ft windows.Filetime) time.Duration {
	return time.Duration(int64(ft.HighDateTime)<<32|int64(ft.LowDateTime)) * 100
}
