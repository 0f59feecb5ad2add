//go:build !linux

package artifacts

import "os"

// exchange replaces b with a. Without renameat2 there is a short window in
// which b does not exist; a crash inside it leaves b at b+".old", which the
// next build's catalog scan does not see, so that version is rebuilt.
func exchange(a, b string) error {
	old := b + ".old"
	os.RemoveAll(old)
	if err := os.Rename(b, old); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(old, b)
		return err
	}
	return os.Rename(old, a)
}
