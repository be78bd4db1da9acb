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
