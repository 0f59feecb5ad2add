//go:build !linux

package artifacts

// exchange replaces b with a: without renameat2, by three renames
// (exchangeByRenames).
func exchange(a, b string) error { return exchangeByRenames(a, b) }
