package main

import (
	"fmt"
	"testing"
)

// TestParseProxies: addresses become single-address ranges, ranges are
// masked, IPv4-mapped ones are compared as IPv4 (as peers are), and
// nothing that trusts every address passes.
func TestParseProxies(t *testing.T) {
	got, err := parseProxies([]string{"10.0.0.7", "10.0.8.9/24", "fd00::1", "::ffff:10.1.0.0/112", "::ffff:192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(got); s != "[10.0.0.7/32 10.0.8.0/24 fd00::1/128 10.1.0.0/16 192.0.2.1/32]" {
		t.Errorf("parsed %s", s)
	}
	for _, bad := range []string{"0.0.0.0/0", "::/0", "::ffff:0.0.0.0/96", "::ffff:10.0.0.0/64", "ingress", "10.0.0.0/33", ""} {
		if _, err := parseProxies([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
