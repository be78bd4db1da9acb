package train

import (
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Setting is one whole-number training setting as every entry point states
// it: `ontime train`'s flag, the Models page's form field and its bounds and
// default, and Request.Check's bounds. The default is DefaultRequest's.
type Setting struct {
	Flag  string // the flag's name (round-episodes); the form field is FormField()
	Label string // the form's label; "" where the form does not offer it
	Help  string // the flag's help
	More  bool   // shown under the form's "Smaller runs"
	Min   int
	Max   int
	field func(*Request) *int
}

// Settings are the whole-number settings, in the order help texts list them.
var Settings = []Setting{
	{Flag: "demos", Label: "Demonstrations", Help: "teacher demonstrations", Min: 10, Max: 100000,
		field: func(q *Request) *int { return &q.Demos }},
	{Flag: "imitation-epochs", Label: "Imitation epochs", More: true, Help: "imitation epochs over the demonstrations", Min: 1, Max: 200,
		field: func(q *Request) *int { return &q.ImitationEpochs }},
	{Flag: "rounds", Label: "Rounds", Help: "expert-iteration rounds (the student's own states labelled by rollout)", Min: 0, Max: 20,
		field: func(q *Request) *int { return &q.Rounds }},
	{Flag: "round-episodes", Label: "Episodes a round", More: true, Help: "student episodes labelled per round", Min: 10, Max: 20000,
		field: func(q *Request) *int { return &q.RoundEpisodes }},
	{Flag: "round-steps", Label: "Trainer steps a round", More: true, Help: "trainer minibatches per round, over every label so far", Min: 1, Max: 5000,
		field: func(q *Request) *int { return &q.RoundSteps }},
	{Flag: "rollout-samples", Help: "the labeller's draws a decision (0: 128 on the teachers, else rollout's default for its base)", Min: 0, Max: 100000,
		field: func(q *Request) *int { return &q.RolloutSamples }},
	{Flag: "pg-chunks", Label: "Policy-gradient chunks", More: true, Help: "policy-gradient phase (the paper's estimator): chunks, each validated", Min: 0, Max: 20,
		field: func(q *Request) *int { return &q.PGChunks }},
	{Flag: "pg-iterations", Help: "policy-gradient iterations a chunk", Min: 0, Max: 100000,
		field: func(q *Request) *int { return &q.PGIterations }},
	{Flag: "validation-size", Label: "Validation realizations", More: true, Help: "validation pool size (the checkpoint rule's; disjoint from test pools)", Min: 100, Max: 100000,
		field: func(q *Request) *int { return &q.ValidationSize }},
	{Flag: "batch", Help: "episodes per trainer minibatch", Min: 1, Max: 65536,
		field: func(q *Request) *int { return &q.Batch }},
}

// FormField is the setting's name in a form (round_episodes).
func (s Setting) FormField() string { return strings.ReplaceAll(s.Flag, "-", "_") }

// Of is the setting's field of q.
func (s Setting) Of(q *Request) *int { return s.field(q) }

// Default is DefaultRequest's value.
func (s Setting) Default() int {
	q := DefaultRequest()
	return *s.field(&q)
}

// check names the setting when v is out of bounds.
func (s Setting) check(v int) error {
	if v < s.Min || v > s.Max {
		return engine.Errorf(engine.EINVALID, "%s: give %d to %d (got %d)", s.Flag, s.Min, s.Max, v)
	}
	return nil
}

// SizeChoice is one of the form's model sizes.
type SizeChoice struct {
	Size  [4]int
	Label string
}

// SizeChoices are the model sizes the Models page offers; the first is
// DefaultRequest's.
var SizeChoices = []SizeChoice{
	{[4]int{64, 2, 1, 4}, "standard (d 64, 2+1 layers, 4 heads)"},
	{[4]int{32, 1, 1, 2}, "small (d 32, 1+1 layers, 2 heads)"},
	{[4]int{16, 1, 1, 2}, "tiny, for a try (d 16)"},
}

// Rates are the trainer's step sizes, passed on every call: the Python
// trainer has no defaults of its own, so Go states every setting once.
var Rates = struct {
	Imitation float64 // Adam's learning rate while imitating the teachers
	Fit       float64 // ... while fitting expert-iteration labels
	PG        float64 // ... in the policy-gradient phase
	Entropy   float64 // the policy gradient's entropy bonus
}{Imitation: 5e-4, Fit: 2e-4, PG: 5e-5, Entropy: 0.01}
