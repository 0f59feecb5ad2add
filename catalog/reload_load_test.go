// TestReloadWhileRepublished needs the atomic exchange of directories
// (renameat2 RENAME_EXCHANGE) that artifacts uses on Linux only.

//go:build linux

package catalog

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/loadgen"
	"github.com/codex7/codex7/topics"
)

// TestReloadWhileRepublished loads the catalog again and again while the
// one version it lists is republished again and again underneath, 60
// builds one after the other, each swapped in by an atomic exchange of
// directories as artifacts.Publish does: what happens when a request finds
// its version republished and reloads while a build is still publishing.
// Every catalog loaded must serve the version (a publish is no damage),
// and the topic tree it serves must be the build its manifest names.
func TestReloadWhileRepublished(t *testing.T) {
	const id, builds = "/soak/alpha", 60
	ctx := context.Background()
	out := t.TempDir()
	if err := loadgen.NewGenerations(out, id).Publish(ctx, 1); err != nil {
		t.Fatal(err)
	}
	live := artifacts.Dir(out, id, loadgen.GenerationVersion)
	// next[k] holds build k+2, ready to be swapped in.
	var next []string
	trees := map[string]*topics.Tree{} // by manifest sum
	var sums []string
	for n := 1; n <= builds; n++ {
		dir := live
		if n > 1 {
			staged := t.TempDir()
			if err := loadgen.NewGenerations(staged, id).Publish(ctx, n); err != nil {
				t.Fatal(err)
			}
			dir = artifacts.Dir(staged, id, loadgen.GenerationVersion)
			next = append(next, dir)
		}
		tree, err := artifacts.ReadTopics(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, sum, err := artifacts.ReadManifestSum(dir)
		if err != nil {
			t.Fatal(err)
		}
		trees[sum] = tree
		sums = append(sums, sum)
	}
	if reflect.DeepEqual(trees[sums[0]], trees[sums[1]]) {
		t.Fatal("two builds have the same topic tree: the test could not tell them apart")
	}
	e, err := Open([]string{out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		defer done.Store(true)
		for _, dir := range next {
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, live, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
			time.Sleep(100 * time.Microsecond)
		}
	})
	defer wg.Wait()

	refused, wrongTree, loads := 0, 0, 0
	for ; !done.Load() && refused+wrongTree < 5; loads++ {
		if err := e.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		st := e.acquire()
		sl := st.vdirs["soak/alpha/main"]
		switch {
		case len(st.refused) > 0:
			refused++
			t.Errorf("load %d: a republished version refused: %+v", loads, st.refused)
		case sl == nil:
			t.Fatalf("load %d: no slot for the version", loads)
		default:
			// A tree read for the versionDir is the build of the
			// manifest it read, or none (ErrStale: republished since).
			if tree, err := sl.topics(); err == nil && !reflect.DeepEqual(tree, trees[sl.desc.Load().sum]) {
				wrongTree++
				t.Errorf("load %d: the manifest is build %.12s, the topic tree another build's", loads, sl.desc.Load().sum)
			}
		}
		st.release()
	}
	t.Logf("%d loads during %d republishes", loads, len(next))
}
