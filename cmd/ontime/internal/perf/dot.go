package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// dotSolves times DOT's table for each benchmark destination, as the
// benchmark asks it (budgets up to 1.05 × the OD pair's LET time).
func dotSolves(ctx context.Context, c *Config, w io.Writer) error {
	fmt.Fprintf(w, "One DOT table per destination of the benchmark OD pairs, every budget up to 1.05 × the\n")
	fmt.Fprintf(w, "largest LET time to it, at the benchmark's grid step; a fresh solver each (%d cores).\n\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "| network | destination | largest budget min | grid step min | budget bins | solve s |\n|---|---:|---:|---:|---:|---:|\n")
	for _, name := range benchNetworks {
		net, model, err := load(c, name)
		if err != nil {
			return err
		}
		tasks := sim.Tasks(net, net.ODs, []float64{1.05})
		env := &policy.Env{Net: net, Model: model, Tasks: tasks}
		delta := env.DefaultDOTDelta()
		budgets := env.MaxBudget()
		dests := make([]int, 0, len(budgets))
		for d := range budgets {
			dests = append(dests, d)
		}
		sort.Ints(dests)
		for _, d := range dests {
			if err := ctx.Err(); err != nil {
				return err
			}
			t0 := time.Now()
			env.NewDOT().Solve(d, budgets[d])
			fmt.Fprintf(w, "| %s | %s | %.2f | %.4f | %.0f | %.2f |\n", name, net.Nodes[d].ID, budgets[d], delta, budgets[d]/delta, time.Since(t0).Seconds())
		}
	}
	fmt.Fprintln(w)
	return nil
}

// training reports the committed models' training runs from their cards,
// which `ontime train` writes as it finishes.
func training(_ context.Context, c *Config, w io.Writer) error {
	dir := c.ModelsDir
	if dir == "" {
		dir = "models"
	}
	cards, err := filepath.Glob(filepath.Join(dir, "*.card.json"))
	if err != nil || len(cards) == 0 {
		fmt.Fprintf(w, "No model cards in %s.\n\n", dir)
		return nil
	}
	fmt.Fprintf(w, "Each committed model's training run as its card recorded it (`ontime train` measures its own\n")
	fmt.Fprintf(w, "wall time; `make models` replays the commands). Not re-run here: a run takes up to hours.\n\n")
	fmt.Fprintf(w, "| model | network | wall time | kept checkpoint | validation on-time | command |\n|---|---|---:|---|---:|---|\n")
	for _, p := range cards {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var card policy.ModelCard
		if err := json.Unmarshal(b, &card); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintf(w, "| %s | %s | %.0f s (%.1f min) | %s | %.4f | `%s` |\n", filepath.Base(p[:len(p)-len(".card.json")]), card.Network,
			card.Seconds, card.Seconds/60, orUnknown(card.Best), card.BestValidation, card.Command)
	}
	fmt.Fprintln(w)
	return nil
}
