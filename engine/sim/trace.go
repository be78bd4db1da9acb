package sim

import "github.com/ontime-routing/ontime/engine"

// PathOracle is an oracle that can also say which path it takes.
type PathOracle interface {
	engine.Oracle
	BestPath(od engine.OD, maxLinks int, x []float64) ([]int, float64)
}

// Trace plays one episode on the realization x and returns its result and
// the links taken with their realized times. It runs the same code as a
// benchmark (a pool of one), so its outcome is the one `ontime bench`
// computes for that realization.
func (r *Runner) Trace(p engine.Policy, task Task, x []float64) (Result, []engine.Step, error) {
	pool := &Pool{Purpose: "trace", Size: 1, Dim: len(x), X: x}
	out := make([]Result, 1)
	if err := r.Run(p, task, pool, out); err != nil {
		return Result{}, nil, err
	}
	if o, ok := p.(PathOracle); ok {
		path, _ := o.BestPath(task.OD, task.Cap, x)
		steps := make([]engine.Step, len(path))
		for i, e := range path {
			steps[i] = engine.Step{Link: e, Time: x[e]}
		}
		out[0].Links = len(path)
		return out[0], steps, nil
	}
	if _, ok := p.(engine.Oracle); ok {
		return out[0], nil, nil
	}
	return out[0], append([]engine.Step(nil), r.obs[0].Prefix...), nil
}
