package server

import (
	"os"
	"strings"
	"testing"
)

// TestFastCallsPinnedSDK fails when go.mod moves the MCP SDK away from the
// release fastCalls' copied rules were checked against: re-check each
// rule listed at the top of fastcall.go against the new release's source,
// run TestFastCallsMatchSDK and TestFastCallsByteIdentical, then raise
// checkedSDKVersion. (A test binary's build information lists no
// dependencies, so go.mod is read.)
func TestFastCallsPinnedSDK(t *testing.T) {
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/modelcontextprotocol/go-sdk "
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "require"))
		if !strings.HasPrefix(line, mod) {
			continue
		}
		v := strings.Fields(strings.TrimPrefix(line, mod))[0]
		if v != checkedSDKVersion {
			t.Fatalf("go.mod requires the MCP SDK at %s, fastCalls' copied rules were checked against %s: re-check them (see the list at the top of fastcall.go), then set checkedSDKVersion", v, checkedSDKVersion)
		}
		return
	}
	t.Fatal("go.mod does not require the MCP SDK")
}
