package uistream

import "crypto/rand"

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns a random id of 16 letters and digits, the form chat
// clients use for message ids.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b[:])
}
