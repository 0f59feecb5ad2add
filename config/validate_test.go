package config

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCheckRefAsGit asks git check-ref-format, the rule's owner, about
// each ref and expects checkRef to agree, but for refs starting with "-",
// which checkRef refuses more strictly than git would (an option to any
// command the ref reaches).
func TestCheckRefAsGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	refs := []string{
		"main", "v1.2.0", "feature/x", "refs/tags/v1", "HEAD", "é", "a/b@", "release-1.x",
		"/main", "a/.b", ".hidden", "@", "x.lock/y", "a.lock", "a/b.", "a//b", "a/",
		"v1..v2", "a@{b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[b", `a\b`, "a\x7f",
	}
	for _, ref := range refs {
		gitOK := exec.Command(git, "check-ref-format", "--allow-onelevel", ref).Run() == nil
		if msg := checkRef(ref); (msg == "") != gitOK {
			t.Errorf("checkRef(%q) = %q; git check-ref-format accepts it: %v", ref, msg, gitOK)
		}
	}
	if checkRef("-x") == "" {
		t.Error(`checkRef("-x") accepted a ref that reads as an option`)
	}
}

// TestVersionNameLength refuses a version name no file system takes as a
// directory's, with the config's line, rather than when the build writes
// it.
func TestVersionNameLength(t *testing.T) {
	if msg := checkVersionName(strings.Repeat("v", maxNameBytes)); msg != "" {
		t.Errorf("a name of %d bytes refused: %s", maxNameBytes, msg)
	}
	if msg := checkVersionName(strings.Repeat("v", maxNameBytes+1)); !strings.Contains(msg, "more than a file system allows") {
		t.Errorf("a name of %d bytes: %q, want it refused for its length", maxNameBytes+1, msg)
	}
}

// TestIDSegmentLength refuses an id whose org or project no file system
// takes as a directory's name.
func TestIDSegmentLength(t *testing.T) {
	long := strings.Repeat("p", maxNameBytes+1)
	for _, id := range []string{"/acme/" + long, "/" + long + "/p"} {
		if msg := checkID(id); !strings.Contains(msg, "a file system takes up to") {
			t.Errorf("checkID(%.20q…) = %q, want it refused for its length", id, msg)
		}
	}
	if msg := checkID("/acme/" + strings.Repeat("p", maxNameBytes)); msg != "" {
		t.Errorf("a segment of %d bytes refused: %s", maxNameBytes, msg)
	}
}
