package bench

import "github.com/ontime-routing/ontime/engine"

// Shape is a benchmark's size: its budget factors and its test pools.
type Shape struct {
	Budgets  []float64 // budget factors (× each OD pair's LET time)
	Pools    int       // test pools
	PoolSize int       // joint realizations a pool
}

// Defaults is the published benchmark's shape — the paper's budget factors
// and 10 test pools of 2,000 — which `ontime bench`, the Benchmarks page,
// sweep files and the learners' training tasks all start from.
var Defaults = Shape{Budgets: engine.DefaultFactors, Pools: 10, PoolSize: 2000}

// Limits bound what the dashboard's benchmark form accepts (a server shared
// by its users); the command line, on the user's own machine, needs only one
// pool of one realization. One pool gives means only (paired intervals need
// two).
var Limits = struct {
	MinPools, MaxPools       int
	MinPoolSize, MaxPoolSize int
	MaxBudget                float64 // budget factors lie in (0, MaxBudget]
}{MinPools: 1, MaxPools: 10, MinPoolSize: 10, MaxPoolSize: 20000, MaxBudget: 5}
