// Package sim draws the fixed sample pools and runs episodes: one joint
// realization of every link time per episode, revealed link by link as the
// policy traverses it.
package sim

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/ontime-routing/ontime/engine/linktime"
)

// Purposes of sample pools. Each purpose has its own seeds, so training,
// validation and test realizations never overlap.
const (
	Train      = "train"
	Validation = "validation"
	Test       = "test"
	// Verify pools are the invariant checker's (ontime verify): disjoint
	// from every benchmark's, so checking never looks at a test pool.
	Verify = "verify"
)

// Seed derives the PCG seed of pool (network, purpose, index). shift is the
// benchmark instance (--seed; 0 is the published one). The high word hashes
// network and purpose (FNV-1a), the low word packs shift and index, so the
// seeds of distinct pools differ and are identical on every machine.
func Seed(network, purpose string, index int, shift uint64) [2]uint64 {
	h := fnv.New64a()
	h.Write([]byte(network))
	h.Write([]byte{0})
	h.Write([]byte(purpose))
	return [2]uint64{h.Sum64(), shift<<32 | uint64(uint32(index))}
}

// Pool is a fixed set of joint link-time realizations, row-major.
type Pool struct {
	Purpose string
	Index   int
	Seed    [2]uint64
	Size    int
	Dim     int
	X       []float64
}

// Row is realization i: the time of every link in that episode's world.
func (p *Pool) Row(i int) []float64 { return p.X[i*p.Dim : (i+1)*p.Dim] }

// NewPool draws pool (network, purpose, index) of the given size. buf, if
// large enough, is reused for the realizations.
func NewPool(m *linktime.Gaussian, network, purpose string, index, size int, shift uint64, buf []float64) *Pool {
	seed := Seed(network, purpose, index, shift)
	rng := rand.New(rand.NewPCG(seed[0], seed[1]))
	return &Pool{Purpose: purpose, Index: index, Seed: seed, Size: size, Dim: m.Dim(), X: m.SampleN(rng, size, buf)}
}

// Stream is the training stream: successive batches of fresh realizations
// (purpose Train, index = batch number), disjoint from the validation and
// test pools. Learners draw from it and nothing else.
type Stream struct {
	model   *linktime.Gaussian
	network string
	shift   uint64
	next    int
}

// NewStream starts the training stream of a network and benchmark instance.
func NewStream(m *linktime.Gaussian, network string, shift uint64) *Stream {
	return &Stream{model: m, network: network, shift: shift}
}

// Next draws the next batch of size realizations.
func (s *Stream) Next(size int) *Pool {
	p := NewPool(s.model, s.network, Train, s.next, size, s.shift, nil)
	s.next++
	return p
}

// NextLazy is Next for a learner that reads only the links its episodes
// cross: the same realizations, each link made when read.
func (s *Stream) NextLazy(size int) *linktime.LazyN {
	seed := Seed(s.network, Train, s.next, s.shift)
	s.next++
	return s.model.SampleLazyN(rand.New(rand.NewPCG(seed[0], seed[1])), size)
}
