package lab

import (
	"context"

	"github.com/ontime-routing/ontime/engine/depart"
	"github.com/ontime-routing/ontime/engine/policy"
)

// Depart answers the commuter's question on n's law over the day
// (depart.Ask): every method that knows the clock where q names none.
func (n *Net) Depart(ctx context.Context, q depart.Question) (*depart.Answer, error) {
	q.Net, q.Model = n.Net, n.Model
	if len(q.Methods) == 0 {
		q.Methods = policy.TimedMethods()
	}
	return depart.Ask(ctx, q)
}
