package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ontime-routing/ontime/engine/builtin"
	"io"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/stats"
)

// HistoryReport is the paper's history-control experiment, run with the
// history-using rule policy (condrule): the same rule shown the realized
// route prefix, no prefix, or the prefix's links with times taken from
// another realization, on correlated and on independent link times. Only
// realized history on correlated links should beat the history-blind rule.
type HistoryReport struct {
	Network string       `json:"network"`
	Method  string       `json:"method"`
	ODs     []string     `json:"ods"`
	Pools   int          `json:"pools"`
	Size    int          `json:"pool_size"`
	Rows    []HistoryRow `json:"rows"`
	// Optimum is the closed-form adaptive optimum where one is known (the
	// five-node example at factor 1).
	Optimum *float64 `json:"optimum,omitempty"`
}

// HistoryRow is one budget and history variant under both correlations.
type HistoryRow struct {
	Budget      float64  `json:"budget"`
	History     string   `json:"history"`
	Correlated  Interval `json:"correlated"`
	Independent Interval `json:"independent"`
	// PVsNone is the paired p of this variant against no history on
	// correlated links (absent for the no-history row itself).
	PVsNone *float64 `json:"p_vs_no_history,omitempty"`
}

// Interval is a mean over pools with its 95% t interval.
type Interval struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"ci_low"`
	High float64 `json:"ci_high"`
}

// HistoryControl runs the experiment on cfg's network, OD pairs, budgets and
// pools. cfg.Model is the correlated model; the independent one keeps the
// marginals and drops the correlation.
func HistoryControl(ctx context.Context, cfg Config) (*HistoryReport, error) {
	cfg.Methods = []string{"condrule"}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	indepNet := *cfg.Net
	indepNet.Correlation = engine.Correlation{Model: linktime.Independent}
	indep, err := linktime.New(&indepNet)
	if err != nil {
		return nil, err
	}
	variants := []sim.History{sim.Realized, sim.NoHistory, sim.Shuffled}
	rep := &HistoryReport{Network: cfg.Net.Name, Method: "condrule", Pools: cfg.Pools, Size: cfg.PoolSize}
	for _, od := range cfg.ODs {
		rep.ODs = append(rep.ODs, cfg.Net.ODString(od))
	}
	tasks := cfg.tasks()
	nB := len(cfg.Budgets)
	// rates[model][variant][budget][pool], mean over OD pairs
	var rates [2][][][]float64
	for mi, model := range []*linktime.Gaussian{cfg.Model, indep} {
		env := &policy.Env{Net: cfg.Net, Model: model, Tasks: tasks, Seed: cfg.Seed}
		rule := policy.NewCondRule(policy.NewLET(cfg.Net, env.Destinations()...), model)
		r := make([][][]float64, len(variants))
		for v := range variants {
			r[v] = make([][]float64, nB)
			for b := range nB {
				r[v][b] = make([]float64, cfg.Pools)
			}
		}
		mcfg := cfg
		mcfg.Model = model
		err := forEachUnit(ctx, mcfg, units{pools: indexes(cfg.Pools), methods: []int{0}, tasks: 1}, func(pool *sim.Pool, _ unit, run *sim.Runner, res []sim.Result) error {
			for v, h := range variants {
				run.History = h
				for ti, task := range tasks {
					if err := run.Run(rule, task, pool, res); err != nil {
						return err
					}
					r[v][ti%nB][pool.Index] += float64(onTime(res)) / float64(len(res)) / float64(len(cfg.ODs))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		rates[mi] = r
	}
	for b, bud := range cfg.Budgets {
		for v, h := range variants {
			row := HistoryRow{Budget: bud, History: h.String(), Correlated: interval(rates[0][v][b]), Independent: interval(rates[1][v][b])}
			if h != sim.NoHistory {
				p := stats.PairedT(rates[0][v][b], rates[0][1][b], 0.95).P
				row.PVsNone = &p
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	if builtin.IsExample(cfg.Net) && len(cfg.Budgets) == 1 && cfg.Budgets[0] == 1 {
		opt := policy.TwoBranchOptimum()
		rep.Optimum = &opt
	}
	return rep, nil
}

func interval(x []float64) Interval {
	t := stats.PairedT(x, make([]float64, len(x)), 0.95)
	return Interval{Mean: t.Mean, Low: t.Low, High: t.Hi}
}

// Write writes the history-control table as "md" or "json".
func (rep *HistoryReport) Write(w io.Writer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if format != "md" && format != "" {
		return engine.Errorf(engine.EINVALID, "the history-control table is written as md or json, not %q", format)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: history control (%s; OD %s; %d pools of %d; mean on-time rate [95%% CI])\n\n",
		rep.Network, rep.Method, strings.Join(rep.ODs, ", "), rep.Pools, rep.Size)
	b.WriteString("| budget | history shown | correlated links | independent links | p vs no history (correlated) |\n|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		p := "–"
		if r.PVsNone != nil {
			p = fmtP(*r.PVsNone)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", fmtBudget(r.Budget), r.History, fmtInterval(r.Correlated), fmtInterval(r.Independent), p)
	}
	if rep.Optimum != nil {
		fmt.Fprintf(&b, "\nClosed-form adaptive optimum at T = 106: ½ + [arctan(1.5/√1.75) − arctan(1/√2)]/(2π) = %.4f; every history-blind policy gets 0.5000.\n", *rep.Optimum)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtInterval(iv Interval) string {
	return fmt.Sprintf("%.4f [%.4f, %.4f]", iv.Mean, iv.Low, iv.High)
}
