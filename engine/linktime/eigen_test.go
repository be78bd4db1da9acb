package linktime

import (
	"fmt"
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
	needLapack(t)
	// A matrix past lapackFrom with the large cases (11 s); 300 in make
	// test checks the same dsyevd call (testenv.IsLarge's rule: testenv
	// imports this package).
	n := 300
	if !testing.Short() && os.Getenv("ONTIME_LARGE_TESTS") == "1" {
		n = lapackFrom + 100
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

func needLapack(t *testing.T) {
	if lapackLibrary() == "" {
		const what = "a LAPACK library (liblapack.so.3 or libopenblas.so.0: scripts/setup.sh installs libopenblas0-pthread) and cgo"
		if os.Getenv("CI") != "" { // testenv.Missing's rule; testenv imports this package
			t.Fatalf("CI is set and a test dependency is missing: %s", what)
		}
		t.Skipf("skipping: missing %s", what)
	}
}

// The BLAS's F Fᵀ (the dense models' correlation summary above
// lapackFrom) is gonum's product up to rounding, on a strided F, and the
// summary itself agrees with gonum's to rounding.
func TestLapackGramMatchesGonum(t *testing.T) {
	needLapack(t)
	rng := rand.New(rand.NewPCG(5, 6))
	n, k := lapackFrom+37, 29
	wide := mat.NewDense(n, k+3, nil)
	for i := range n {
		for j := range k + 3 {
			wide.Set(i, j, rng.NormFloat64())
		}
	}
	F := wide.Slice(0, n, 1, k+1).(*mat.Dense) // stride k+3
	c, ok := lapackGram(F)
	if !ok {
		t.Fatal("dsyrk not found")
	}
	var want mat.Dense
	want.Mul(F, F.T())
	worst := 0.0
	for i := range n {
		for j := range i + 1 {
			worst = math.Max(worst, math.Abs(c[i*n+j]-want.At(i, j))/math.Sqrt(want.At(i, i)*want.At(j, j)))
		}
	}
	if worst > 1e-13 {
		t.Errorf("dsyrk against gonum: worst relative difference %.2g, want ≤ 1e-13", worst)
	}
	g := &Gaussian{F: mat.DenseCopyOf(F), Mean: make([]float64, n), SD: make([]float64, n)}
	for i := range g.SD {
		g.SD[i] = 1
	}
	mean, maxAbs := g.corrSummary()
	g.F = mat.DenseCopyOf(g.F.Slice(0, lapackFrom, 0, k)) // gonum's path
	g.Mean, g.SD = g.Mean[:lapackFrom], g.SD[:lapackFrom]
	gm, gmax := g.corrSummary()
	if mean < 0.1 || maxAbs > 1 || math.Abs(mean-gm) > 0.01 || gmax > maxAbs+1e-15 {
		t.Errorf("summary above lapackFrom %.4f / %.4f, below it %.4f / %.4f", mean, maxAbs, gm, gmax)
	}
}

// BenchmarkDenseModel: the dense models at their limit, DenseLinkLimit
// links, built whole (covariance, eigendecomposition, factor and the
// correlation summary) with the solver symEigen picks here;
// ONTIME_NO_LAPACK=1 measures gonum's. Issue 47's target is 10 s each on
// two cores.
func BenchmarkDenseModel(b *testing.B) {
	const side = 45 // 3,960 links
	for _, net := range []*engine.Network{
		chain(DenseLinkLimit, 2, 0.36, engine.Correlation{Model: RandomPSD, Seed: 1}),
		grid(side, engine.Correlation{Model: Spatial, Strength: 0.5, Length: 3000}),
	} {
		b.Run(fmt.Sprintf("%s-%d", net.Correlation.Model, len(net.Links)), func(b *testing.B) {
			b.Logf("solver: %s", EigenSolver(len(net.Links)))
			for range b.N {
				if _, err := New(net); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
