package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ProcStatus is a process's memory and thread count: from
// /proc/<pid>/status on Linux, from GetProcessMemoryInfo and a process
// snapshot on Windows (see ReadProcStatus).
type ProcStatus struct {
	// RSS is the resident set size (VmRSS) in bytes.
	RSS int64
	// PeakRSS is the high-water mark of RSS since the process started
	// (VmHWM) in bytes.
	PeakRSS int64
	// AnonRSS and FileRSS split RSS (RssAnon, RssFile; 0 before Linux
	// 4.5, and on Windows): the heap and stacks, and pages of mapped files
	// such as memory-mapped index segments, which the kernel can drop and
	// read again under memory pressure.
	AnonRSS, FileRSS int64
	// Threads counts the process's OS threads.
	Threads int
}

// parseProcStatus reads VmRSS, VmHWM ("<n> kB") and Threads.
func parseProcStatus(data []byte) (ProcStatus, error) {
	var st ProcStatus
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch key {
		case "VmRSS":
			dst = &st.RSS
		case "VmHWM":
			dst = &st.PeakRSS
		case "RssAnon", "RssFile":
			v, err := parseKB(val)
			if err != nil {
				return ProcStatus{}, fmt.Errorf("%s %q: %w", key, val, err)
			}
			if key == "RssAnon" {
				st.AnonRSS = v
			} else {
				st.FileRSS = v
			}
			continue
		case "Threads":
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil {
				return ProcStatus{}, fmt.Errorf("field Threads %q: %w", val, err)
			}
			st.Threads = n
			found++
			continue
		default:
			continue
		}
		v, err := parseKB(val)
		if err != nil {
			return ProcStatus{}, fmt.Errorf("%s %q: %w", key, val, err)
		}
		*dst = v
		found++
	}
	if found < 3 {
		return ProcStatus{}, fmt.Errorf("VmRSS, VmHWM or Threads missing: %w", errBadStatus)
	}
	return st, nil
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat: USER_HZ, which
// Linux fixes at 100 for user space whatever the kernel's tick rate.
const userHZ = 100

// parseProcStat reads utime and stime, the 14th and 15th fields of
// /proc/<pid>/stat. The 2nd field, the command name in parentheses, may
// hold spaces and parentheses itself, so fields are counted from the last
// ')'.
func parseProcStat(data []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errBadStatus
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3
	if len(f) < 13 {
		return 0, errBadStatus
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errBadStatus, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// parseKB reads a /proc/<pid>/status size ("  1234 kB") in bytes.
func parseKB(val string) (int64, error) {
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "kB")), 10, 64)
	return kb << 10, err
}

// MemorySample is a process's status at a moment of a run.
type MemorySample struct {
	// At is the time since the run started.
	At time.Duration
	ProcStatus
}

// sampleMemory reads pid's status now and every interval until the
// returned function is called, which reads it a last time and returns the
// samples. Unreadable samples (the process ended) are skipped.
func sampleMemory(pid int, every time.Duration) func() []MemorySample {
	start := time.Now()
	var mu sync.Mutex
	var samples []MemorySample
	read := func() {
		if st, err := ReadProcStatus(pid); err == nil {
			mu.Lock()
			samples = append(samples, MemorySample{At: time.Since(start), ProcStatus: st})
			mu.Unlock()
		}
	}
	read()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() []MemorySample {
		close(stop)
		<-done
		read()
		return samples
	}
}

// Gauge scrapes a Prometheus text-format endpoint (a server's /metrics)
// and returns the value of the unlabelled series name, such as
// codex7_go_goroutines for a goroutine-leak check.
func Gauge(ctx context.Context, client *http.Client, url, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("scrape %s: %w: %s", url, errHTTPStatus, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", url, err)
	}
	for line := range strings.Lines(string(body)) {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			if err != nil {
				return 0, fmt.Errorf("scrape %s: %s: %w", url, name, err)
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("scrape %s: %s: %w", url, name, errNoSeries)
}
