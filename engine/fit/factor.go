package fit

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The factor model's fixed rules.
const (
	// maxRank bounds the ranks cross-validation compares (rankCandidates,
	// 0: the links independent), as do a quarter of the observations and
	// the links less one; the comparison stops once the held-out error has
	// risen twice in a row (it is U-shaped: the larger ranks only fit noise).
	maxRank = 64
	// HeldOut is the share of observed scores held out to choose the rank.
	HeldOut = 0.1
	// imputeSteps bounds the hard-impute rounds per rank; they stop once
	// the filled entries move by less than imputeTol of their size.
	imputeSteps = 60
	imputeTol   = 1e-3
	// MaxCommunality caps a link's share of variance in the factors, so
	// that every link keeps some variance of its own.
	MaxCommunality = 0.98
)

var rankCandidates = []int{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}

// RankScore is a candidate rank's mean squared error on the held-out
// normal scores (rank 0 predicts 0, so its error is their variance).
type RankScore struct {
	Rank int     `json:"rank"`
	MSE  float64 `json:"held_out_mse"`
}

type factorModel struct {
	rank      int
	explained float64
	scores    []RankScore
}

// factorFit fits the normal scores' correlation as a low-rank factor model
// R = L Lᵀ + diag(1 − |L_e|²) from a days × links matrix with missing
// entries: the rank-K approximation by hard imputation (fill the missing
// entries from the current approximation, refit; Mazumder, Hastie and
// Tibshirani 2010 without the soft threshold), the rank chosen by the
// error on a held-out tenth of the observed scores. L_e = V_e S / √days.
// Links without scores get rows of zeros.
func factorFit(sc [][]Obs, days int) ([][]float64, factorModel) {
	n := len(sc)
	var cols []int // links with scores
	for e, xs := range sc {
		if len(xs) > 0 {
			cols = append(cols, e)
		}
	}
	fm := factorModel{}
	loadings := make([][]float64, n)
	if len(cols) < 2 || days < 4 {
		return loadings, fm
	}
	// Observed entries as (day, column, value), each column standardized
	// over its observations (int32 indices: a city's 13 million entries).
	type entry struct {
		d, c int32
		z    float64
	}
	var obs []entry
	for c, e := range cols {
		var s2 float64
		for _, o := range sc[e] {
			s2 += o.Time * o.Time
		}
		scale := 1 / math.Sqrt(s2/float64(len(sc[e])))
		for _, o := range sc[e] {
			obs = append(obs, entry{int32(o.Day), int32(c), o.Time * scale})
		}
	}
	rng := rand.New(rand.NewPCG(uint64(len(obs)), 0x6661637466697400)) // "factfit"
	held := make([]bool, len(obs))
	for i := range held {
		held[i] = rng.Float64() < HeldOut
	}
	X := mat.NewDense(days, len(cols), nil)
	seen := make([]bool, days*len(cols)) // observed and used
	fill := func(useHeld bool) {
		X.Zero()
		clear(seen)
		for i, o := range obs {
			if useHeld || !held[i] {
				X.Set(int(o.d), int(o.c), o.z)
				seen[int(o.d)*len(cols)+int(o.c)] = true
			}
		}
	}
	var work imputeWork
	limit := min(maxRank, days/4, len(cols)-1)
	bestK, bestMSE, rises := 0, math.Inf(1), 0
	for _, k := range rankCandidates {
		if k > limit {
			break
		}
		var A *mat.Dense
		if k > 0 {
			fill(false)
			A, _, _ = hardImpute(X, seen, k, rng, &work)
		}
		se, cnt := 0.0, 0
		for i, o := range obs {
			if !held[i] {
				continue
			}
			p := 0.0
			if A != nil {
				p = A.At(int(o.d), int(o.c))
			}
			se += (o.z - p) * (o.z - p)
			cnt++
		}
		mse := se / float64(max(cnt, 1))
		if len(fm.scores) > 0 && mse > fm.scores[len(fm.scores)-1].MSE {
			rises++
		} else {
			rises = 0
		}
		fm.scores = append(fm.scores, RankScore{k, mse})
		if mse < bestMSE {
			bestK, bestMSE = k, mse
		}
		if rises == 2 {
			break
		}
	}
	fm.rank = bestK
	for _, e := range cols {
		loadings[e] = make([]float64, bestK)
	}
	for e := range loadings {
		if loadings[e] == nil {
			loadings[e] = make([]float64, bestK)
		}
	}
	if bestK == 0 {
		return loadings, fm
	}
	fill(true)
	_, V, S := hardImpute(X, seen, bestK, rng, &work)
	total := 0.0
	for c, e := range cols {
		row := loadings[e]
		ss := 0.0
		for j := range bestK {
			row[j] = V.At(c, j) * S[j] / math.Sqrt(float64(days))
			ss += row[j] * row[j]
		}
		if ss > MaxCommunality {
			f := math.Sqrt(MaxCommunality / ss)
			for j := range row {
				row[j] *= f
			}
			ss = MaxCommunality
		}
		total += ss
	}
	fm.explained = total / float64(len(cols))
	return loadings, fm
}

// hardImpute returns the rank-k approximation A = U S Vᵀ of X whose
// unobserved entries (seen false, row-major) are filled from A itself: rounds of one block
// power step from the previous V (U = orth(Y V), Yᵀ U = P S Qᵀ, so Y ≈
// (U Q) S Pᵀ) and a refill, until the filled entries move by less than
// imputeTol of their size (or imputeSteps rounds).
func hardImpute(X *mat.Dense, seen []bool, k int, rng *rand.Rand, work *imputeWork) (*mat.Dense, *mat.Dense, []float64) {
	days, n := X.Dims()
	V := mat.NewDense(n, k, nil)
	for i := range n {
		for j := range k {
			V.Set(i, j, rng.NormFloat64())
		}
	}
	orthonormalize(V)
	Y, A := work.matrices(days, n)
	Y.Copy(X)
	U := mat.NewDense(days, k, nil)
	Bt := mat.NewDense(n, k, nil)
	S := make([]float64, k)
	for step := range imputeSteps {
		U.Mul(Y, V)
		orthonormalize(U)
		Bt.Mul(Y.T(), U)
		var svd mat.SVD
		svd.Factorize(Bt, mat.SVDThin)
		var P, Q mat.Dense
		svd.UTo(&P)
		svd.VTo(&Q)
		S = svd.Values(S)
		var UQ mat.Dense
		UQ.Mul(U, &Q)
		U.Copy(&UQ)
		V.Copy(&P)
		for j := range k { // U S
			for i := range days {
				UQ.Set(i, j, UQ.At(i, j)*S[j])
			}
		}
		A.Mul(&UQ, V.T())
		if step == imputeSteps-1 {
			break
		}
		a, y := A.RawMatrix(), Y.RawMatrix()
		var moved, size float64
		for i := range days {
			for j := range n {
				if !seen[i*n+j] {
					d := a.Data[i*a.Stride+j] - y.Data[i*y.Stride+j]
					moved += d * d
					size += a.Data[i*a.Stride+j] * a.Data[i*a.Stride+j]
					y.Data[i*y.Stride+j] = a.Data[i*a.Stride+j]
				}
			}
		}
		if step > 2 && moved <= imputeTol*imputeTol*size {
			break
		}
	}
	return A, V, S
}

// imputeWork holds hardImpute's two days × links matrices between calls
// (a city's are 116 MB each, and cross-validation calls it once a rank).
type imputeWork struct{ y, a *mat.Dense }

func (w *imputeWork) matrices(r, c int) (*mat.Dense, *mat.Dense) {
	if w.y == nil {
		w.y, w.a = mat.NewDense(r, c, nil), mat.NewDense(r, c, nil)
	}
	return w.y, w.a
}

// orthonormalize replaces the columns of A by an orthonormal basis of
// their span: modified Gram–Schmidt, twice (k is small; a full QR's Q would
// be rows × rows). A column that vanishes is left zero.
func orthonormalize(A *mat.Dense) {
	r, c := A.Dims()
	col := make([][]float64, c)
	for j := range c {
		col[j] = make([]float64, r)
		mat.Col(col[j], j, A)
	}
	for range 2 {
		for j := range c {
			for i := range j {
				floats.AddScaled(col[j], -floats.Dot(col[i], col[j]), col[i])
			}
			if nrm := floats.Norm(col[j], 2); nrm > 1e-300 {
				floats.Scale(1/nrm, col[j])
			}
		}
	}
	for j := range c {
		A.SetCol(j, col[j])
	}
}
