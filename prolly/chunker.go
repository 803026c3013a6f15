package prolly

import (
	"math"

	"github.com/zeebo/xxh3"
)

// The boundary rule decides where nodes end, from the contents alone, so a
// tree depends only on its entries (history independence) and an edit
// re-chunks only the nodes around it.
//
// Entries are fed to a splitter in order; it tracks s, the bytes of the
// node so far (each entry counts len(key) + len(value) + 4). After an entry
// of e bytes has been added, the node ends there if
//
//   - s >= maxNodeSize, or
//   - s >= minNodeSize and h < T(s-e, s),
//
// where h = xxh3.HashSeed(key, hashSeed+level) and T is the integer
// threshold below. T makes the node size follow a Weibull distribution of
// shape 4 and scale lambda: the probability that a node reaching s-e bytes
// ends by s bytes is about (s/lambda)^4 - ((s-e)/lambda)^4. It is computed
// in integers, in units of 4 bytes, so every platform draws the same
// boundaries:
//
//	a = s/4, b = (s-e)/4, L = (lambda/4)^4
//	T = (a^4 - b^4) * floor((2^64-1) / L), or 2^64-1 if a^4 - b^4 >= L
//
// lambda = 4520 gives a mean of about 4 KiB (the Weibull mean is
// lambda * Gamma(1.25)), with the hard minimum and maximum trimming the
// tails. Internal levels use the same rule on the child's last key, with
// the level in the hash seed so that levels split independently.
//
// These constants define the shape of every stored tree: changing any of
// them changes root addresses, and needs a new node format version.
const (
	targetNodeSize = 4096
	minNodeSize    = 512
	maxNodeSize    = 16 * 1024
	weibullLambda  = 4520
	hashSeed       = 0x7665_7273_6f00_0000 // "verso\0\0\0"
)

var (
	lambdaUnits4 = pow4(weibullLambda / 4)
	thresholdMul = math.MaxUint64 / lambdaUnits4
)

func pow4(x uint64) uint64 { return x * x * x * x }

// splitter applies the boundary rule to a stream of entries at one level.
type splitter struct {
	level uint8
	size  int
}

// add accounts for one entry and reports whether the node ends after it;
// if so the splitter starts a new node.
func (s *splitter) add(key []byte, entrySize int) bool {
	before := s.size
	s.size += entrySize
	if s.size >= maxNodeSize || (s.size >= minNodeSize && boundaryHash(key, s.level) < threshold(before, s.size)) {
		s.size = 0
		return true
	}
	return false
}

// reset starts a new node.
func (s *splitter) reset() { s.size = 0 }

func boundaryHash(key []byte, level uint8) uint64 {
	return xxh3.HashSeed(key, hashSeed+uint64(level))
}

// threshold returns T for a node growing from before to after bytes.
func threshold(before, after int) uint64 {
	a, b := pow4(uint64(after/4)), pow4(uint64(before/4))
	d := a - b
	if d >= lambdaUnits4 {
		return math.MaxUint64
	}
	return d * thresholdMul
}

func entrySize(key, value []byte) int { return len(key) + len(value) + entryOverhead }
