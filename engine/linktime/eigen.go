package linktime

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// lapackFrom is the size above which a symmetric eigendecomposition goes to
// the system's LAPACK (dsyevd, divide and conquer, threaded BLAS) when it
// can be loaded: gonum's QL iteration takes about two and a half minutes
// at 3,000 links on two cores, dsyevd a few seconds. At and below it gonum
// decomposes, so the published networks (Sioux Falls' 76 links, Anaheim's
// 914) keep their factors, and so their pools, bit for bit.
const lapackFrom = 1000

// LapackOffVar set to 1 keeps every decomposition on gonum.
const LapackOffVar = "ONTIME_NO_LAPACK"

// symEigen returns the eigenvalues of a (ascending) and its eigenvectors as
// columns. Above lapackFrom each eigenvector's sign is fixed (its largest
// entry positive), so that the factor, and the draws made from it, do not
// depend on which solver ran.
func symEigen(a *mat.SymDense) ([]float64, *mat.Dense, bool) {
	big := a.SymmetricDim() > lapackFrom
	if big {
		if vals, vecs, ok := lapackEigen(a); ok {
			fixSigns(vecs)
			return vals, vecs, true
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return nil, nil, false
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	if big {
		fixSigns(&vecs)
	}
	return eig.Values(nil), &vecs, true
}

// fixSigns makes each column's entry of largest magnitude positive (the
// first of equals).
func fixSigns(v *mat.Dense) {
	r, c := v.Dims()
	raw := v.RawMatrix()
	for j := range c {
		best, at := 0.0, 0
		for i := range r {
			if x := math.Abs(raw.Data[i*raw.Stride+j]); x > best {
				best, at = x, i
			}
		}
		if raw.Data[at*raw.Stride+j] < 0 {
			for i := range r {
				raw.Data[i*raw.Stride+j] = -raw.Data[i*raw.Stride+j]
			}
		}
	}
}

// EigenSolver names what decomposes a symmetric matrix of n rows here:
// "gonum", or the LAPACK library loaded.
func EigenSolver(n int) string {
	if n > lapackFrom {
		if lib := lapackLibrary(); lib != "" {
			return lib
		}
	}
	return "gonum"
}
