package fit

import (
	"math/rand/v2"
	"strconv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Simulate draws days joint realizations of net's law as observations (ids
// "1", "2", …), each link's time missing on a day with probability
// missing: what a recovery check fits back, and a demonstration's data.
func Simulate(net *engine.Network, days int, missing float64, seed uint64) (*Observations, error) {
	model, err := linktime.New(net)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x7265636f76)) // "recov"
	n := len(net.Links)
	o := &Observations{File: "simulated", Links: make([][]Obs, n)}
	row := make([]float64, n)
	for d := range days {
		o.Days = append(o.Days, strconv.Itoa(d+1))
		row = model.SampleN(rng, 1, row)
		for e, x := range row {
			if missing > 0 && rng.Float64() < missing {
				continue
			}
			o.Links[e] = append(o.Links[e], Obs{Day: d, Time: x, Line: 2 + o.Rows})
			o.Rows++
		}
	}
	return o, nil
}

// SimulateDay draws days of net's law over the day as traversals: each
// link entered perDay times a day at clock times uniform over the day (to
// the minute, as a file's HH:MM), its time the day's draw read at that
// time. One static draw a day serves every traversal, as the law says.
func SimulateDay(net *engine.Network, days, perDay int, seed uint64) (*Observations, error) {
	if !net.Timed() {
		return nil, engine.Errorf(engine.EINVALID, "%s has no law over the day to draw traversals from", net.Name)
	}
	model, err := linktime.New(net)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6461792d6f6273)) // "day-obs"
	n := len(net.Links)
	o := &Observations{File: "simulated", Links: make([][]Obs, n), Timed: true}
	row := make([]float64, n)
	for d := range days {
		o.Days = append(o.Days, strconv.Itoa(d+1))
		row = model.SampleN(rng, 1, row)
		for e, x := range row {
			for range perDay {
				t := float64(rng.IntN(engine.MinutesPerDay))
				o.Links[e] = append(o.Links[e], Obs{Day: d, Time: net.Clock.Time(e, t, x, net.Links[e].Mean), Line: 2 + o.Rows, Clock: t})
				o.Rows++
			}
		}
	}
	return o, nil
}
