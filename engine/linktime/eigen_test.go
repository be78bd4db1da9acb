package linktime

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
)

func randomSym(n int, seed uint64) *mat.SymDense {
	rng := rand.New(rand.NewPCG(seed, 9))
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 2*rng.Float64()-1)
		}
	}
	return s
}

// The system's LAPACK and gonum decompose the same matrix alike: the same
// eigenvalues, and (signs fixed) the same eigenvectors, up to rounding
// scaled by the gaps between eigenvalues; and A V = V Λ holds for LAPACK's.
func TestLapackEigenMatchesGonum(t *testing.T) {
	if lapackLibrary() == "" {
		const what = "a LAPACK library (liblapack.so.3 or libopenblas.so.0: scripts/setup.sh installs libopenblas0-pthread) and cgo"
		if os.Getenv("CI") != "" { // testenv.Missing's rule; testenv imports this package
			t.Fatalf("CI is set and a test dependency is missing: %s", what)
		}
		t.Skipf("skipping: missing %s", what)
	}
	n := lapackFrom + 100
	if testing.Short() {
		n = 300
	}
	a := randomSym(n, 1)
	lv, lvec, ok := lapackEigen(a)
	if !ok {
		t.Fatal("dsyevd failed")
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		t.Fatal("gonum failed")
	}
	gv := eig.Values(nil)
	var gvec mat.Dense
	eig.VectorsTo(&gvec)
	fixSigns(lvec)
	fixSigns(&gvec)
	norm := math.Max(math.Abs(gv[0]), math.Abs(gv[n-1]))
	worstVal, worstVec := 0.0, 0.0
	for k := range n {
		worstVal = math.Max(worstVal, math.Abs(lv[k]-gv[k])/norm)
		gap := math.Inf(1)
		if k > 0 {
			gap = gv[k] - gv[k-1]
		}
		if k+1 < n {
			gap = math.Min(gap, gv[k+1]-gv[k])
		}
		for i := range n {
			// a perturbation δ moves an eigenvector by about δ/gap
			worstVec = math.Max(worstVec, math.Abs(lvec.At(i, k)-gvec.At(i, k))*gap/norm)
		}
	}
	t.Logf("%d × %d (%s): eigenvalues differ by %.2g of the largest, eigenvectors by %.2g", n, n, lapackLibrary(), worstVal, worstVec)
	if worstVal > 1e-12 || worstVec > 1e-12 {
		t.Errorf("LAPACK against gonum: eigenvalues differ by %.2g of the largest, eigenvectors by %.2g (scaled by gap/‖A‖); want ≤ 1e-12", worstVal, worstVec)
	}
	var av, vl mat.Dense
	av.Mul(a, lvec)
	vl.Mul(lvec, mat.NewDiagDense(n, lv))
	av.Sub(&av, &vl)
	if r := mat.Norm(&av, math.Inf(1)) / norm; r > 1e-10 {
		t.Errorf("‖A V − V Λ‖∞ / ‖A‖ = %.2g", r)
	}
}

// BenchmarkDenseModel: a dense random-psd model of 3,000 links built (the
// eigendecomposition and everything after it), with the solver symEigen
// picks here; ONTIME_NO_LAPACK=1 measures gonum's.
func BenchmarkDenseModel(b *testing.B) {
	net := chain(3000, 2, 0.36, engine.Correlation{Model: RandomPSD, Seed: 1})
	b.Logf("solver: %s", EigenSolver(3000))
	for range b.N {
		if _, err := New(net); err != nil {
			b.Fatal(err)
		}
	}
}
