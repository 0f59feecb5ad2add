package index

import (
	"hash/fnv"
	"math/bits"
	"strings"
	"unicode"
)

// TextHash is a hash of a section's text with case, punctuation and
// whitespace ignored: two sections with the same TextHash say the same
// thing in the same words.
func TextHash(text string) uint64 {
	h := fnv.New64a()
	for _, w := range words(text) {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// SimHash is a 64-bit similarity hash (Charikar) of a section's text over
// overlapping word pairs: texts that differ in a few words out of many
// give hashes a few bits apart (see NearDuplicate).
func SimHash(text string) uint64 {
	ws := words(text)
	if len(ws) == 0 {
		return 0
	}
	var v [64]int
	add := func(s string) {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		for i := range v {
			if x&(1<<i) != 0 {
				v[i]++
			} else {
				v[i]--
			}
		}
	}
	if len(ws) == 1 {
		add(ws[0])
	}
	for i := 0; i+1 < len(ws); i++ {
		add(ws[i] + " " + ws[i+1])
	}
	var out uint64
	for i, n := range v {
		if n > 0 {
			out |= 1 << i
		}
	}
	return out
}

// NearDuplicate reports whether two sections' texts are the same or nearly
// so, from their hashes and sizes in tokens: equal TextHash, or, for texts
// long enough for the similarity hash to be reliable (minNearTokens), at
// most 3 differing SimHash bits and sizes within a fifth of each other.
func NearDuplicate(hashA, simA uint64, tokensA int, hashB, simB uint64, tokensB int) bool {
	if hashA == hashB {
		return true
	}
	if tokensA < minNearTokens || tokensB < minNearTokens {
		return false
	}
	lo, hi := min(tokensA, tokensB), max(tokensA, tokensB)
	return hi*4 <= lo*5 && bits.OnesCount64(simA^simB) <= 3
}

// minNearTokens is the smallest text that can be a near (not exact)
// duplicate: short texts differ in too few word pairs for SimHash.
const minNearTokens = 60

// words returns text's words, lower-cased, without punctuation. Combining
// marks (Thai tone marks, Devanagari vowel signs, decomposed accents) are
// part of their words: ไม่ "not" and ไม้ "wood" differ only in them.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}
