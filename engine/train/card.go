package train

import (
	"encoding/json"
	"fmt"
	"github.com/ontime-routing/ontime/internal/atomicfile"
	"sort"
	"strings"

	"github.com/ontime-routing/ontime/engine/policy"
)

// Card is the model card written beside a model: policy.ModelCard, the one
// type its readers use too.
type (
	Card          = policy.ModelCard
	Round         = policy.CardRound
	TeacherChoice = policy.TeacherChoice
)

func newCard(c *Config) *Card {
	k := &Card{Network: c.Net.Name, BudgetFactors: []float64{c.BudgetLo, c.BudgetHi}, Ablation: c.Ablation,
		ValidationSize: c.ValidationSize, ValidationFactors: c.ValidationFactors, Command: c.Command,
		CheckpointRule: "a later checkpoint replaces the best only if it beats it on the validation pool by more than one paired standard error"}
	for _, od := range c.ODs {
		k.ODs = append(k.ODs, c.Net.ODString(od))
	}
	for _, od := range c.ValidationODs {
		k.ValidationODs = append(k.ValidationODs, c.Net.ODString(od))
	}
	m := &k.Model
	m.D, m.EncoderLayers, m.DecoderLayers, m.Heads = c.Size[0], c.Size[1], c.Size[2], c.Size[3]
	m.History, m.HistoryCrossAttention, m.TransformerDecoder, m.PrefixOrder = c.Ablation != "nohist", c.Ablation != "noha", c.Ablation != "nodt", "realized"
	if c.Ablation == "shuffled" {
		m.PrefixOrder = "shuffled"
	}
	t := &k.Training
	t.Teacher = "best of " + strings.Join(c.Teachers, ", ") + " per (pair, factor) on validation"
	t.Demonstrations, t.ImitationEpochs, t.Rounds, t.RoundEpisodes, t.RoundSteps = c.Demos, c.ImitationEpochs, c.Rounds, c.RoundEpisodes, c.RoundSteps
	t.PGChunks, t.PGIterations, t.PGBatch, t.Batch, t.Seed = c.PGChunks, c.PGChunks*c.PGIterations, c.PGBatch, c.Batch, c.Seed
	t.Estimator, t.Baseline = "generalized policy gradient over episodes, entropy bonus 0.01", "batch mean outcome per OD pair"
	if c.Ablation == "vpg" {
		t.Estimator, t.Baseline = "vanilla per-step policy gradient, no baseline, no entropy", "none"
	}
	return k
}

// addRound records a round and its point of the validation curve.
func addRound(k *Card, r Round) {
	k.Rounds = append(k.Rounds, r)
	el := 0.0
	for _, x := range k.Rounds {
		el += x.Seconds
	}
	k.Curve = append(k.Curve, policy.CardPoint{Iteration: len(k.Rounds) - 1, Validation: r.Validation, Elapsed: el})
}

// finish records the chosen checkpoint and what the export reported.
func finishCard(k *Card, export map[string]any, best, imitation *checkpoint, seconds float64) {
	if p, ok := export["params"].(float64); ok {
		k.Model.Parameters = int(p)
	}
	k.Training.Torch, _ = export["torch"].(string)
	k.Training.Device, _ = export["device"].(string)
	k.ImitationValidation = imitation.Means
	k.BestValidation = best.Mean()
	k.Best = best.Name
	k.Seconds = seconds
}

func writeCard(k *Card, path string) error {
	b, err := json.MarshalIndent(k, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// summarizeChoice counts the (pair, factor) cells each teacher won.
func summarizeChoice(choice [][]TeacherChoice, teachers []string) map[string]int {
	m := map[string]int{}
	for _, t := range teachers {
		m[t] = 0
	}
	for _, row := range choice {
		for _, c := range row {
			m[c.Teacher]++
		}
	}
	return m
}

// describe lists the choice counts by name.
func describe(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
