package linktime

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
)

// Marginal is one link's law alone, as its law gives it: what the data
// page draws against the link's observed times.
type Marginal struct {
	m, s, floor float64
	w           *Warp
}

// LinkMarginal is link l's marginal law under the named law.
func LinkMarginal(law string, l engine.Link) (Marginal, error) {
	lw, err := LawByName(law)
	if err != nil {
		return Marginal{}, err
	}
	m, s, f, w := lw.linkLatent(l)
	return Marginal{m, s, f, w}, nil
}

// Quantile is the time below which the law puts probability p.
func (mg Marginal) Quantile(p float64) float64 {
	y := mg.m + mg.s*distuv.UnitNormal.Quantile(p)
	if mg.w != nil {
		return mg.w.TimeAt((y - mg.m) / mg.s)
	}
	return math.Max(y, mg.floor)
}

// PDF is the density of the law's continuous part at x (a censored
// normal's floor holds an atom of mass CDF(floor) besides).
func (mg Marginal) PDF(x float64) float64 {
	switch {
	case mg.w != nil:
		if x <= 0 {
			return 0
		}
		z := mg.w.LatentOf(x)
		return normPDF(z) / (x * mg.w.Slope(z))
	case x < mg.floor || mg.s == 0:
		return 0
	}
	return normPDF((x-mg.m)/mg.s) / mg.s
}
