// A file's content digest, as provenance records it.

package netfile

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest is the SHA-256 of a file's bytes, as provenance records it.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
