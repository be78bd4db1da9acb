package policy

// ModelCard is the card `ontime train` (engine/train) writes beside a
// model, and what everything that offers the model reads: one type for
// writer and readers. Older cards (before expert iteration) have no rounds
// and a wall-clock policy-gradient phase (PGMinutes).
type ModelCard struct {
	Path          string    `json:"-"` // the model file the card describes
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
		PrefixOrder           string `json:"prefix_order,omitempty"`
	} `json:"model"`
	Training struct {
		Teacher         string            `json:"teacher"`
		TeacherChoice   map[string]int    `json:"teacher_choice,omitempty"`  // (pair, factor) cells won by each candidate
		TeacherChoices  [][]TeacherChoice `json:"teacher_choices,omitempty"` // of the validation pairs
		Demonstrations  int               `json:"demonstrations"`
		ImitationEpochs int               `json:"imitation_epochs"`
		Rounds          int               `json:"rounds"`         // expert-iteration rounds
		RoundEpisodes   int               `json:"round_episodes"` // student episodes labelled a round
		RoundSteps      int               `json:"round_steps"`
		Labeller        map[string]any    `json:"labeller,omitempty"`
		PGChunks        int               `json:"pg_chunks"`
		PGMinutes       float64           `json:"pg_minutes,omitempty"` // older cards
		PGIterations    int               `json:"pg_iterations"`
		PGBatch         int               `json:"pg_batch,omitempty"`
		Estimator       string            `json:"estimator,omitempty"`
		Baseline        string            `json:"baseline,omitempty"`
		Batch           int               `json:"batch"`
		Seed            uint64            `json:"seed"`
		Torch           string            `json:"torch"`
		Device          string            `json:"device"`
	} `json:"training"`
	CheckpointRule      string      `json:"checkpoint_rule,omitempty"`
	ValidationODs       []string    `json:"validation_ods,omitempty"`
	ValidationSize      int         `json:"validation_size,omitempty"`
	ValidationFactors   []float64   `json:"validation_factors"`
	ImitationValidation []float64   `json:"imitation_validation"`
	BestValidation      float64     `json:"best_validation"`
	Best                string      `json:"best,omitempty"` // the kept checkpoint
	Rounds              []CardRound `json:"rounds,omitempty"`
	Curve               []CardPoint `json:"curve"`
	Seconds             float64     `json:"seconds"`
	Command             string      `json:"command"`
	ImitationModel      string      `json:"imitation_model"`
	// EpisodeRule is the cross-language check of the kept model: Go's
	// simulator with ONNX Runtime against the trainer's own greedy episodes
	// on the validation realizations (engine/train/rulecheck.go).
	EpisodeRule *EpisodeRuleCheck `json:"episode_rule,omitempty"`
}

// EpisodeRuleCheck counts the validation episodes on which Go (the
// exported model in ONNX Runtime, sim's episode rule, float64) and the
// trainer (PyTorch, float32) differ in the links taken or the on-time flag.
type EpisodeRuleCheck struct {
	Episodes      int    `json:"episodes"`
	Of            int    `json:"of,omitempty"`    // validation episodes the sample is drawn from
	Every         int    `json:"every,omitempty"` // one in Every is played (a fixed stride)
	ActionsDiffer int    `json:"actions_differ"`
	FlagsDiffer   int    `json:"flags_differ"`
	First         string `json:"first,omitempty"` // the first difference, said
}

// TeacherChoice is the imitation teacher of one covered pair at one budget
// factor, with every candidate's on-time rate on the validation
// realizations it was chosen on.
type TeacherChoice struct {
	OD      string             `json:"od"`
	Factor  float64            `json:"factor"`
	Teacher string             `json:"teacher"`
	Rates   map[string]float64 `json:"rates,omitempty"` // none when there was one candidate
	Pool    int                `json:"realizations,omitempty"`
}

// CardRound is one checkpoint of training as the card records it.
type CardRound struct {
	Name     string  `json:"name"`
	Kind     string  `json:"kind"`
	Labels   int     `json:"labels,omitempty"`   // labelled states added
	Disagree float64 `json:"disagree,omitempty"` // share of them where the label is not the link the student took
	// Mismatched counts the episodes whose replay under Go's episode rule
	// did not end where the trainer's (float32) episode ended: a budget
	// met exactly at a step's end, on one side only. Each is replayed up to
	// the shorter end and counted here, never dropped silently.
	Mismatched   int         `json:"replay_mismatched,omitempty"`
	Iterations   int         `json:"iterations,omitempty"` // policy-gradient iterations
	Validation   []float64   `json:"validation"`           // per validation factor
	Mean         float64     `json:"mean"`
	VersusBest   *PairedGain `json:"versus_best,omitempty"` // against the best before it
	Kept         bool        `json:"kept"`                  // it became the best
	Seconds      float64     `json:"seconds"`
	LabelSeconds float64     `json:"label_seconds,omitempty"`
}

// PairedGain is a mean paired difference on validation episodes and its
// standard error.
type PairedGain struct {
	Diff float64 `json:"diff"`
	SE   float64 `json:"se"`
}

// CardPoint is one point of the validation curve the models page draws.
type CardPoint struct {
	Iteration  int       `json:"iteration"`
	Validation []float64 `json:"validation"`
	Elapsed    float64   `json:"elapsed"`
}
