package fetch

import (
	"context"
	"errors"
	"sort"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// errNotLocal means listLocal could not open the repository itself, and
// the caller should ask git (which also tries dir.git and the like).
var errNotLocal = errors.New("not a repository go-git opens")

// listLocal reads the refs of the local repository at dir as
// git-upload-pack would advertise them (branches, tags peeled to what they
// name, HEAD when it is a branch that exists), in process. A build lists
// every library's refs on every run: for a local repository asking git
// costs a git process, about 10 ms of CPU, so a no-op rebuild of thousands
// of local mirrors spent most of its time starting git; reading the refs
// costs a few file reads. Clone reads the tree in process too (cloneLocal).
func listLocal(ctx context.Context, dir string) (*Refs, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, errNotLocal
	}
	st := repo.Storer
	iter, err := st.IterReferences()
	if err != nil {
		return nil, err
	}
	refs := &Refs{Branches: map[string]string{}, Tags: map[string]string{}}
	advertised := map[plumbing.ReferenceName]plumbing.Hash{} // as git sends them: tags unpeeled
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := ref.Name()
		if !name.IsBranch() && !name.IsTag() || !validRef(name) {
			return nil
		}
		r, err := storer.ResolveReference(st, name)
		if err != nil {
			return nil // a dangling symbolic ref, which git does not advertise either
		}
		advertised[name] = r.Hash()
		if name.IsBranch() {
			refs.Branches[name.Short()] = r.Hash().String()
		} else {
			refs.Tags[name.Short()] = peel(st, r.Hash()).String()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	head, err := st.Reference(plumbing.HEAD)
	switch {
	case err != nil:
	case head.Type() == plumbing.SymbolicReference && head.Target().IsBranch():
		if _, ok := refs.Branches[head.Target().Short()]; ok {
			refs.Head = head.Target().Short()
		}
	default:
		refs.Head = guessHead(head.Hash(), advertised)
	}
	return refs, nil
}

// guessHead names the ref a detached HEAD at h stands for, as go-git's
// client does when a remote advertises HEAD without saying which branch
// it is: master if it is at h, else the first ref at h in name order.
func guessHead(h plumbing.Hash, advertised map[plumbing.ReferenceName]plumbing.Hash) string {
	if advertised[plumbing.Master] == h {
		return plumbing.Master.Short()
	}
	names := make([]string, 0, len(advertised))
	for n := range advertised {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		if advertised[plumbing.ReferenceName(n)] == h {
			return plumbing.ReferenceName(n).Short()
		}
	}
	return ""
}

// peel follows annotated tags from h to the object they name (at most 16
// deep, as a loop of tags is possible in a crafted repository); h itself
// when it is not a tag or cannot be read.
func peel(st storer.EncodedObjectStorer, h plumbing.Hash) plumbing.Hash {
	for range 16 {
		obj, err := st.EncodedObject(plumbing.AnyObject, h)
		if err != nil || obj.Type() != plumbing.TagObject {
			return h
		}
		tag, err := object.DecodeTag(st, obj)
		if err != nil {
			return h
		}
		h = tag.Target
	}
	return h
}
