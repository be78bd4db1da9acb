package policy

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// MLP is a one-hidden-layer perceptron, y = W₂·relu(W₁x + b₁) + b₂, small
// enough to write with its gradients by hand (SEGAC's networks). Inputs are
// sparse (one-hot node and destination plus a few numbers), so the first
// layer costs a few columns, not In.
type MLP struct {
	In, Hidden, Out int
	// P is W₁, b₁, W₂ (Out×Hidden), b₂. W₁ is stored by input (In×Hidden,
	// W₁ᵀ): an input's Hidden weights are contiguous, as the sparse first
	// layer reads and writes them a column at a time (by hidden unit they
	// were In apart: a cache line a weight on Anaheim).
	P []float64
}

// The sums of the form y += a·x (the first layer, and every gradient but
// the output rows') go through gonum's floats, whose vector loops multiply
// and add each element as the plain loops did (separately rounded, no
// fused multiply-add), so the weights are the same bits and run about
// twice as fast; a dot product's order would change in a vector loop, so
// the output rows keep theirs.

// Feat is one non-zero input.
type Feat struct {
	I int
	V float64
}

// NewMLP initializes weights uniformly in ±1/√fan-in.
func NewMLP(in, hidden, out int, rng *rand.Rand) *MLP {
	m := &MLP{In: in, Hidden: hidden, Out: out, P: make([]float64, hidden*in+hidden+out*hidden+out)}
	w1, _, w2, _ := m.parts(m.P)
	// Drawn in the order of W₁ by hidden unit, so a seed gives the
	// weights it gave before W₁ was stored by input.
	for h := range hidden {
		for i := range in {
			w1[i*hidden+h] = (2*rng.Float64() - 1) / math.Sqrt(float64(in))
		}
	}
	for i := range w2 {
		w2[i] = (2*rng.Float64() - 1) / math.Sqrt(float64(hidden))
	}
	return m
}

func (m *MLP) parts(p []float64) (w1, b1, w2, b2 []float64) {
	a := m.Hidden * m.In
	b := a + m.Hidden
	c := b + m.Out*m.Hidden
	return p[:a], p[a:b], p[b:c], p[c:]
}

// Forward computes the hidden pre-activations z (len Hidden) and the outputs
// y (len Out) for the rows listed in rows (nil: all outputs).
func (m *MLP) Forward(x []Feat, z, y []float64, rows []int) {
	w1, b1, w2, b2 := m.parts(m.P)
	z = z[:m.Hidden]
	copy(z, b1)
	for _, f := range x {
		floats.AddScaled(z, f.V, w1[f.I*m.Hidden:(f.I+1)*m.Hidden])
	}
	var buf [128]float64
	a := relu(z, buf[:0])
	out := func(o int) {
		s := b2[o]
		row := w2[o*m.Hidden : (o+1)*m.Hidden]
		row = row[:len(a)]
		for h, w := range row {
			s += w * a[h]
		}
		y[o] = s
	}
	if rows == nil {
		for o := range m.Out {
			out(o)
		}
		return
	}
	for _, o := range rows {
		out(o)
	}
}

// relu appends the hidden activations max(z, 0) to buf and returns them.
//
// The sums over hidden units run without a branch on whether a unit is
// active: a product with an inactive unit's +0 adds ±0, which leaves every
// sum as it was (a sum that starts at +0 never becomes −0 by rounding to
// nearest), so the results are bit for bit those of skipping the unit,
// and the sign of z no longer costs a mispredicted branch per unit
// (segac on Sioux Falls: 14.2 to 10.4 CPU-s, its 15 published cells the
// same).
func relu(z, buf []float64) []float64 {
	for _, v := range z {
		buf = append(buf, math.Float64frombits(math.Float64bits(v)&active(v)))
	}
	return buf
}

// active is all ones where v > 0 and 0 elsewhere (−0 and NaNs of either
// sign included), without a branch: v > 0 exactly when its bits, read as a
// signed integer b, are positive, i.e. when both ^b and −b are negative.
func active(v float64) uint64 {
	b := int64(math.Float64bits(v))
	return uint64((^b & -b) >> 63)
}

// Backward adds to grad (laid out as P) the gradient of Σ_o dy[o]·y[o] for
// the outputs in rows, given the forward pass's x and z. dz is scratch of
// len Hidden (nil: allocated here); training passes one buffer for all.
// Inactive units add ±0 (see relu).
func (m *MLP) Backward(x []Feat, z []float64, dy []float64, rows []int, grad, dz []float64) {
	_, _, w2, _ := m.parts(m.P)
	gw1, gb1, gw2, gb2 := m.parts(grad)
	if dz == nil {
		dz = make([]float64, m.Hidden)
	}
	dz = dz[:m.Hidden]
	clear(dz)
	var abuf [128]float64
	z = z[:m.Hidden]
	a := relu(z, abuf[:0])
	// dz sums every unit's terms; an inactive unit's sum is set to +0
	// after, which is what skipping its terms left.
	for _, o := range rows {
		d := dy[o]
		if d == 0 {
			continue
		}
		gb2[o] += d
		floats.AddScaled(gw2[o*m.Hidden:(o+1)*m.Hidden], d, a)
		floats.AddScaled(dz, d, w2[o*m.Hidden:(o+1)*m.Hidden])
	}
	for h, v := range z {
		dz[h] = math.Float64frombits(math.Float64bits(dz[h]) & active(v))
	}
	floats.Add(gb1, dz)
	for _, f := range x {
		floats.AddScaled(gw1[f.I*m.Hidden:(f.I+1)*m.Hidden], f.V, dz)
	}
}

// adam is the Adam optimizer over a flat parameter vector.
type adam struct {
	lr, b1, b2, eps float64
	m, v            []float64
	t               int
}

func newAdam(n int, lr float64) *adam {
	return &adam{lr: lr, b1: 0.9, b2: 0.999, eps: 1e-8, m: make([]float64, n), v: make([]float64, n)}
}

// step descends along grad (the gradient of a loss to minimize).
func (a *adam) step(p, grad []float64) {
	a.t++
	c1 := 1 - math.Pow(a.b1, float64(a.t))
	c2 := 1 - math.Pow(a.b2, float64(a.t))
	for i, g := range grad {
		a.m[i] = a.b1*a.m[i] + (1-a.b1)*g
		a.v[i] = a.b2*a.v[i] + (1-a.b2)*g*g
		p[i] -= a.lr * (a.m[i] / c1) / (math.Sqrt(a.v[i]/c2) + a.eps)
	}
}
