package linktime

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// lapackFrom is the size above which a symmetric eigendecomposition goes to
// the system's LAPACK (dsyevd, divide and conquer, threaded BLAS) when it
// can be loaded: gonum's QL iteration takes about two and a half minutes
// at 3,000 links on two cores, dsyevd about 8 s at 4,000. At and below it gonum
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

// transposeBlock is the tile of the cache-blocked copies below: a tile of
// each matrix stays in cache while the other is read across its rows.
const transposeBlock = 64

// transpose writes the transpose of the row-major n × n src into dst.
func transpose(dst, src []float64, n int) {
	for i0 := 0; i0 < n; i0 += transposeBlock {
		for j0 := 0; j0 < n; j0 += transposeBlock {
			for i := i0; i < min(i0+transposeBlock, n); i++ {
				for j := j0; j < min(j0+transposeBlock, n); j++ {
					dst[j*n+i] = src[i*n+j]
				}
			}
		}
	}
}

// mirrorUpper copies the row-major n × n a's upper triangle onto its lower.
func mirrorUpper(a []float64, n int) {
	for i0 := 0; i0 < n; i0 += transposeBlock {
		for j0 := 0; j0 <= i0; j0 += transposeBlock {
			for i := i0; i < min(i0+transposeBlock, n); i++ {
				for j := j0; j < min(j0+transposeBlock, i); j++ {
					a[i*n+j] = a[j*n+i]
				}
			}
		}
	}
}

// fixSigns makes each column's entry of largest magnitude positive (the
// first of equals). It sweeps rows, not columns: a 4,000-link factor's
// columns are 32 KB apart.
func fixSigns(v *mat.Dense) {
	r, c := v.Dims()
	raw := v.RawMatrix()
	best, at := make([]float64, c), make([]int, c)
	for i := range r {
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if x = math.Abs(x); x > best[j] {
				best[j], at[j] = x, i
			}
		}
	}
	flip := make([]bool, c)
	any := false
	for j := range c {
		flip[j] = raw.Data[at[j]*raw.Stride+j] < 0
		any = any || flip[j]
	}
	if !any {
		return
	}
	for i := range r {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		for j, f := range flip {
			if f {
				row[j] = -row[j]
			}
		}
	}
}

// bigGram is F Fᵀ from the BLAS (lapackGram) when F has more than
// lapackFrom rows and the library is there.
func bigGram(F *mat.Dense) ([]float64, bool) {
	if n, _ := F.Dims(); n <= lapackFrom {
		return nil, false
	}
	return lapackGram(F)
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
