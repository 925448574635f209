//go:build !amd64 || purego

package semsearch

// dot is the dot product of a and b, which have the same length.
func dot(a, b []float32) float32 { return dotGeneric(a, b) }
