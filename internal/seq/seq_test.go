package seq

import "testing"

func TestEachIgnoresPairsAfterStop(t *testing.T) {
	stubborn := func(yield func(int, error) bool) {
		for i := range 5 {
			yield(i, nil) // the result is ignored
		}
	}
	var got []int
	Each(stubborn, func(i int, _ error) bool {
		got = append(got, i)
		return i < 1
	})
	if len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("got %v, want [0 1]", got)
	}
}

func TestEachVisitsAll(t *testing.T) {
	n := 0
	Each(func(yield func(int, error) bool) {
		for i := range 3 {
			if !yield(i, nil) {
				return
			}
		}
	}, func(int, error) bool { n++; return true })
	if n != 3 {
		t.Fatalf("visited %d, want 3", n)
	}
}
