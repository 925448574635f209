package ai

import (
	"strings"
	"testing"
)

// Ids have the reference's form, differ from each other, and use every
// letter and digit about equally often.
func TestRandomID(t *testing.T) {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	seen := map[string]bool{}
	counts := map[rune]int{}
	const ids = 2000
	for range ids {
		id := randomID()
		rest, ok := strings.CutPrefix(id, "aitxt-")
		if !ok || len(rest) != 24 {
			t.Fatalf("id %q is not aitxt- and 24 characters", id)
		}
		if seen[id] {
			t.Fatalf("id %q drawn twice", id)
		}
		seen[id] = true
		for _, c := range rest {
			if !strings.ContainsRune(alphabet, c) {
				t.Fatalf("id %q has %q", id, c)
			}
			counts[c]++
		}
	}
	// Each character is expected ids*24/62 (774) times, with a standard
	// deviation of about 27.
	for _, c := range alphabet {
		if n := counts[c]; n < 550 || n > 1000 {
			t.Errorf("%q drawn %d times in %d characters", c, n, ids*24)
		}
	}
}
