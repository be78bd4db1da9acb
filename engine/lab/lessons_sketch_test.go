package lab

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine/testenv"
)

// triangleSketch is the sketchpad's opening network: a direct link A→C
// fastest on average but spread, and a steadier way through B whose two
// links are correlated by rho.
func triangleSketch(rho float64) []byte {
	type link struct {
		From     string  `json:"from"`
		To       string  `json:"to"`
		Mean     float64 `json:"mean"`
		Variance float64 `json:"variance"`
	}
	links := []link{{"A", "C", 10, 16}, {"A", "B", 5, 1}, {"B", "C", 5.5, 1}}
	cov := make([][]float64, len(links))
	for i := range cov {
		cov[i] = make([]float64, len(links))
		cov[i][i] = links[i].Variance
	}
	cov[1][2], cov[2][1] = rho, rho // σ = 1 on both
	b, _ := json.Marshal(map[string]any{
		"format": "ontime-network", "version": 1, "name": "triangle", "coordinates": "planar",
		"nodes": []map[string]any{{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 1, "y": 1}, {"id": "C", "x": 2, "y": 0}},
		"links": links, "correlation": map[string]any{"model": "explicit", "covariance": cov},
	})
	return b
}

// Every method runs on a drawn triangle, and the rates obey what any
// correct implementation must: each fixed route's rate is its exact
// Gaussian probability within sampling error, the best fixed route is at
// least as good as the fastest, nothing beats the clairvoyant bound on the
// same days, and the model-running method is listed with its reason
// (-short: the correlated triangle only).
func TestRunSketch(t *testing.T) {
	// segac trains 2,500 iterations whatever the network (53 s of this
	// triangle under the race detector, 10 s in a plain run): it runs with
	// the large cases, every other method always.
	var methods []string
	if !testenv.IsLarge() {
		for _, m := range Methods() {
			if m.Name != "segac" {
				methods = append(methods, m.Name)
			}
		}
	}
	for _, rho := range testenv.Sized([]float64{0, 0.9}, []float64{0.9}) {
		res, err := New(Options{}).RunSketch(context.Background(), SketchRequest{Network: triangleSketch(rho), OD: "A-C", Factor: 1.1, Methods: methods})
		if err != nil {
			t.Fatal(err)
		}
		want := len(Methods())
		if methods != nil {
			want = len(methods)
		}
		if len(res.Rates) != want {
			t.Fatalf("rho %v: %d rates for %d methods asked: %+v", rho, len(res.Rates), want, res.Rates)
		}
		if res.LETTime != 10 || math.Abs(res.Budget-11) > 1e-12 || res.Clipped != 0 {
			t.Fatalf("rho %v: LET %v budget %v clipped %d", rho, res.LETTime, res.Budget, res.Clipped)
		}
		direct := distuv.UnitNormal.CDF(1.0 / 4)
		viaB := distuv.UnitNormal.CDF(0.5 / math.Sqrt(2+2*rho))
		rates := map[string]Rate{}
		for _, r := range res.Rates {
			rates[r.Method] = r
		}
		near := func(name string, p float64) {
			r := rates[name]
			if r.Err != "" || r.N != SketchEpisodes {
				t.Fatalf("rho %v: %s: %+v", rho, name, r)
			}
			if tol := 4 * math.Sqrt(p*(1-p)/float64(r.N)); math.Abs(r.Rate-p) > tol {
				t.Errorf("rho %v: %s rate %.4f, exact %.4f (tolerance %.4f)", rho, name, r.Rate, p, tol)
			}
		}
		near("let", direct)
		near("bestpath", max(direct, viaB))
		for _, r := range res.Rates {
			if r.Err == "" && r.OnTime > rates["clairvoyant"].OnTime {
				t.Errorf("rho %v: %s on time %d days, above the clairvoyant bound %d", rho, r.Method, r.OnTime, rates["clairvoyant"].OnTime)
			}
		}
		if r := rates["gpght"]; r.Err != SketchNeedsModel {
			t.Errorf("rho %v: gpght %+v", rho, r)
		}
		t.Logf("rho %v: %+v", rho, res.Rates)
	}
}

// Correlations that cannot all hold at once are reported, not hidden; a
// sketch over the bounds or with an unknown trip is refused by name.
func TestRunSketchBadInput(t *testing.T) {
	l := New(Options{})
	var big strings.Builder
	big.WriteString(`{"format":"ontime-network","version":1,"nodes":[`)
	for i := range MaxSketchNodes + 1 {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString(`{"id":"n` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"}`)
	}
	big.WriteString(`],"links":[],"correlation":{"model":"independent"}}`)
	for _, c := range []struct {
		net     []byte
		od      string
		methods []string
		want    string
	}{
		{[]byte(big.String()), "naa-nba", nil, "a sketch holds at most"},
		{triangleSketch(0), "A-Z", nil, `trip "A-Z"`},
		{[]byte(`{"format":"ontime-network"`), "A-C", nil, "the sketch"},
		{triangleSketch(0), "A-C", []string{"let", "fastest"}, `method "fastest" is not offered`},
	} {
		_, err := l.RunSketch(context.Background(), SketchRequest{Network: c.net, OD: c.od, Factor: 1.1, Methods: c.methods})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("od %s: error %v, want %q", c.od, err, c.want)
		}
	}
}
