package policy

import "gonum.org/v1/gonum/stat/distuv"

// phiTable tabulates the standard normal CDF on [−phiMax, phiMax] in steps of
// phiStep, for linear interpolation with error below 1e-7: discretizing a
// conditional law at every decision (cdot) calls it thousands of times.
const (
	phiMax  = 9.0
	phiStep = 1.0 / 1024
)

var phiTable = func() []float64 {
	n := int(2*phiMax/phiStep) + 1
	t := make([]float64, n)
	for i := range t {
		t[i] = distuv.UnitNormal.CDF(-phiMax + float64(i)*phiStep)
	}
	return t
}()

// phi is the standard normal CDF by table lookup.
func phi(z float64) float64 {
	if z <= -phiMax {
		return 0
	}
	if z >= phiMax {
		return 1
	}
	x := (z + phiMax) / phiStep
	i := int(x)
	f := x - float64(i)
	if i+1 >= len(phiTable) {
		return 1
	}
	return phiTable[i] + f*(phiTable[i+1]-phiTable[i])
}
