//go:build !unix

package main

import "testing"

// lockPage does not lock where there is no flock: builds of the page by two
// test runs at once are not guarded there.
func lockPage(*testing.T, string) (unlock func()) { return func() {} }
