package lab

import (
	"context"
	"math"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/sim"

	"gonum.org/v1/gonum/floats/scalar"
)

// The story on ringtown's first pair: the fastest route first, at least one
// other that is the most reliable somewhere on the grid, probabilities that
// grow with the budget, the page opening where the answers differ, and
// sampled distributions that agree with the exact moments.
func TestStoryRingtown(t *testing.T) {
	n, err := New(Options{}).Open(builtin.Ringtown)
	if err != nil {
		t.Fatal(err)
	}
	s, err := n.DefaultStory()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Routes) < 2 || !s.Routes[0].Fastest || s.Routes[1].Fastest {
		t.Fatalf("routes %+v", s.Routes)
	}
	k := -1
	for i, f := range s.Factors {
		if f == s.Factor {
			k = i
		}
	}
	if k < 0 || s.Best[k] == 0 {
		t.Fatalf("opens at %.2f, where the best route is %d", s.Factor, s.Best)
	}
	for _, r := range s.Routes {
		for i := 1; i < len(r.OnTime); i++ {
			if r.OnTime[i] < r.OnTime[i-1]-1e-12 {
				t.Fatalf("P(on time) falls as the budget grows: %v", r.OnTime)
			}
		}
		// The sample median is near the mean (Gaussian sums, floors rarely bind).
		med := r.Times[len(r.Times)/2]
		if !scalar.EqualWithinAbs(med, r.Mean, 3*r.SD/math.Sqrt(2000)+0.02*r.Mean) {
			t.Errorf("median %.3f, mean %.3f ± %.3f", med, r.Mean, r.SD)
		}
		if len(r.Drive) != len(r.Links) {
			t.Error("drive and links differ in length")
		}
		// The sampled trips are the pool's first days: as many as asked,
		// their on-time share within 3 binomial σ of the exact P.
		if len(r.Trips) != storyTrips {
			t.Fatalf("%d trips", len(r.Trips))
		}
		on := 0
		for _, x := range r.Trips {
			if x <= s.Factor*s.LETTime {
				on++
			}
		}
		p := r.OnTime[k]
		if got := float64(on) / storyTrips; math.Abs(got-p) > 3*math.Sqrt(p*(1-p)/storyTrips)+1e-3 {
			t.Errorf("trips on time %.3f, exact %.3f", got, p)
		}
	}
	if s.Other == 0 || s.Other != s.Best[k] {
		t.Errorf("the route shown beside the fastest is %d, the best at the opening %d", s.Other, s.Best[k])
	}
}

// The compare page's on-time rate of a fixed path equals counting, over
// the same common realizations, how often the path's time is within the
// budget; a second call is the cached value; the opening factor is the
// story's.
func TestOnTimeRateAndOpeningFactor(t *testing.T) {
	n, err := New(Options{}).Open(builtin.Ringtown)
	if err != nil {
		t.Fatal(err)
	}
	od, f := n.Opening()
	s, _ := n.Story(od)
	if f != s.Factor || f == 1 || len(s.Routes) < 2 {
		t.Errorf("opening at %s, factor %.2f, story's %.2f with %d routes", n.Net.ODString(od), f, s.Factor, len(s.Routes))
	}
	rate, ok, err := n.OnTimeRate(context.Background(), "let", od, f)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	budget := f * n.Net.LET(od.Destination).Time[od.Origin]
	path := n.Net.LET(od.Destination).Path(od.Origin, n.Net)
	pool := sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, 0, RateSize, 0, nil)
	k := 0
	for i := range pool.Size {
		sum := 0.0
		for _, l := range path {
			sum += pool.Row(i)[l]
		}
		if sum <= budget {
			k++
		}
	}
	if want := float64(k) / RateSize; rate != want {
		t.Errorf("let's rate %.4f, counted %.4f", rate, want)
	}
	again, _, _ := n.OnTimeRate(context.Background(), "let", od, f)
	if again != rate {
		t.Error("the cached rate differs")
	}
	// The trips the compare page drives are those days: day i's arrival
	// is the path's sum on row i when within the budget, else NaN (the
	// episode stopped when its budget ran out), and they count to the rate.
	trips, _, _ := n.OnTimeTrips(context.Background(), "let", od, f)
	on := 0
	for i, x := range trips.Times {
		sum := 0.0
		for _, l := range path {
			sum += pool.Row(i)[l]
		}
		switch {
		case sum <= budget && math.Abs(x-sum) > 1e-9:
			t.Fatalf("day %d: trip %.4f, path's sum %.4f", i, x, sum)
		case sum > budget && !math.IsNaN(x):
			t.Fatalf("day %d: late trip %.4f given an arrival (sum %.4f > %.4f)", i, x, sum, budget)
		}
		if x <= budget {
			on++
		}
	}
	if float64(on)/RateSize != trips.Rate || len(trips.Times) != RateSize {
		t.Errorf("%d trips, %d on time, rate %.4f", len(trips.Times), on, trips.Rate)
	}
}
