package train

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Card is the model card written beside a model: what policy.ModelCard
// reads, plus every round of training.
type Card struct {
	Network       string    `json:"network"`
	Fingerprint   string    `json:"fingerprint"`
	Correlation   string    `json:"correlation"`
	ODs           []string  `json:"ods"`
	BudgetFactors []float64 `json:"budget_factors"`
	StepCap       int       `json:"step_cap"`
	Ablation      string    `json:"ablation"`
	Model         struct {
		D                     int    `json:"d"`
		EncoderLayers         int    `json:"encoder_layers"`
		DecoderLayers         int    `json:"decoder_layers"`
		Heads                 int    `json:"heads"`
		Parameters            int    `json:"parameters"`
		History               bool   `json:"history"`
		HistoryCrossAttention bool   `json:"history_cross_attention"`
		TransformerDecoder    bool   `json:"transformer_decoder"`
		PrefixOrder           string `json:"prefix_order"`
	} `json:"model"`
	Training struct {
		Teacher         string            `json:"teacher"`
		TeacherChoice   map[string]int    `json:"teacher_choice"`  // (pair, factor) cells won by each candidate
		TeacherChoices  [][]TeacherChoice `json:"teacher_choices"` // of the validation pairs
		Demonstrations  int               `json:"demonstrations"`
		ImitationEpochs int               `json:"imitation_epochs"`
		Rounds          int               `json:"rounds"`
		RoundEpisodes   int               `json:"round_episodes"`
		RoundSteps      int               `json:"round_steps"`
		Labeller        map[string]any    `json:"labeller"`
		PGChunks        int               `json:"pg_chunks"`
		PGIterations    int               `json:"pg_iterations"`
		PGBatch         int               `json:"pg_batch"`
		Estimator       string            `json:"estimator"`
		Baseline        string            `json:"baseline"`
		Batch           int               `json:"batch"`
		Seed            uint64            `json:"seed"`
		Torch           string            `json:"torch"`
		Device          string            `json:"device"`
	} `json:"training"`
	CheckpointRule      string    `json:"checkpoint_rule"`
	ValidationODs       []string  `json:"validation_ods"`
	ValidationSize      int       `json:"validation_size"`
	ValidationFactors   []float64 `json:"validation_factors"`
	ImitationValidation []float64 `json:"imitation_validation"`
	BestValidation      float64   `json:"best_validation"`
	Best                string    `json:"best"`
	Rounds              []Round   `json:"rounds"`
	Curve               []Point   `json:"curve"`
	Seconds             float64   `json:"seconds"`
	Command             string    `json:"command"`
	ImitationModel      string    `json:"imitation_model"`
}

// Round is one step of training as the card records it.
type Round struct {
	Name         string      `json:"name"`
	Kind         string      `json:"kind"`
	Labels       int         `json:"labels,omitempty"`     // labelled states added
	Disagree     float64     `json:"disagree,omitempty"`   // share of them where the label is not the link the student took
	Iterations   int         `json:"iterations,omitempty"` // policy-gradient iterations
	Validation   []float64   `json:"validation"`           // per validation factor
	Mean         float64     `json:"mean"`
	VersusBest   *Comparison `json:"versus_best,omitempty"` // against the best before it
	Kept         bool        `json:"kept"`                  // it became the best
	Seconds      float64     `json:"seconds"`
	LabelSeconds float64     `json:"label_seconds,omitempty"`
}

// Point is one point of the validation curve the models page draws.
type Point struct {
	Iteration  int       `json:"iteration"`
	Validation []float64 `json:"validation"`
	Elapsed    float64   `json:"elapsed"`
}

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

func (k *Card) addRound(r Round) {
	k.Rounds = append(k.Rounds, r)
	el := 0.0
	for _, x := range k.Rounds {
		el += x.Seconds
	}
	k.Curve = append(k.Curve, Point{Iteration: len(k.Rounds) - 1, Validation: r.Validation, Elapsed: el})
}

// finish records the chosen checkpoint and what the export reported.
func (k *Card) finish(export map[string]any, best, imitation *checkpoint, seconds float64) {
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

func (k *Card) write(path string) error {
	b, err := json.MarshalIndent(k, "", " ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
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
