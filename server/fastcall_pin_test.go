package server

import (
	"runtime/debug"
	"testing"
)

// TestFastCallsPinnedSDK fails when go.mod moves the MCP SDK away from the
// release fastCalls' copied rules were checked against: re-check each
// rule fastCalls' doc comment lists against the new release's source
// (protocol versions, nesting depth, ids, headers, DNS rebinding, error
// wording and result encoding), run TestFastCallsMatchSDK, then raise
// checkedSDKVersion.
func TestFastCallsPinnedSDK(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this test binary")
	}
	for _, dep := range bi.Deps {
		if dep.Path != "github.com/modelcontextprotocol/go-sdk" {
			continue
		}
		v := dep.Version
		if dep.Replace != nil {
			v = dep.Replace.Version
		}
		if v != checkedSDKVersion {
			t.Fatalf("the MCP SDK is %s, fastCalls' copied rules were checked against %s: re-check them (see fastCalls' doc comment), then set checkedSDKVersion", v, checkedSDKVersion)
		}
		return
	}
	t.Fatal("the MCP SDK is not among this binary's dependencies")
}
