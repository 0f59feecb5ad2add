// Package editdist measures how far apart two short strings are, for
// suggesting what a mistyped name meant (a config key, a library name).
package editdist

// Distance is the optimal string alignment distance of a and b, in
// bytes: the insertions, deletions, substitutions and swaps of two
// adjacent bytes that turn one into the other ("falsk" is one swap from
// "flask"), no substring edited twice. It takes len(a)·len(b) steps: it
// is for names, not texts.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
