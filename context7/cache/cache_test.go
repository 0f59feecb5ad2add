package cache

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable clock for the caches' Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// kinds returns a constructor for each kind of cache, all on one clock.
func kinds(t *testing.T) map[string]func(Options) Cache {
	t.Helper()
	return map[string]func(Options) Cache{
		"memory": func(o Options) Cache { return NewMemory(o) },
		"dir": func(o Options) Cache {
			d, err := OpenDir(t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
	}
}

func mustGet(t *testing.T, c Cache, key, want string) {
	t.Helper()
	got, ok := c.Get(key)
	if !ok || string(got) != want {
		t.Errorf("Get(%q) = %q, %v; want %q, true", key, got, ok, want)
	}
}

func mustMiss(t *testing.T, c Cache, key string) {
	t.Helper()
	if got, ok := c.Get(key); ok {
		t.Errorf("Get(%q) = %q, want a miss", key, got)
	}
}

func mustPut(t *testing.T, c Cache, key, value string) {
	t.Helper()
	if err := c.Put(key, []byte(value)); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func TestRoundTrip(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			c := open(Options{})
			mustMiss(t, c, "a")
			mustPut(t, c, "a", "alpha")
			mustPut(t, c, "b", "")
			mustGet(t, c, "a", "alpha")
			mustGet(t, c, "b", "")
			mustPut(t, c, "a", "again")
			mustGet(t, c, "a", "again")
			// The caller owns what Get returns.
			v, _ := c.Get("a")
			v[0] = 'X'
			mustGet(t, c, "a", "again")
			c.Delete("a")
			mustMiss(t, c, "a")
			c.Delete("never stored")
		})
	}
}

func TestTTL(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			c := open(Options{TTL: time.Hour, Now: clk.Now})
			mustPut(t, c, "k", "v")
			clk.Advance(59 * time.Minute)
			mustGet(t, c, "k", "v") // a hit does not extend the TTL
			clk.Advance(time.Minute)
			mustMiss(t, c, "k")
			mustPut(t, c, "k", "fresh")
			mustGet(t, c, "k", "fresh")
		})
	}
	t.Run("default", func(t *testing.T) {
		if o := (Options{}).withDefaults(); o.TTL != time.Hour || o.MaxEntries != DefaultMaxEntries || o.MaxBytes != DefaultMaxBytes {
			t.Errorf("defaults %+v, want a TTL of 1h", o)
		}
	})
}

func TestLRUByCount(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			c := open(Options{MaxEntries: 3, Now: clk.Now})
			for _, k := range []string{"a", "b", "c"} {
				mustPut(t, c, k, k)
				clk.Advance(time.Second)
			}
			mustGet(t, c, "a", "a") // a is now the most recently used
			clk.Advance(time.Second)
			mustPut(t, c, "d", "d") // evicts b, the least recently used
			clk.Advance(time.Second)
			mustMiss(t, c, "b")
			for _, k := range []string{"a", "c", "d"} {
				mustGet(t, c, k, k)
				clk.Advance(time.Second)
			}
			mustPut(t, c, "e", "e") // evicts a: c and d were used after it
			mustMiss(t, c, "a")
			mustGet(t, c, "e", "e")
		})
	}
}

func TestLRUByBytes(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			big := strings.Repeat("x", 1000)
			// Room for two entries (with their headers on disk), not three.
			c := open(Options{MaxBytes: 2*(1000+maxHeader) + 100, Now: clk.Now})
			mustPut(t, c, "a", big)
			clk.Advance(time.Second)
			mustPut(t, c, "b", big)
			clk.Advance(time.Second)
			mustGet(t, c, "a", big)
			clk.Advance(time.Second)
			mustPut(t, c, "c", big)
			mustMiss(t, c, "b")
			mustGet(t, c, "a", big)
			mustGet(t, c, "c", big)
			// A value larger than the whole cache is refused, and evicts
			// nothing.
			if err := c.Put("huge", bytes.Repeat([]byte("y"), 5000)); err != ErrTooLarge {
				t.Errorf("Put(huge) = %v, want ErrTooLarge", err)
			}
			mustGet(t, c, "a", big)
		})
	}
}

func TestDirSharedByInstances(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	opts := Options{MaxEntries: 2, Now: clk.Now}
	one, err := OpenDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	two, err := OpenDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, one, "a", "1")
	clk.Advance(time.Second)
	mustPut(t, two, "b", "2")
	clk.Advance(time.Second)
	mustGet(t, two, "a", "1") // two's hit makes a recent for one too
	clk.Advance(time.Second)
	mustPut(t, one, "c", "3")
	mustMiss(t, one, "b")
	mustGet(t, one, "a", "1")
	mustGet(t, two, "c", "3")
	if one.Len() != 2 {
		t.Errorf("%d entries, want 2", one.Len())
	}
}

// TestDirConcurrent has several Dirs on one directory written and read by
// many goroutines at once: every hit must be the whole value of its key,
// and the bounds must hold once writers are done.
func TestDirConcurrent(t *testing.T) {
	dir := t.TempDir()
	opts := Options{MaxEntries: 20}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for inst := range 4 {
		c, err := OpenDir(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- hammer(c, 300, uint64(inst*10+g))
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	c, _ := OpenDir(dir, opts)
	if n := c.Len(); n > opts.MaxEntries {
		t.Errorf("%d entries after the writers finished, want at most %d", n, opts.MaxEntries)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// hammer puts and gets random keys of a small key space on c, and checks
// that each hit is the whole value some writer stored under that key.
func hammer(c Cache, ops int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 7))
	for range ops {
		key := fmt.Sprintf("key-%d", r.IntN(40))
		if r.IntN(2) == 0 {
			if err := c.Put(key, value(key, r.IntN(4000))); err != nil {
				return err
			}
			continue
		}
		if v, ok := c.Get(key); ok && !validValue(key, v) {
			return fmt.Errorf("Get(%q) returned a value that is not one of its own: %.60q", key, v)
		}
	}
	return nil
}

// value makes a value for key that validValue can check: the key, the
// length of the padding and the padding.
func value(key string, n int) []byte {
	return []byte(key + "|" + strconv.Itoa(n) + "|" + strings.Repeat(key[len(key)-1:], n))
}

func validValue(key string, v []byte) bool {
	parts := strings.SplitN(string(v), "|", 3)
	if len(parts) != 3 || parts[0] != key {
		return false
	}
	n, err := strconv.Atoi(parts[1])
	return err == nil && parts[2] == strings.Repeat(key[len(key)-1:], n)
}

// TestDirProcesses runs several processes (this test binary, re-run as
// helpers) on one cache directory while this process reads and writes it
// too.
func TestDirProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), "CODEX7_CACHE_HELPER_DIR="+dir, "CODEX7_CACHE_HELPER_SEED="+strconv.Itoa(i))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("helper %d:\n%s", i, out.String())
			}
		})
		cmds = append(cmds, cmd)
		outs = append(outs, &out)
	}
	c, err := OpenDir(dir, Options{MaxEntries: 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := hammer(c, 500, 99); err != nil {
		t.Error(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil || !strings.Contains(outs[i].String(), "helper done") {
			t.Errorf("helper %d: %v, did not finish its work", i, err)
		}
	}
	if n := c.Len(); n > 20 {
		t.Errorf("%d entries, want at most 20", n)
	}
}

// TestHelperProcess is the body of TestDirProcesses' helpers; it does
// nothing in a normal run.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("CODEX7_CACHE_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper of TestDirProcesses")
	}
	seed, _ := strconv.Atoi(os.Getenv("CODEX7_CACHE_HELPER_SEED"))
	c, err := OpenDir(dir, Options{MaxEntries: 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := hammer(c, 500, uint64(seed)); err != nil {
		t.Fatal(err)
	}
	fmt.Println("helper done")
}

func TestDirCorruption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, path string, data []byte)
	}{
		{"truncated", func(t *testing.T, path string, data []byte) { write(t, path, data[:len(data)-3]) }},
		{"truncated header", func(t *testing.T, path string, data []byte) { write(t, path, data[:len(magic)+10]) }},
		{"empty", func(t *testing.T, path string, data []byte) { write(t, path, nil) }},
		{"garbage", func(t *testing.T, path string, data []byte) { write(t, path, []byte("\x00\xff not an entry at all")) }},
		{"flipped byte", func(t *testing.T, path string, data []byte) {
			data[len(data)-2] ^= 0x20
			write(t, path, data)
		}},
		{"appended", func(t *testing.T, path string, data []byte) { write(t, path, append(data, "more"...)) }},
		{"older format", func(t *testing.T, path string, data []byte) {
			write(t, path, bytes.Replace(data, []byte("cache 2\n"), []byte("cache 0\n"), 1))
		}},
		{"another key's entry", func(t *testing.T, path string, data []byte) {
			other := encodeEntry(strings.Repeat("ab", 32), time.Now(), time.Hour, []byte("someone else's"))
			write(t, path, other)
		}},
		{"huge", func(t *testing.T, path string, data []byte) { write(t, path, make([]byte, 3000)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			d, err := OpenDir(t.TempDir(), Options{MaxBytes: 2000, Logger: newLogger(&logs)})
			if err != nil {
				t.Fatal(err)
			}
			mustPut(t, d, "key", "the value of key")
			_, path := d.entryPath("key")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tc.corrupt(t, path, data)
			mustMiss(t, d, "key")
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("the damaged entry is still there: %v", err)
			}
			if !strings.Contains(logs.String(), "dropped a damaged entry") {
				t.Errorf("no warning logged: %q", logs.String())
			}
			// The cache heals: the next Put and Get work.
			mustPut(t, d, "key", "refetched")
			mustGet(t, d, "key", "refetched")
		})
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOpenDir(t *testing.T) {
	t.Run("unwritable", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		write(t, file, nil)
		if _, err := OpenDir(filepath.Join(file, "cache"), Options{}); err == nil {
			t.Error("OpenDir under a regular file succeeded")
		}
		if _, err := OpenDir("", Options{}); err == nil {
			t.Error("OpenDir(\"\") succeeded")
		}
	})
	t.Run("cleans up", func(t *testing.T) {
		dir := t.TempDir()
		clk := newClock()
		d, _ := OpenDir(dir, Options{Now: clk.Now})
		mustPut(t, d, "old", "v")
		stale := filepath.Join(dir, tmpPrefix+"crashed")
		write(t, stale, []byte("half"))
		past := time.Now().Add(-2 * staleTemp)
		os.Chtimes(stale, past, past)
		fresh := filepath.Join(dir, tmpPrefix+"writing")
		write(t, fresh, []byte("half"))
		clk.Advance(2 * time.Hour)
		if _, err := OpenDir(dir, Options{Now: clk.Now}); err != nil {
			t.Fatal(err)
		}
		if d.Len() != 0 {
			t.Error("an expired entry survived OpenDir")
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Error("a stale temporary file survived OpenDir")
		}
		if _, err := os.Stat(fresh); err != nil {
			t.Error("OpenDir removed a temporary file being written")
		}
	})
}

func newLogger(w *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestDirTTLsShared shares one directory between a server that reuses
// answers for a day and a prompt hook that reuses them for an hour, as
// `indexer serve` and `indexer context` do with the default directory.
// The hook neither serves the server's entries past its own hour nor
// removes them, opening the directory or reading them; they go once a
// day has passed for both.
func TestDirTTLsShared(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	server, err := OpenDir(dir, Options{TTL: 24 * time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, server, "a", "1")
	clk.Advance(2 * time.Hour)
	hook, err := OpenDir(dir, Options{TTL: time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	mustMiss(t, hook, "a") // stale for the hook
	mustPut(t, hook, "b", "2")
	mustGet(t, server, "a", "1") // kept for the server
	clk.Advance(2 * time.Hour)
	mustGet(t, server, "b", "2") // an hour's entry, read under a day's TTL
	mustMiss(t, hook, "b")       // expired for the hook and its writer: removed
	mustMiss(t, server, "b")
	clk.Advance(21 * time.Hour) // 25 h after a was written
	if _, err := OpenDir(dir, Options{TTL: time.Hour, Now: clk.Now}); err != nil {
		t.Fatal(err)
	}
	if n := server.Len(); n != 0 {
		t.Errorf("%d entries left a day after they were written, want 0", n)
	}
}

// TestDirReadsFirstFormat reads an entry written in the first format,
// which has no TTL line: it is served under the reader's TTL and expires
// with it.
func TestDirReadsFirstFormat(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	d, err := OpenDir(dir, Options{TTL: time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	hash, path := d.entryPath("k")
	value := []byte("old value")
	v2 := encodeEntry(hash, clk.Now(), 7*24*time.Hour, value)
	lines := bytes.SplitN(bytes.TrimPrefix(v2, []byte(magic)), []byte("\n"), 6)
	v1 := bytes.Join(append([][]byte{[]byte(magicV1[:len(magicV1)-1])}, lines[0], lines[1], lines[3], lines[4], lines[5]), []byte("\n"))
	if err := os.WriteFile(path, v1, 0o600); err != nil {
		t.Fatal(err)
	}
	mustGet(t, d, "k", "old value")
	clk.Advance(time.Hour)
	mustMiss(t, d, "k")
	if d.Len() != 0 {
		t.Errorf("an expired entry of the first format was kept")
	}
}
