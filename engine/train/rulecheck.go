package train

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/ontime-routing/ontime/engine/policy"
)

// The episode rule lives twice: in Go (engine/sim) and in the trainer
// (models/train/train.py, on float32 tensors). checkEpisodeRule plays the
// exported model greedily in Go, through ONNX Runtime, on the validation
// realizations the trainer validated it on (the same float32 values, the
// same budgets), and compares every episode's links and on-time flag with
// the trainer's. A difference is counted and said on the card, never
// hidden: float32 arithmetic can end an episode a step apart when a budget
// is met to the last bit, and ONNX Runtime and PyTorch can order two links
// of equal probability differently.
// MaxRuleCheck bounds the episodes the check plays, one at a time through
// ONNX Runtime: a fixed sample (every k-th of the validation episodes,
// k chosen before any is played) when there are more. All 300,000 of a
// 5-pair, 3-factor, 20,000-realization validation took minutes, and a
// difference in the rule shows on thousands as on hundreds of thousands.
const MaxRuleCheck = 20000

func (r *run) checkEpisodeRule(ctx context.Context, best *checkpoint, model string) (*policy.EpisodeRuleCheck, error) {
	c := r.cfg
	if c.Ablation == "shuffled" {
		return nil, nil // its prefix order is drawn by PyTorch's generator: not replayable here
	}
	acts := best.Path + ".acts.json"
	if _, err := r.sess.run(ctx, "validate", "--state", best.Path, "--out", best.Path+".val2", "--actions", acts,
		"--seed", fmt.Sprint(c.Seed+2), "--batch", "4096"); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(acts)
	if err != nil {
		return nil, err
	}
	var theirs [][]int
	if err := json.Unmarshal(raw, &theirs); err != nil {
		return nil, fmt.Errorf("%s: %w", acts, err)
	}
	p, err := policy.NewONNXPolicy(c.Net, model, policy.ONNXOptions{})
	if err != nil {
		r.emit(Event{Phase: "check", Message: fmt.Sprintf("episode-rule check skipped: %v", err)})
		return nil, nil // training needs Python only; the check needs ONNX Runtime too
	}
	defer p.Close()
	total := len(c.ValidationFactors) * len(r.valODs) * r.val.Size
	stride := max(1, (total+MaxRuleCheck-1)/MaxRuleCheck)
	check := &policy.EpisodeRuleCheck{Of: total, Every: stride}
	x32 := make([]float64, r.val.Dim)
	i := 0
	for _, f := range c.ValidationFactors {
		for _, k := range r.valODs {
			// The trainer's budget: its float32 LET time times the factor.
			budget := float64(float32(r.let[k]) * float32(f))
			for n := range r.val.Size {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if i%stride != 0 { // the sample: every stride-th episode, fixed before any is played
					i++
					continue
				}
				for e, v := range r.val.Row(n) {
					x32[e] = float64(float32(v))
				}
				links, onTime := r.play(p, k, budget, x32)
				if err := p.Err(); err != nil {
					return nil, fmt.Errorf("the exported model in ONNX Runtime: %w", err)
				}
				if i >= len(theirs) || i >= len(best.flags) {
					return nil, fmt.Errorf("the trainer validated %d episodes; Go plays more", len(theirs))
				}
				theirOnTime := best.flags[i] == 1
				same := slices.Equal(links, theirs[i])
				if !same {
					check.ActionsDiffer++
				}
				if onTime != theirOnTime {
					check.FlagsDiffer++
				}
				if (!same || onTime != theirOnTime) && check.First == "" {
					check.First = fmt.Sprintf("pair %s, factor %.2f, realization %d: Go took %v (on time %v), the trainer %v (on time %v)",
						c.Net.ODString(c.ODs[k]), f, n, links, onTime, theirs[i], theirOnTime)
				}
				check.Episodes++
				i++
			}
		}
	}
	if i != len(theirs) {
		return nil, fmt.Errorf("the trainer validated %d episodes, Go %d", len(theirs), i)
	}
	return check, nil
}
