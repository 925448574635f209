//go:build !purego

package semsearch

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dot is the dot product of a and b, which have the same length.
func dot(a, b []float32) float32 {
	if hasAVX2 && len(a) > 0 {
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}

// dotAVX2 computes the dot product of n values at a and b with AVX2 and
// FMA instructions.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32
