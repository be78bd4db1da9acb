package engine

import (
	"math"
	"math/rand/v2"
	"sort"
)

// DemandODs draws k pairs with a route in proportion to their trips,
// without replacement (Efraimidis–Spirakis: the k largest u^(1/w)), from
// seed: a busy pair is likely in, a quiet one rarely, as trips would pick
// them. Pairs in skip are left out.
func DemandODs(net *Network, k int, seed uint64, skip []OD) []OD {
	type keyed struct {
		od  OD
		key float64
	}
	taken := map[OD]bool{}
	for _, od := range skip {
		taken[od] = true
	}
	rng := rand.New(rand.NewPCG(seed, 0xdea4d))
	var all []keyed
	reach := map[int]*LETTree{}
	for _, d := range net.Demand {
		u := rng.Float64() // drawn for every row, so a pair's key does not depend on which others route
		if taken[d.OD] {
			continue
		}
		tree, ok := reach[d.OD.Destination]
		if !ok {
			tree = net.LET(d.OD.Destination)
			reach[d.OD.Destination] = tree
		}
		if tree.Hops[d.OD.Origin] < 0 {
			continue
		}
		all = append(all, keyed{d.OD, math.Log(u) / d.Trips})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].key > all[j].key })
	var out []OD
	for _, x := range all[:min(k, len(all))] {
		out = append(out, x.od)
	}
	return out
}
