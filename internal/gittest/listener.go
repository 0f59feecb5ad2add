package gittest

import (
	"net"
	"sync/atomic"
	"testing"
)

// Listener is a TCP listener on loopback that accepts connections, closes
// them at once and counts them: git://, ssh:// and http:// addresses at
// it prove that a refused repository address is never contacted (and that
// an allowed one is).
type Listener struct {
	// Addr is host:port to put in repository addresses.
	Addr  string
	conns atomic.Int32
}

// Listen starts a Listener, closed when the test ends.
func Listen(t testing.TB) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	l := &Listener{Addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.conns.Add(1)
			c.Close()
		}
	}()
	return l
}

// Conns returns the connections accepted so far.
func (l *Listener) Conns() int { return int(l.conns.Load()) }
