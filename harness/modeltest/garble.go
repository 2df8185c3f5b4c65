package modeltest

import (
	"bytes"
	"math/rand/v2"
)

// Garble returns a damaged copy of a stream, for property tests of stream
// handling: a few random cuts, byte flips, spliced bytes, dropped or
// doubled lines and events.
func Garble(rng *rand.Rand, orig []byte) []byte {
	b := append([]byte(nil), orig...)
	for range 1 + rng.IntN(4) {
		if len(b) == 0 {
			return b
		}
		i := rng.IntN(len(b))
		switch rng.IntN(6) {
		case 0: // cut the stream short
			b = b[:i]
		case 1: // flip a byte
			b[i] ^= byte(1 + rng.IntN(255))
		case 2: // splice in structural bytes
			junk := []string{"{", "}", "\"", "\n\n", "data: ", ":", "[DONE]", "null", ",", "\\"}
			b = append(b[:i], append([]byte(junk[rng.IntN(len(junk))]), b[i:]...)...)
		case 3: // drop a line
			lines := bytes.Split(b, []byte("\n"))
			j := rng.IntN(len(lines))
			b = bytes.Join(append(lines[:j], lines[j+1:]...), []byte("\n"))
		case 4: // double an event
			evs := Events(b)
			j := rng.IntN(len(evs))
			evs = append(evs[:j+1], evs[j:]...)
			b = bytes.Join(evs, nil)
		case 5: // swap two events
			evs := Events(b)
			j, k := rng.IntN(len(evs)), rng.IntN(len(evs))
			evs[j], evs[k] = evs[k], evs[j]
			b = bytes.Join(evs, nil)
		}
	}
	return b
}
