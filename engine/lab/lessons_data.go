package lab

import (
	"context"
	"math"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
)

// The data lesson: Ringtown's roads under the log-normal law, 1,000 days
// of probe times simulated by the product, fitted back as a user's would
// be; a route's days split by how its first links went.
const (
	dataLesson      = "data"
	dataLessonDays  = 1000
	dataLessonFirst = 3 // the links "seen so far"
	dataLessonSeed  = 45
)

// DataLesson is the data lesson's figure: each day's time on the route's
// first links and on the rest, the quarters of the first links' times, the
// whole route's times as a histogram against the Gaussian of the same mean
// and SD (the skew), and the fitted law's summary.
type DataLesson struct {
	Network string    `json:"network"`
	OD      string    `json:"od"`
	Links   int       `json:"links"` // on the route
	First   []float64 `json:"first"` // per day: its first links' time
	Rest    []float64 `json:"rest"`  // per day: the rest of the route's time
	// Quarters are the first links' time's quartiles (3 cut points).
	Quarters [3]float64 `json:"quarters"`
	// Total's histogram, and the moments a Gaussian reading would use.
	Bins        []Bar          `json:"bins"`
	Mean        float64        `json:"mean"`
	SD          float64        `json:"sd"`
	Median      float64        `json:"median"`
	Skew        float64        `json:"skew"`
	Correlation float64        `json:"correlation"` // of first and rest, over the days
	Families    map[string]int `json:"families"`    // the fit's families, by links
	Rank        int            `json:"rank"`        // the fit's factor rank
	// Conditions and Marginal are the methods that use what the first
	// links took and those that plan with each link's own law (the
	// registry's roles in this lesson).
	Conditions []MethodWord `json:"conditions"`
	Marginal   []MethodWord `json:"marginal"`
}

// DataLesson is the data lesson's figure. It is the same on every visit
// (a fixed network, law and seed), so it is computed once, on the first
// (a second or two: the simulation and the fit).
func (l *Lab) DataLesson(ctx context.Context) (*DataLesson, error) { return dataLessonOnce() }

var dataLessonOnce = sync.OnceValues(computeDataLesson)

func computeDataLesson() (*DataLesson, error) {
	net, err := builtin.Load(builtin.Ringtown, "")
	if err != nil {
		return nil, err
	}
	net.Law = linktime.LogNormalLaw
	obs, err := fit.Simulate(net, dataLessonDays, 0, dataLessonSeed)
	if err != nil {
		return nil, err
	}
	_, rep, err := fit.Fit(net, obs)
	if err != nil {
		return nil, err
	}
	od := net.ODs[0]
	path := net.LET(od.Destination).Path(od.Origin, net)
	if len(path) <= dataLessonFirst {
		return nil, engine.Errorf(engine.EINTERNAL, "the data lesson's route has %d links", len(path))
	}
	d := &DataLesson{Network: net.Name + " (log-normal roads, " + strconv.Itoa(dataLessonDays) + " simulated days)", OD: net.ODString(od), Links: len(path),
		Families: map[string]int{}, Rank: rep.Rank,
		Conditions: MethodWords(policy.LessonNames(dataLesson, "conditions")), Marginal: MethodWords(policy.LessonNames(dataLesson, "marginal"))}
	for _, lr := range rep.Links {
		d.Families[lr.Family]++
	}
	day := make([]float64, len(net.Links))
	var total []float64
	for k := range obs.Days {
		for e, xs := range obs.Links {
			day[e] = xs[k].Time // nothing missing: link e's k-th observation is day k
		}
		first, rest := 0.0, 0.0
		for i, e := range path {
			if i < dataLessonFirst {
				first += day[e]
			} else {
				rest += day[e]
			}
		}
		d.First, d.Rest = append(d.First, first), append(d.Rest, rest)
		total = append(total, first+rest)
	}
	sorted := slices.Clone(d.First)
	slices.Sort(sorted)
	for q := range 3 {
		d.Quarters[q] = sorted[(q+1)*len(sorted)/4]
	}
	d.Mean, d.SD = stat.MeanStdDev(total, nil)
	s := slices.Clone(total)
	slices.Sort(s)
	d.Median = s[len(s)/2]
	m3 := 0.0
	for _, x := range total {
		m3 += math.Pow((x-d.Mean)/d.SD, 3)
	}
	d.Skew = m3 / float64(len(total))
	lo, hi := s[0], s[len(s)-1]
	const bins = 30
	w := (hi - lo) / bins
	counts := make([]int, bins)
	for _, x := range total {
		counts[min(int((x-lo)/w), bins-1)]++
	}
	for b, c := range counts {
		d.Bins = append(d.Bins, Bar{lo + float64(b)*w, lo + float64(b+1)*w, float64(c) / float64(len(total)) / w})
	}
	d.Correlation = stat.Correlation(d.First, d.Rest, nil)
	return d, nil
}
