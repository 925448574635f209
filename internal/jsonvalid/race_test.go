//go:build race

package jsonvalid

const raceEnabled = true
