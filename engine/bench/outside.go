package bench

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine/policy"
)

// outsideCells lists the cells of cfg's methods that lie outside their
// training cover, or whose episodes were handed to a fallback (handed:
// method × task, summed over the pools), in method, OD, budget order.
func outsideCells(cfg Config, rep *Report, handed [][]int) []OutsideCell {
	env := &policy.Env{Net: cfg.Net, ModelsDir: cfg.Models}
	nB := len(cfg.Budgets)
	var out []OutsideCell
	for mi, m := range cfg.Methods {
		cover := policy.CoverOf(env, m)
		for oi, od := range cfg.ODs {
			for bi, f := range cfg.Budgets {
				c := OutsideCell{Method: m, OD: rep.ODs[oi].OD, Budget: f, HandedOver: handed[mi][oi*nB+bi], Episodes: cfg.Pools * cfg.PoolSize}
				if cover != nil {
					c.Reason = cover.Outside(cfg.Net, od, f)
				}
				if c.Reason == "" && c.HandedOver == 0 {
					continue
				}
				if c.HandedOver > 0 {
					c.Fallback = policy.Fallback
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// Said is the cell's note as a report prints it.
func (c OutsideCell) Said() string {
	s := c.Reason
	if c.HandedOver > 0 {
		if s != "" {
			s += "; "
		}
		s += fmt.Sprintf("%d of %d episodes handed over to %s where the model could no longer arrive within the step cap", c.HandedOver, c.Episodes, c.Fallback)
	}
	return s
}
