package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// notInProcessError says why a local repository is cloned with git rather
// than read in process. It is the only error of cloneLocal that makes Clone
// fall back (and log); every other error is the repository's and is
// returned.
type notInProcessError struct{ reason string }

func (e *notInProcessError) Error() string { return "not read in process: " + e.reason }

// localCacheBytes bounds go-git's cache of decoded objects while a local
// repository is read (delta bases and trees met again); it is dropped when
// the read ends.
const localCacheBytes = 8 * cache.MiByte

// cloneLocal reads the tree of ref.Commit straight from the object store of
// the local repository at dir, without a git process: what a clone through
// go-git's file transport costs is a git upload-pack and a git
// pack-objects per clone, which re-compress every object only for this
// process to inflate them again (about three quarters of the CPU of a
// build of a thousand local libraries).
//
// It copies into the same limited in-memory store the transport's pack
// feeds, the same objects a depth-1 pack of the commit would hold (its
// trees and file blobs, each once; not submodules' commits nor symbolic
// links' targets), under the same Limits: a blob over MaxBlobBytes is
// sized from its header and never inflated, the bytes kept are charged
// against MaxFetchBytes, the distinct objects against MaxEntries; the
// snapshot is then indexed from that store exactly as after a clone, so
// omissions and their reasons are the same. The repository is closed
// before it returns: the snapshot holds no file open.
//
// The ref must still name ref.Commit, as the transport checks. A
// repository go-git cannot open, or one it might misread (objects borrowed
// through alternates, a repository format with extensions such as a
// partial clone's or SHA-256), is a *notInProcessError and Clone uses git
// instead; a missing or corrupt object is an error, as git's own
// upload-pack would fail on it.
//
// One cost is not bounded by Limits: a file at most MaxBlobBytes that a
// pack stores as a delta is rebuilt by go-git with its base in memory, and
// the base may be a blob over the cap (up to the largest blob in the
// repository's packs). git repacks deltas against similar files of similar
// size, so this matters only for a repository crafted for it.
func cloneLocal(ctx context.Context, dir string, ref Resolved, limits Limits) (*Snapshot, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, &notInProcessError{"go-git cannot open it: " + err.Error()}
	}
	opened, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, &notInProcessError{"not a repository on disk"}
	}
	dot := opened.Filesystem()
	switch _, err := dot.Stat("objects/info/alternates"); {
	case err == nil:
		return nil, &notInProcessError{"it borrows objects through objects/info/alternates"}
	case !errors.Is(err, os.ErrNotExist):
		return nil, &notInProcessError{"cannot tell whether it borrows objects through alternates: " + err.Error()}
	}
	cfg, err := opened.Config()
	if err != nil {
		return nil, &notInProcessError{"go-git cannot read its config: " + err.Error()}
	}
	if v := cfg.Core.RepositoryFormatVersion; v != "" && v != "0" {
		return nil, &notInProcessError{fmt.Sprintf("repository format version %s (extensions)", v)}
	}
	limits = limits.withDefaults()
	disk := filesystem.NewStorageWithOptions(dot, cache.NewObjectLRU(localCacheBytes), filesystem.Options{
		KeepDescriptors:      true,
		LargeObjectThreshold: limits.MaxBlobBytes,
	})
	defer disk.Close()

	now, err := storer.ResolveReference(disk, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is gone since the refs were listed; run the build again", ErrRefNotFound, ref.Name.Short())
	}
	if got := peel(disk, now.Hash()).String(); got != ref.Commit {
		return nil, fmt.Errorf("the ref moved from %s to %s while fetching; run the build again", short(ref.Commit), short(got))
	}
	st := newStore(limits)
	c := &localCopy{ctx: ctx, disk: disk, st: st, seen: map[plumbing.Hash]bool{}}
	hash := plumbing.NewHash(ref.Commit)
	if err := c.object(plumbing.CommitObject, hash); err != nil {
		return nil, err
	}
	commit, err := object.GetCommit(st, hash)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(ref.Commit), err)
	}
	if err := c.trees(commit.TreeHash); err != nil {
		return nil, err
	}
	tree, err := object.GetTree(st, commit.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("read tree: %w", err)
	}
	return newSnapshot(st, ref.Commit, commit.Committer.When.UTC(), tree, limits)
}

// short abbreviates a commit name for a message.
func short(commit string) string { return commit[:min(12, len(commit))] }

// localCopy copies objects from a repository on disk into a clone's store.
type localCopy struct {
	ctx  context.Context
	disk *filesystem.Storage
	st   *store
	seen map[plumbing.Hash]bool // objects copied (or sized, for large blobs)
}

// trees copies the tree root, every tree under it and their files' blobs,
// each distinct object once, without recursion (a tree may be thousands
// of levels deep).
func (c *localCopy) trees(root plumbing.Hash) error {
	stack := []plumbing.Hash{root}
	if err := c.object(plumbing.TreeObject, root); err != nil {
		return err
	}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tree, err := object.GetTree(c.st, h)
		if err != nil {
			return fmt.Errorf("read tree %s: %w (is the repository corrupt? git fsck tells)", h, err)
		}
		for _, te := range tree.Entries {
			switch te.Mode {
			case filemode.Dir:
				if !c.seen[te.Hash] {
					if err := c.object(plumbing.TreeObject, te.Hash); err != nil {
						return err
					}
					stack = append(stack, te.Hash)
				}
			case filemode.Regular, filemode.Executable, filemode.Deprecated:
				if !c.seen[te.Hash] {
					if err := c.object(plumbing.BlobObject, te.Hash); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// object copies the object h of type t into the store, within its limits:
// a blob over MaxBlobBytes is only sized (the store lists it as not
// fetched), anything else is charged before it is read.
func (c *localCopy) object(t plumbing.ObjectType, h plumbing.Hash) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	c.seen[h] = true
	if len(c.seen) > c.st.limits.MaxEntries+1 {
		return fmt.Errorf("%w: the commit has more than %d distinct objects, more than the %d files a version may have",
			ErrTooManyEntries, c.st.limits.MaxEntries+1, c.st.limits.MaxEntries)
	}
	err := c.stored(t, h)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("read %s %s: %w (is the repository corrupt? git fsck tells)", t, h, err)
	}
	return err
}

// stored copies h as go-git finds it (in the packs first, once their
// indexes are read). An object over LargeObjectThreshold comes back
// unread, with its size: a large blob is only sized, never inflated.
// (go-git's EncodedObjectSize is not used: it leaves a loose object's file
// open until the garbage collector finds it.)
func (c *localCopy) stored(t plumbing.ObjectType, h plumbing.Hash) error {
	obj, err := c.disk.EncodedObject(t, h)
	if err != nil {
		return err
	}
	if t == plumbing.BlobObject && obj.Size() > c.st.limits.MaxBlobBytes {
		c.st.large[h] = obj.Size()
		return nil
	}
	r, err := obj.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return c.keep(t, h, obj.Size(), r)
}

// keep stores the size bytes of h read from r, charged against
// MaxFetchBytes, or only its size when it is a blob over MaxBlobBytes.
func (c *localCopy) keep(t plumbing.ObjectType, h plumbing.Hash, size int64, r io.Reader) error {
	if t == plumbing.BlobObject && size > c.st.limits.MaxBlobBytes {
		c.st.large[h] = size
		return nil
	}
	if err := c.st.charge(size); err != nil {
		return err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return err
	}
	_, err := c.st.put(t, h, data)
	return err
}
