package reliability

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// sampleRate is a fixed route's on-time count on a pool: the times drawn
// at or under the budget.
func sampleRate(times []float64) RateAt {
	s := slices.Clone(times)
	sort.Float64s(s)
	return func(_ context.Context, b float64) (int, int, error) {
		return sort.Search(len(s), func(i int) bool { return s[i] > b }), len(s), nil
	}
}

// On a fixed route the least budget reaching α on a pool is the pool's
// ⌈αn⌉-th smallest time (to the resolution), and the interval covers the
// law's own α-quantile about 95% of the time: tried on 300 pools of
// log-normal times at three targets.
func TestSearchFindsTheSampleQuantile(t *testing.T) {
	const n, tol = 2000, 1e-3
	law := distuv.LogNormal{Mu: math.Log(30), Sigma: 0.3}
	for _, alpha := range []float64{0.5, 0.9, 0.95} {
		truth := law.Quantile(alpha)
		covered, pools := 0, 300
		for seed := range pools {
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			times := make([]float64, n)
			for i := range times {
				times[i] = math.Exp(law.Mu + law.Sigma*rng.NormFloat64())
			}
			b, err := Search(context.Background(), sampleRate(times), alpha, 200, tol)
			if err != nil {
				t.Fatal(err)
			}
			sort.Float64s(times)
			want := times[int(math.Ceil(alpha*n))-1]
			if b.Budget < want || b.Budget > want+tol {
				t.Fatalf("α %v, pool %d: budget %.5f, the pool's %d-th time is %.5f", alpha, seed, b.Budget, int(math.Ceil(alpha*n)), want)
			}
			if b.Rate < alpha || b.N != n || b.Hi == nil || !(b.Lo <= b.Budget && b.Budget <= *b.Hi) {
				t.Fatalf("α %v, pool %d: %+v", alpha, seed, b)
			}
			if b.Lo <= truth && truth <= *b.Hi {
				covered++
			}
		}
		share := float64(covered) / float64(pools)
		t.Logf("α %v: the law's quantile %.3f min inside the 95%% interval on %d of %d pools", alpha, truth, covered, pools)
		if share < 0.90 || share > 0.995 {
			t.Errorf("α %v: coverage %.3f, want about 0.95", alpha, share)
		}
	}
}

func TestSearchRefuses(t *testing.T) {
	r := sampleRate([]float64{10, 20, 30, 40})
	for _, tc := range []struct {
		alpha, max float64
		want       string
	}{
		{0, 100, "between 0 and 1"},
		{1, 100, "between 0 and 1"},
		{math.NaN(), 100, "between 0 and 1"},
		{0.9, 35, "out of reach within 35 min: the rate there is 0.7500 (3 of 4 episodes)"},
		{0.9, 0, "must be positive"},
	} {
		_, err := Search(context.Background(), r, tc.alpha, tc.max, 0.01)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("α %v up to %v: %v, want %q", tc.alpha, tc.max, err, tc.want)
		}
	}
}

// A search stops when its context ends.
func TestSearchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	r := func(_ context.Context, b float64) (int, int, error) {
		calls++
		if calls == 3 {
			cancel()
		}
		return int(min(b, 100)), 100, nil
	}
	if _, err := Search(ctx, r, 0.5, 100, 1e-6); err != context.Canceled {
		t.Fatalf("err %v after %d calls, want context.Canceled", err, calls)
	}
}

// A search kept to a range [floor, max] (a learned policy's trained
// budgets) tries no budget outside it; finds the sample quantile where it
// lies inside; answers floor, marked, where the rate already reaches α
// there; and says how far the rate got at max where it does not reach α,
// as an OutOfReach cause.
func TestSearchInKeepsToItsRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	times := make([]float64, 1000)
	for i := range times {
		times[i] = 20 + 4*rng.NormFloat64()
	}
	var tried []float64
	base := sampleRate(times)
	rate := func(ctx context.Context, b float64) (int, int, error) {
		tried = append(tried, b)
		return base(ctx, b)
	}
	sort.Float64s(times)
	for _, c := range []struct {
		alpha, floor, max float64
		atFloor, reach    bool
	}{
		{0.95, 18, 30, false, true},
		{0.05, 18, 30, true, true},
		{0.99, 18, 24, false, false},
	} {
		tried = tried[:0]
		b, err := SearchIn(context.Background(), rate, c.alpha, c.floor, c.max, 1e-3)
		for _, x := range tried {
			if x < c.floor || x > c.max {
				t.Errorf("α %v: tried %v outside [%v, %v]", c.alpha, x, c.floor, c.max)
			}
		}
		if !c.reach {
			var far *OutOfReach
			if !errors.As(err, &far) || far.Max != c.max || far.Rate() >= c.alpha {
				t.Errorf("α %v within [%v, %v]: want an OutOfReach at %v, got %v", c.alpha, c.floor, c.max, c.max, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.AtFloor != c.atFloor || b.Floor != c.floor {
			t.Errorf("α %v: at floor %v (floor %v), want %v", c.alpha, b.AtFloor, b.Floor, c.atFloor)
		}
		want := times[int(math.Ceil(c.alpha*float64(len(times))))-1]
		if c.atFloor {
			want = c.floor
		}
		if b.Budget < want || b.Budget > want+1e-3 {
			t.Errorf("α %v: budget %v, want %v", c.alpha, b.Budget, want)
		}
	}
}
