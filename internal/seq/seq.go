// Package seq iterates sequences that come from code the library does not
// control, such as a model's stream.
package seq

import "iter"

// Each calls f with each pair of s until f returns false. Pairs that s
// yields after that are ignored: a range loop over s would panic instead,
// and a misbehaving sequence must not crash the program that reads it.
func Each[K, V any](s iter.Seq2[K, V], f func(K, V) bool) {
	done := false
	s(func(k K, v V) bool {
		if done {
			return false
		}
		if !f(k, v) {
			done = true
		}
		return !done
	})
}
