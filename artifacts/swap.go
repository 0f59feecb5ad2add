package artifacts

import (
	"fmt"
	"os"
)

// exchangeByRenames replaces b with a, a directory of the staging area
// (see Stage), in three renames, for systems and file systems without an
// atomic exchange. There is a short window in which b does not exist: b
// is first moved beside a, to a+".old", in the staging area, where a
// crash leaves it to the next Lock to remove, unseen by catalog scans, and
// the version missing is rebuilt. On Windows each rename is retried
// briefly while a reader has b or one of its files open (see rename); if
// b stays open nothing changes, and if a cannot take b's place b is put
// back. On success a holds the previous version.
func exchangeByRenames(a, b string) error {
	old := a + ".old"
	os.RemoveAll(old)
	if err := rename(b, old); err != nil {
		return err
	}
	if err := rename(a, b); err != nil {
		if rerr := rename(old, b); rerr != nil {
			return fmt.Errorf("%w; and putting the previous version back: %w", err, rerr)
		}
		return err
	}
	return rename(old, a)
}
