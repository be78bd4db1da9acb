package linktime

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
)

// eigenFactor factors a symmetric positive semi-definite matrix A = F Fᵀ with
// F = V √Λ over the eigenvalues above a relative cutoff, so rank-deficient
// matrices (fixed-time links, the clipped random-PSD recipe) factor exactly
// where Cholesky would fail. Eigenvalues below -negTol·λmax are an error;
// smaller negative ones are rounding and are dropped (and counted).
func eigenFactor(a *mat.SymDense, negTol float64) (*mat.Dense, int, error) {
	vals, vecs, ok := symEigen(a)
	if !ok {
		return nil, 0, fmt.Errorf("eigendecomposition did not converge")
	}
	lmax := 0.0
	for _, v := range vals {
		lmax = math.Max(lmax, v)
	}
	n := len(vals)
	keep := make([]int, 0, n)
	clipped := 0
	for i, v := range vals {
		switch {
		case v < -negTol*lmax:
			return nil, 0, fmt.Errorf("matrix is not positive semi-definite (eigenvalue %.4g, largest %.4g)", v, lmax)
		case v < 0:
			clipped++
		case v > 1e-12*lmax:
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return mat.NewDense(n, 1, nil), clipped, nil
	}
	return scaledColumns(vecs, vals, keep), clipped, nil
}

// randomPSDFactor is the paper's random correlation: pairwise coefficients
// drawn U(−1, 1), the matrix symmetrized ((A+Aᵀ)/2, unit diagonal),
// projected onto the positive semi-definite cone by clipping negative
// eigenvalues to zero, and its diagonal renormalized to 1. It returns a
// factor L with C = L Lᵀ and the number of eigenvalues clipped.
func randomPSDFactor(n int, seed uint64) (*mat.Dense, int) {
	rng := rand.New(rand.NewPCG(seed, 0x7073645f636f7272)) // "psd_corr"
	a := make([]float64, n*n)
	for i := range a {
		a[i] = 2*rng.Float64() - 1
	}
	s := mat.NewSymDense(n, nil)
	sym := s.RawSymmetric()
	for i := range n {
		row := sym.Data[i*sym.Stride : i*sym.Stride+n]
		row[i] = 1
		for j := i + 1; j < n; j++ {
			row[j] = (a[i*n+j] + a[j*n+i]) / 2
		}
	}
	vals, vecs, _ := symEigen(s)
	var keep []int
	clipped := 0
	for i, v := range vals {
		if v > 0 {
			keep = append(keep, i)
		} else {
			clipped++
		}
	}
	L := scaledColumns(vecs, vals, keep)
	normalizeRows(L)
	return L, clipped
}

// scaledColumns is the factor V_keep diag(√λ_keep): the kept eigenvectors
// (columns of vecs) each scaled by the root of its eigenvalue, built row
// by row.
func scaledColumns(vecs *mat.Dense, vals []float64, keep []int) *mat.Dense {
	n, _ := vecs.Dims()
	root := make([]float64, len(keep))
	for c, k := range keep {
		root[c] = math.Sqrt(vals[k])
	}
	F := mat.NewDense(n, len(keep), nil)
	for i := range n {
		src, dst := vecs.RawRowView(i), F.RawRowView(i)
		for c, k := range keep {
			dst[c] = src[k] * root[c]
		}
	}
	return F
}

// normalizeRows scales each row of L to unit length, so L Lᵀ has a unit
// diagonal: D^{-1/2} C D^{-1/2} in factored form.
func normalizeRows(L *mat.Dense) {
	n, _ := L.Dims()
	for i := range n {
		row := L.RawRowView(i)
		norm := 0.0
		for _, v := range row {
			norm += v * v
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for k := range row {
			row[k] /= norm
		}
	}
}

// spatialFactor builds the spatial correlation ρ_ij = strength·exp(−d_ij/length)
// between distinct links, d_ij the distance between link midpoints in the
// drawing frame. The exponential kernel is positive definite in the plane, so
// for strength ≤ 1 the matrix strength·K + (1−strength)·I is a valid
// correlation.
func spatialFactor(net *engine.Network, strength, length float64) (*mat.Dense, error) {
	if net.Coords == engine.CoordNone {
		return nil, engine.Errorf(engine.EINVALID, "network %s has no coordinates: spatial correlation needs them", net.Name)
	}
	if strength < 0 || strength > 1 || !(length > 0) {
		return nil, engine.Errorf(engine.EINVALID, "spatial correlation needs strength in [0,1] and a positive length (got %v, %v)", strength, length)
	}
	n := len(net.Links)
	mid := make([][2]float64, n)
	for e, l := range net.Links {
		a, b := net.Nodes[l.From], net.Nodes[l.To]
		mid[e] = [2]float64{(a.X + b.X) / 2, (a.Y + b.Y) / 2}
	}
	c := mat.NewSymDense(n, nil)
	for i := range n {
		c.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			d := math.Hypot(mid[i][0]-mid[j][0], mid[i][1]-mid[j][1])
			c.SetSym(i, j, strength*math.Exp(-d/length))
		}
	}
	L, _, err := eigenFactor(c, 1e-8)
	if err != nil {
		return nil, err
	}
	normalizeRows(L)
	return L, nil
}

// DefaultSpatialLength is a length scale of a tenth of the network's
// bounding-box diagonal, used when none is given.
func DefaultSpatialLength(net *engine.Network) float64 {
	minX, minY, maxX, maxY := extent(net)
	return math.Hypot(maxX-minX, maxY-minY) / 10
}
