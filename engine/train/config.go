package train

import (
	"io"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Config is one training run. Zero fields take the defaults of Defaults.
type Config struct {
	Net   *engine.Network
	Model *linktime.Gaussian
	Out   string // the model file; its card and imitation checkpoint go beside it

	// ODs are the pairs the model covers; ValidationODs (a subset, default
	// the network's benchmark pairs) are what the checkpoint rule scores,
	// and they get half of the training episodes.
	ODs               []engine.OD
	ValidationODs     []engine.OD
	ValidationFactors []float64 // default the benchmark's factors inside the range, else its ends and middle
	BudgetLo          float64
	BudgetHi          float64
	ValidationSize    int // realizations of the validation pool (disjoint from test pools)

	Teachers                      []string // imitation candidates, best per (pair, factor)
	TeacherRealizations           int      // validation realizations a teacher is chosen on ...
	TeacherRealizationsValidation int      // ... and on the validation pairs
	Demos                         int
	ImitationEpochs               int

	Rounds         int    // expert-iteration rounds
	RoundEpisodes  int    // student episodes labelled per round
	RoundSteps     int    // trainer minibatches per round, over all labels so far
	RolloutBase    string // the labeller's base: TeachersBase (default), dot, cdot or cgr
	RolloutSamples int    // the labeller's draws a decision (0: rollout's default)
	// LabelAnyGain labels with the link that won most on the labeller's
	// draws instead of rollout's evidence rule (policy.Rollout.Z).
	LabelAnyGain bool

	PGChunks     int // policy-gradient phase: chunks of PGIterations, each validated
	PGIterations int
	PGBatch      int

	Batch    int
	Size     [4]int // d, encoder layers, decoder layers, heads
	Ablation string // a control: see policy.Ablations
	Seed     uint64
	Command  string // the command line that reproduces the run (for the card)

	Trainer  Trainer
	Progress func(Event) // optional
	Log      io.Writer   // the trainer's stderr (default discarded)
}

// Defaults fills the zero fields of c with DefaultRequest's values.
func (c *Config) Defaults() {
	d := DefaultRequest()
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.ValidationSize, d.ValidationSize)
	def(&c.TeacherRealizations, 100)
	def(&c.TeacherRealizationsValidation, 2000)
	def(&c.Demos, d.Demos)
	def(&c.ImitationEpochs, d.ImitationEpochs)
	def(&c.RoundEpisodes, d.RoundEpisodes)
	def(&c.RoundSteps, d.RoundSteps)
	def(&c.PGIterations, d.PGIterations)
	def(&c.PGBatch, 1024)
	def(&c.Batch, d.Batch)
	def(&c.Trainer.Threads, 2)
	if c.Size == [4]int{} {
		c.Size = d.Size
	}
	if c.BudgetLo == 0 && c.BudgetHi == 0 {
		c.BudgetLo, c.BudgetHi = d.Budgets[0], d.Budgets[1]
	}
	if len(c.Teachers) == 0 {
		c.Teachers = d.Teachers
	}
	if len(c.ODs) == 0 {
		c.ODs = c.Net.ODs
	}
	if len(c.ValidationODs) == 0 {
		c.ValidationODs = c.Net.ODs
	}
	if len(c.ValidationFactors) == 0 {
		c.ValidationFactors = []float64{c.BudgetLo, (c.BudgetLo + c.BudgetHi) / 2, c.BudgetHi}
		if fs := c.Net.BudgetFactors(); fs[0] >= c.BudgetLo-1e-9 && fs[len(fs)-1] <= c.BudgetHi+1e-9 {
			c.ValidationFactors = fs
		}
	}
	if c.RolloutBase == "" {
		c.RolloutBase = d.RolloutBase
	}
	if c.Trainer.Python == "" {
		c.Trainer.Python = "/usr/bin/python3"
	}
	if c.Trainer.Device == "" {
		c.Trainer.Device = "cpu"
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}
