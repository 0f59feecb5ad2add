package web

import "testing"

// TestNum groups thousands with commas, and count uses it.
func TestNum(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1399763: "1,399,763", 100000: "100,000", -12345: "-12,345"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
	if got := count(25000, "token"); got != "25,000 tokens" {
		t.Errorf("count = %q", got)
	}
}
