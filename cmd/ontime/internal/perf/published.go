package perf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/lab"
)

// samePublished compares a report's on-time rates with the network's
// published report (engine/lab/published), pool by pool on every OD pair
// and budget, for the methods both have, and says what it found: making
// the benchmark faster must leave every number where it was.
func samePublished(c *Config, rep *bench.Report) string {
	l := lab.New(lab.Options{DataDir: c.DataDir})
	defer l.Close()
	n, err := l.Open(rep.Network)
	if err != nil {
		return fmt.Sprintf("Not compared with the published report: %v.", err)
	}
	pub, err := n.Published()
	switch {
	case err != nil:
		return fmt.Sprintf("Not compared with the published report: %v.", err)
	case pub == nil:
		return "No published report for this network to compare with."
	}
	return comparePublished(rep, pub)
}

// comparePublished is samePublished's verdict on two reports.
func comparePublished(rep, pub *bench.Report) string {
	type key struct {
		method, od string
		budget     float64
	}
	published := map[key][]float64{}
	for _, s := range pub.PerOD {
		published[key{s.Method, s.OD, s.Budget}] = s.PoolMeans
	}
	var methods, differ []string
	rates := 0
	for _, s := range rep.PerOD {
		p, ok := published[key{s.Method, s.OD, s.Budget}]
		if !ok {
			continue
		}
		if !slices.Contains(methods, s.Method) {
			methods = append(methods, s.Method)
		}
		rates += len(s.PoolMeans)
		if !slices.Equal(p, s.PoolMeans) {
			differ = append(differ, fmt.Sprintf("%s on %s at %g", s.Method, s.OD, s.Budget))
		}
	}
	switch {
	case len(methods) == 0:
		return "**No method in common with the published report**: nothing compared."
	case len(differ) > 0:
		return fmt.Sprintf("**On-time rates differ from the published report** (engine/lab/published/%s.json) in %d of %d (method, OD pair, budget) cells: %s.",
			rep.Network, len(differ), rates/max(1, len(rep.Provenance.Pools)), strings.Join(differ, "; "))
	}
	return fmt.Sprintf("On-time rates: all %d (pool, OD pair, budget) rates of each of the %d methods (%s) are those of the published report (engine/lab/published/%s.json), bit for bit.",
		rates/len(methods), len(methods), strings.Join(methods, ", "), rep.Network)
}
