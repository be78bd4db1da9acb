package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
)

// Request is a training run as a person states it — `ontime train`'s flags
// or the dashboard's form — before it is resolved against a network into a
// Config. DefaultRequest gives every field its stated default.
type Request struct {
	Teachers        []string   `json:"teachers"`
	Demos           int        `json:"demos"`
	Budgets         [2]float64 `json:"budgets"` // the factor range LO, HI
	Cover           string     `json:"cover"`   // bench, all, bench+N or demand+N
	ImitationEpochs int        `json:"imitation_epochs"`
	Rounds          int        `json:"rounds"`
	RoundEpisodes   int        `json:"round_episodes"`
	RoundSteps      int        `json:"round_steps"`
	RolloutBase     string     `json:"rollout_base"`
	RolloutSamples  int        `json:"rollout_samples"`
	LabelAnyGain    bool       `json:"label_any_gain"`
	PGChunks        int        `json:"pg_chunks"`
	PGIterations    int        `json:"pg_iterations"`
	ValidationSize  int        `json:"validation_size"`
	Batch           int        `json:"batch"`
	Seed            uint64     `json:"seed"`
	Size            [4]int     `json:"size"` // d, encoder layers, decoder layers, heads
	Ablation        string     `json:"ablation,omitempty"`
}

// DefaultRequest is what `ontime train` does without flags.
func DefaultRequest() Request {
	return Request{Teachers: policy.DefaultTeachers(), Demos: 8000, Budgets: [2]float64{0.9, 1.1}, Cover: "bench",
		ImitationEpochs: 30, Rounds: 6, RoundEpisodes: 4000, RoundSteps: 300, RolloutBase: TeachersBase,
		PGIterations: 100, ValidationSize: 20000, Batch: 512, Size: SizeChoices[0].Size}
}

// Check says what is wrong with a request, naming the field.
func (q Request) Check() error {
	bad := func(field, format string, args ...any) error {
		return engine.Errorf(engine.EINVALID, "%s: %s", field, fmt.Sprintf(format, args...))
	}
	if q.Budgets[0] <= 0 || q.Budgets[0] > q.Budgets[1] || q.Budgets[1] > 5 {
		return bad("budgets", "give LO,HI factors with 0 < LO ≤ HI ≤ 5, e.g. 0.9,1.1 (got %g,%g)", q.Budgets[0], q.Budgets[1])
	}
	if len(q.Teachers) == 0 {
		return bad("teachers", "name at least one planner (the default: %s)", strings.Join(policy.DefaultTeachers(), ","))
	}
	for _, t := range q.Teachers {
		if m, err := policy.Lookup(t); err != nil || m.Kind != policy.Planner {
			return bad("teachers", "%q is not a planner (use, for example, %s)", t, engine.JoinOr(policy.DefaultTeachers()))
		}
	}
	if q.Ablation != "" && !slices.Contains(policy.Ablations, q.Ablation) {
		return bad("ablation", "%q: use one of %s", q.Ablation, strings.Join(policy.Ablations, ", "))
	}
	for _, d := range q.Size {
		if d <= 0 {
			return bad("size", "give d,encoder,decoder,heads as positive integers (got %v)", q.Size)
		}
	}
	if q.Size[0]%q.Size[3] != 0 {
		return bad("size", "d (%d) must be a multiple of the heads (%d)", q.Size[0], q.Size[3])
	}
	for _, st := range Settings {
		if err := st.check(*st.Of(&q)); err != nil {
			return err
		}
	}
	if _, err := coverCount(q.Cover); err != nil {
		return err
	}
	return nil
}

// Config resolves the request on a network: the covered pairs and, for the
// independent-links control, a copy of the network and model with
// independent links (the caller's are not changed).
func (q Request) Config(net *engine.Network, model *linktime.Gaussian) (Config, error) {
	if err := q.Check(); err != nil {
		return Config{}, err
	}
	if q.Ablation == "indep" {
		// Teachers, labels, validation pool and training stream all use
		// independent links with the same means and variances.
		cp := *net
		cp.Correlation = engine.Correlation{Model: linktime.Independent}
		var err error
		if model, err = linktime.New(&cp); err != nil {
			return Config{}, err
		}
		net = &cp
	}
	ods, err := CoverODs(net, q.Cover, q.Seed)
	if err != nil {
		return Config{}, err
	}
	return Config{Net: net, Model: model, ODs: ods, BudgetLo: q.Budgets[0], BudgetHi: q.Budgets[1],
		ValidationSize: q.ValidationSize, Teachers: q.Teachers, Demos: q.Demos, ImitationEpochs: q.ImitationEpochs,
		Rounds: q.Rounds, RoundEpisodes: q.RoundEpisodes, RoundSteps: q.RoundSteps, RolloutBase: q.RolloutBase,
		RolloutSamples: q.RolloutSamples, LabelAnyGain: q.LabelAnyGain, PGChunks: q.PGChunks, PGIterations: q.PGIterations,
		Batch: q.Batch, Size: q.Size, Ablation: q.Ablation, Seed: q.Seed}, nil
}

// coverCount parses a cover setting: -1 for bench and all, N for bench+N
// and demand+N.
func coverCount(cover string) (int, error) {
	if cover == "bench" || cover == "all" {
		return -1, nil
	}
	prefix, count, _ := strings.Cut(cover, "+")
	n, err := strconv.Atoi(count)
	if prefix != "bench" && prefix != "demand" || err != nil || n < 0 {
		return 0, engine.Errorf(engine.EINVALID, "cover %q: use bench, all, bench+N or demand+N", cover)
	}
	return n, nil
}

// CoverODs lists the pairs a model covers: the network's benchmark pairs,
// every pair with a route, the benchmark's plus n drawn once with seed
// (among zone-to-zone pairs when the network names its zones), or plus n
// drawn in proportion to the network's demand (demand+N).
func CoverODs(net *engine.Network, cover string, seed uint64) ([]engine.OD, error) {
	n, err := coverCount(cover)
	if err != nil {
		return nil, err
	}
	bench := append([]engine.OD(nil), net.ODs...)
	if cover == "bench" {
		return bench, nil
	}
	if strings.HasPrefix(cover, "demand+") {
		if len(net.Demand) == 0 {
			return nil, engine.Errorf(engine.EINVALID, "cover %q: network %s has no demand table (import it with its _trips.tntp or GMNS demand.csv)", cover, net.Name)
		}
		return append(bench, engine.DemandODs(net, n, seed, bench)...), nil
	}
	routed := func(od engine.OD) bool {
		return od.Origin != od.Destination && !math.IsInf(net.LET(od.Destination).Time[od.Origin], 1) &&
			len(net.Out(od.Origin)) > 0 && !slices.Contains(bench, od)
	}
	var all []engine.OD
	if cover == "all" || len(net.Zones) == 0 {
		for d := range net.Nodes {
			for o := range net.Nodes {
				if od := (engine.OD{Origin: o, Destination: d}); routed(od) {
					all = append(all, od)
				}
			}
		}
	} else {
		for _, dz := range net.Zones {
			for _, oz := range net.Zones {
				o, ok1 := net.OriginIndex(oz)
				d, ok2 := net.NodeIndex(dz)
				if od := (engine.OD{Origin: o, Destination: d}); ok1 && ok2 && routed(od) {
					all = append(all, od)
				}
			}
		}
	}
	if cover == "all" {
		return append(bench, all...), nil
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0fe))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return append(bench, all[:min(n, len(all))]...), nil
}

// Args are the `ontime train` flags that make the same request (those that
// differ from DefaultRequest), so a card written by a dashboard job can be
// replayed on the command line.
func (q Request) Args() []string {
	d := DefaultRequest()
	var out []string
	add := func(name, v, def string) {
		if v != def {
			out = append(out, "--"+name, v)
		}
	}
	add("teachers", strings.Join(q.Teachers, ","), strings.Join(d.Teachers, ","))
	add("demos", strconv.Itoa(q.Demos), strconv.Itoa(d.Demos))
	add("budgets", fmt.Sprintf("%g,%g", q.Budgets[0], q.Budgets[1]), fmt.Sprintf("%g,%g", d.Budgets[0], d.Budgets[1]))
	add("cover", q.Cover, d.Cover)
	add("imitation-epochs", strconv.Itoa(q.ImitationEpochs), strconv.Itoa(d.ImitationEpochs))
	add("rounds", strconv.Itoa(q.Rounds), strconv.Itoa(d.Rounds))
	add("round-episodes", strconv.Itoa(q.RoundEpisodes), strconv.Itoa(d.RoundEpisodes))
	add("round-steps", strconv.Itoa(q.RoundSteps), strconv.Itoa(d.RoundSteps))
	add("rollout-base", q.RolloutBase, d.RolloutBase)
	add("rollout-samples", strconv.Itoa(q.RolloutSamples), strconv.Itoa(d.RolloutSamples))
	if q.LabelAnyGain {
		out = append(out, "--label-any-gain")
	}
	add("pg-chunks", strconv.Itoa(q.PGChunks), strconv.Itoa(d.PGChunks))
	add("pg-iterations", strconv.Itoa(q.PGIterations), strconv.Itoa(d.PGIterations))
	add("validation-size", strconv.Itoa(q.ValidationSize), strconv.Itoa(d.ValidationSize))
	add("batch", strconv.Itoa(q.Batch), strconv.Itoa(d.Batch))
	add("seed", strconv.FormatUint(q.Seed, 10), "0")
	size := func(s [4]int) string { return fmt.Sprintf("%d,%d,%d,%d", s[0], s[1], s[2], s[3]) }
	add("size", size(q.Size), size(d.Size))
	add("ablation", q.Ablation, "")
	return out
}
