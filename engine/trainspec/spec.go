// Package trainspec writes what the PyTorch trainer (models/train) reads:
// the network and its link-time model, the OD pairs and budget range, the
// validation pool's realizations and a teacher's demonstrations. Go owns the
// simulator's definitions; the trainer only draws its own training stream
// from the same Gaussian (X = μ + F z, floored) and never sees a test pool.
package trainspec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Spec is the trainer's input (spec.json beside the validation pool's raw
// float32 file). Episode sets (demonstrations, the student's own episodes
// with their labels) are files of their own: see Episodes.
type Spec struct {
	Network     string      `json:"network"`
	Fingerprint string      `json:"fingerprint"`
	Nodes       int         `json:"nodes"`
	Links       [][2]int    `json:"links"`
	OutLinks    [][]int     `json:"out_links"`
	Mean        []float64   `json:"mean"`
	SD          []float64   `json:"sd"`
	Factor      [][]float64 `json:"factor,omitempty"` // Σ = F Fᵀ (+ diag(Idio²)); absent for independent links
	Idio        []float64   `json:"idio,omitempty"`   // the factor model's own deviations; absent for the dense models
	Floor       float64     `json:"floor"`
	// Law is the link-time law; under any law but the paper's, the trainer
	// draws max(LatentMean + F z, Floors) with SD and Factor on the latent
	// scale (the paper's law: LatentMean = Mean, every floor Floor).
	Law        string    `json:"law,omitempty"`
	LatentMean []float64 `json:"latent_mean,omitempty"`
	Floors     []float64 `json:"floors,omitempty"`
	// Under a skewed law, the warped links (WarpLinks) draw
	// exp(the piecewise-linear function through (ZGrid, WarpLogTime[i]))
	// of their standardized latent value (x − LatentMean)/SD instead, as
	// linktime.Warp; their floor is 0.
	ZGrid       []float64   `json:"z_grid,omitempty"`
	WarpLinks   []int       `json:"warp_links,omitempty"`
	WarpLogTime [][]float64 `json:"warp_log_time,omitempty"`
	Correlation string      `json:"correlation"`
	// ODs are the pairs the model covers; ODWeights how often training
	// draws each; ValidationODs (indices into ODs) and ValidationFactors the
	// tasks the checkpoint rule validates on.
	ODs               [][2]int  `json:"ods"`
	ODNames           []string  `json:"od_names"`
	ODWeights         []float64 `json:"od_weights"`
	ValidationODs     []int     `json:"validation_ods"`
	ValidationFactors []float64 `json:"validation_factors"`
	LETTime           []float64 `json:"let_time"`
	BudgetLo          float64   `json:"budget_lo"` // factors of the LET time
	BudgetHi          float64   `json:"budget_hi"`
	// StepCap is the episode rule's cap (sim.StepCap), the only rule the
	// trainer needs besides arrival ≤ budget and over-budget ends.
	StepCap int `json:"step_cap"`
	// LETTo maps each destination (as a string key) to every node's LET
	// time to it (a large number where unreachable); SlackScale is the mean
	// standard deviation of the OD pairs' LET paths.
	LETTo      map[string][]float64 `json:"let_to"`
	SlackScale float64              `json:"slack_scale"`
	Seed       uint64               `json:"seed"`
	Validation Blob                 `json:"validation"` // realizations, rows × links
}

// Blob names a raw little-endian float32 file of Rows × Cols.
type Blob struct {
	File string `json:"file"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

// Options say what to put in a spec.
type Options struct {
	ODs                []engine.OD // the pairs the model covers
	ODWeights          []float64   // training weight per pair (default equal)
	ValidationODs      []int       // indices into ODs (default all)
	ValidationFactors  []float64
	BudgetLo, BudgetHi float64
	Seed               uint64
	ValidationSize     int
	// Validation is the validation pool when the caller already drew it
	// (nil: drawn here, ValidationSize realizations of validation pool 0).
	Validation *sim.Pool
}

// Fingerprint is engine.Fingerprint (kept here for the trainer's callers).
func Fingerprint(net *engine.Network, c engine.Correlation) string { return engine.Fingerprint(net, c) }

// Write writes spec.json and validation.f32 into dir.
func Write(dir string, net *engine.Network, m *linktime.Gaussian, o Options) (*Spec, error) {
	s := &Spec{Network: net.Name, Fingerprint: Fingerprint(net, m.Spec), Nodes: len(net.Nodes), Mean: m.Mean, SD: m.SD,
		Floor: linktime.Floor, Correlation: m.Spec.Model, BudgetLo: o.BudgetLo, BudgetHi: o.BudgetHi,
		StepCap: sim.StepCap(net, net.StepCap), Seed: o.Seed, ValidationODs: o.ValidationODs,
		ValidationFactors: o.ValidationFactors, ODWeights: o.ODWeights}
	if m.Law != linktime.PaperLaw {
		s.Law, s.LatentMean, s.Floors = m.Law, m.Latent, m.Floors
	}
	if m.Warps != nil {
		s.Floors = slices.Clone(m.Floors)
		s.ZGrid = linktime.ZGrid
		for e, w := range m.Warps {
			if w != nil {
				s.Floors[e] = 0 // −∞ latent: JSON has no infinity, and a warped time is positive
				s.WarpLinks = append(s.WarpLinks, e)
				s.WarpLogTime = append(s.WarpLogTime, w.LogTime)
			}
		}
	}
	for _, l := range net.Links {
		s.Links = append(s.Links, [2]int{l.From, l.To})
	}
	for i := range net.Nodes {
		s.OutLinks = append(s.OutLinks, append([]int{}, net.Out(i)...))
	}
	if m.F != nil {
		n, r := m.F.Dims()
		s.Factor = make([][]float64, n)
		for i := range n {
			s.Factor[i] = append([]float64(nil), m.F.RawRowView(i)[:r]...)
		}
		s.Idio = m.Idio
	}
	if len(o.ODs) == 0 {
		return nil, engine.Errorf(engine.EINVALID, "network %s: no OD pairs to train for", net.Name)
	}
	if s.ODWeights == nil {
		for range o.ODs {
			s.ODWeights = append(s.ODWeights, 1)
		}
	}
	if s.ValidationODs == nil {
		for k := range o.ODs {
			s.ValidationODs = append(s.ValidationODs, k)
		}
	}
	if s.ValidationFactors == nil {
		s.ValidationFactors = []float64{o.BudgetLo, (o.BudgetLo + o.BudgetHi) / 2, o.BudgetHi}
	}
	s.LETTo = map[string][]float64{}
	for _, od := range o.ODs {
		tree := net.LET(od.Destination)
		s.ODs = append(s.ODs, [2]int{od.Origin, od.Destination})
		s.ODNames = append(s.ODNames, net.ODString(od))
		s.LETTime = append(s.LETTime, tree.Time[od.Origin])
		key := fmt.Sprint(od.Destination)
		if _, ok := s.LETTo[key]; !ok {
			to := make([]float64, len(net.Nodes))
			for i, t := range tree.Time {
				to[i] = math.Min(t, 1e6)
			}
			s.LETTo[key] = to
		}
		_, sd := m.Condition(nil, nil).Sum(tree.Path(od.Origin, net))
		s.SlackScale += sd / float64(len(o.ODs))
	}
	if s.SlackScale <= 0 {
		s.SlackScale = 1
	}
	val := o.Validation
	if val == nil {
		val = sim.NewPool(m, net.PoolKey(), sim.Validation, 0, o.ValidationSize, o.Seed, nil)
	}
	s.Validation = Blob{File: "validation.f32", Rows: val.Size, Cols: val.Dim}
	if err := writeF32(filepath.Join(dir, s.Validation.File), val.X); err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return s, os.WriteFile(filepath.Join(dir, "spec.json"), b, 0o644)
}

// Episodes is an episode set the trainer reads: NAME.f32 holds one row per
// episode (OD index, budget, the realization of every link, rounded to
// float32 as the trainer sees it) and NAME.json the links taken and the
// label links at the states they reached (Labels nil: the taken ones, as in
// a demonstration).
type Episodes struct {
	OD     []int
	Budget []float64
	X      [][]float64
	Taken  [][]int `json:"taken"`
	Labels [][]int `json:"labels,omitempty"`
}

// Len is the number of episodes.
func (e *Episodes) Len() int { return len(e.OD) }

// Add appends an episode's task and realization (rounded to float32).
func (e *Episodes) Add(od int, budget float64, x []float64) {
	e.OD = append(e.OD, od)
	e.Budget = append(e.Budget, float64(float32(budget)))
	r := make([]float64, len(x))
	for i, v := range x {
		r[i] = float64(float32(v))
	}
	e.X = append(e.X, r)
}

// Write writes NAME.f32 and, when there are actions, NAME.json.
func (e *Episodes) Write(name string) error {
	var data []float64
	for i := range e.OD {
		data = append(data, float64(e.OD[i]), e.Budget[i])
		data = append(data, e.X[i]...)
	}
	if err := writeF32(name+".f32", data); err != nil {
		return err
	}
	if e.Taken == nil {
		return nil
	}
	b, err := json.Marshal(struct {
		Taken  [][]int `json:"taken"`
		Labels [][]int `json:"labels,omitempty"`
	}{e.Taken, e.Labels})
	if err != nil {
		return err
	}
	return os.WriteFile(name+".json", b, 0o644)
}

// ReadTaken reads the actions the trainer's collect command wrote.
func ReadTaken(path string) ([][]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v struct {
		Taken [][]int `json:"taken"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v.Taken, nil
}

func writeF32(path string, x []float64) error {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	}
	return os.WriteFile(path, b, 0o644)
}
