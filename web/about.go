package web

// References cites each method the dashboard shows (what ontime implements
// is described in its doc comments and docs/results.md).
var References = map[string]string{
	"let":         "Least-expected-time path (Dijkstra on mean link times); ties broken by fewest links, then link ids.",
	"dot":         "Prakash (2020), Algorithms for most reliable routes on stochastic and time-dependent networks, Transportation Research Part B 138, 202–220: the SOTA recursion swept in decreasing order of time on a grid.",
	"cdot":        "ontime's variant of DOT: the next link's law conditioned on the links already observed (the rest of the route as DOT's tables).",
	"cgr":         "ontime's conditional Gaussian re-planning, in the spirit of GP4 (Gao, Guo & Sheng, IEEE Transactions on Vehicular Technology 2021): at every node, the best of k continuations under the law conditioned on what was observed.",
	"fma":         "Fourth-moment approach to navigation with time limits (sharp moment bound on the path's lateness; ontime solves the bound as a linear programme).",
	"mlr":         "Scenario mixed-integer model solved by Lagrangian relaxation (Yang & Zhou 2017, Transportation Research Part B 96, 68–91).",
	"bestpath":    "Best a-priori path: the highest exact Gaussian on-time probability among the k shortest paths by mean (Yen).",
	"pql":         "Cao, Guo, Song, Gao, Chen, Zhang & Zhang (2020), Using reinforcement learning to minimize the probability of delay occurrence in transportation, IEEE Transactions on Vehicular Technology 69(3).",
	"ctd":         "Guo, Hou & Peng (2022), Cascaded temporal difference learning for the mean–standard-deviation shortest path, IEEE Transactions on Intelligent Transportation Systems.",
	"segac":       "SE-GAC: generalized actor-critic with a terminal on-time reward (Guo et al.; github.com/YoZo-X/SEGAC); ontime warm-starts it from DOT.",
	"gpght":       "Wei, Zhao, Zhang, Ouyang & Qin (2025), Learning graph-indexed trajectory patterns for SOTA routing (arXiv 2508.17218): a history-conditioned Transformer trained by a generalized policy gradient; ontime trains its own (models/).",
	"condrule":    "The five-node example's closed-form optimum: at B, the branch with the higher on-time probability given the observed A→B time.",
	"clairvoyant": "Not a policy: the shortest realized path of each realization, as if every time were known before leaving. It bounds every method from above.",
}

// Licence is a data source's licence text.
type Licence struct{ Key, Text string }
