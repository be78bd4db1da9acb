package sim

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/split"
)

// Crew plays a pool's episodes on several cores: the realizations split in
// contiguous parts, each played by its own Runner, side by side. The plan
// and Live ran one Runner, so a city's plan kept one core of two busy.
//
// A policy that decides each episode alone (Act, which the benchmark
// already calls from many goroutines at once) gives every episode the
// result one Runner gives it. A policy that decides its episodes together
// (a batched model: one inference a step for the whole batch) and an
// oracle (whose best times a Runner keeps per pool, for the next budget)
// run whole on the first Runner, as without a crew. Episodes see their
// realized history (a shuffled history reads another row of the whole
// pool, so it has no parts).
type Crew struct {
	runners []*Runner
}

// minPart is the fewest episodes a part plays: below it, starting a
// goroutine costs more than the part saves.
const minPart = 32

// NewCrew is a crew of size Runners (at least one) on net.
func NewCrew(net *engine.Network, size int) *Crew {
	c := &Crew{runners: make([]*Runner, max(1, size))}
	for i := range c.runners {
		c.runners[i] = &Runner{Net: net}
	}
	return c
}

// Runner is the crew's first Runner, for work that runs whole (RunTasks).
func (c *Crew) Runner() *Runner { return c.runners[0] }

// Run plays one episode per realization of pool and writes the results, as
// Runner.Run does.
func (c *Crew) Run(p engine.Policy, task Task, pool *Pool, out []Result) error {
	_, oracle := p.(engine.Oracle)
	_, batch := p.(engine.BatchPolicy)
	parts := min(len(c.runners), pool.Size/minPart)
	if oracle || batch || parts < 2 {
		return c.runners[0].Run(p, task, pool, out)
	}
	errs := make([]error, parts)
	split.Ranges(pool.Size, parts, func(k, a, b int) {
		defer func() {
			if v := recover(); v != nil {
				errs[k] = engine.PanicError("episodes", v) // a policy's bug fails the run, not the process
			}
		}()
		part := &Pool{Purpose: pool.Purpose, Index: pool.Index, Seed: pool.Seed, Size: b - a, Dim: pool.Dim, X: pool.X[a*pool.Dim : b*pool.Dim]}
		errs[k] = c.runners[k].Run(p, task, part, out[a:b])
	})
	for _, err := range errs {
		if err != nil {
			return err // the first part's error, as one Runner meets it first
		}
	}
	return nil
}
