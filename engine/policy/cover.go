package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Cover is what a trained model was trained for, as its card says: the OD
// pairs of its training and its budget factors (its network version is
// checked when the model is built: a model for another fingerprint is
// refused). Outside it a learned policy's number is not the method's own:
// every door (bench, Compare, Live, plan, the API, reports) asks Outside
// and says the reason beside the number, and searches over budgets stay
// inside Factors.
type Cover struct {
	Method  string
	ODs     []string  // the pairs trained, as the network writes them
	Factors []float64 // the trained budget factors' least and greatest; nil: any
}

// Cover is the card's cover for method.
func (c *ModelCard) Cover(method string) *Cover {
	cv := &Cover{Method: method, ODs: c.ODs}
	if len(c.BudgetFactors) > 0 {
		cv.Factors = []float64{slices.Min(c.BudgetFactors), slices.Max(c.BudgetFactors)}
	}
	return cv
}

// coverSlack is how far a budget factor may lie outside the trained range
// and count as inside: factors typed with two decimals.
const coverSlack = 1e-9

// Outside says why od at budget factor lies outside the cover; "" inside.
func (c *Cover) Outside(net *engine.Network, od engine.OD, factor float64) string {
	if why := c.OutsidePair(net, od); why != "" {
		return why
	}
	if lo, hi, ok := c.Range(); ok && !inRange(factor, lo, hi) {
		return fmt.Sprintf("outside %s's training range: it was trained for budgets %.2f–%.2f × LET; %.2f is outside", c.Method, lo, hi, factor)
	}
	return ""
}

// inRange says whether a budget factor lies in [lo, hi], up to coverSlack.
func inRange(factor, lo, hi float64) bool {
	return factor >= lo-coverSlack && factor <= hi+coverSlack
}

// OutsidePair says why od is not among the pairs trained; "" when it is.
func (c *Cover) OutsidePair(net *engine.Network, od engine.OD) string {
	s := net.ODString(od)
	if len(c.ODs) == 0 || slices.Contains(c.ODs, s) {
		return ""
	}
	if len(c.ODs) > 12 {
		return fmt.Sprintf("outside %s's training: it was trained for %d OD pairs; %s is not one of them", c.Method, len(c.ODs), s)
	}
	return fmt.Sprintf("outside %s's training: it was trained for OD pairs %s; %s is not one of them", c.Method, strings.Join(c.ODs, ", "), s)
}

// Range is the trained budget factors' least and greatest (ok false: any).
func (c *Cover) Range() (lo, hi float64, ok bool) {
	if len(c.Factors) != 2 {
		return 0, 0, false
	}
	return c.Factors[0], c.Factors[1], true
}

// CoverOf is the cover of method on env's network: nil for a method that
// is not trained for a cover (planners, bounds, a model with no card).
func CoverOf(env *Env, method string) *Cover {
	m, err := Lookup(method)
	if err != nil || m.Cover == nil {
		return nil
	}
	return m.Cover(env)
}
