package oci

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/registrytest"
)

// TestMirrorReadyAroundARefusedVersion: a first pull with one version's
// layer damaged installs the others and counts as delivered, so a replica
// becomes ready and serves them (before, it stayed unready for good); its
// error counts the refused versions without naming them (/readyz shows it
// to anyone, and a token may not know that library); the next sync, once
// the layer is sound, installs the refused version.
func TestMirrorReadyAroundARefusedVersion(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	s := newSite(t)
	ref := mustRef(t, "oci://"+reg.Host+"/codex7/docs:v1")
	_, blob, sound := damageLayer(t, reg, push(t, s.out, ref, Options{}), "/acme/gamma")

	m := NewMirror(ref, t.TempDir(), time.Hour, PullOptions{})
	ctx := context.Background()
	err := m.Sync(ctx, nil)
	st := m.Status()
	if err == nil || !st.Delivered || st.Refused != 1 || st.Err == nil {
		t.Fatalf("first sync: %v, status %+v; want delivered with 1 refused and an error", err, st)
	}
	if msg := st.Err.Error(); strings.Contains(msg, "gamma") || !strings.Contains(msg, "1 of the pulled versions refused") {
		t.Errorf("status error %q: want a count, no library name", msg)
	}
	cat, err := artifacts.ReadCatalog(m.Dir())
	if err != nil || cat.Library("/acme/alpha") == nil || cat.Library("/acme/beta") == nil || cat.Library("/acme/gamma") != nil {
		t.Fatalf("catalog after the first sync: %v; want alpha and beta, not gamma", err)
	}

	if err := os.WriteFile(blob, sound, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(ctx, nil); err != nil {
		t.Fatalf("sync once the layer is sound: %v", err)
	}
	if st := m.Status(); !st.Delivered || st.Refused != 0 || st.Err != nil {
		t.Errorf("status %+v; want delivered, nothing refused, no error", st)
	}
	verified(t, m.Dir())
	if cat, err := artifacts.ReadCatalog(m.Dir()); err != nil || cat.Library("/acme/gamma") == nil {
		t.Errorf("gamma not installed by the sync after it was mended: %v", err)
	}
}
