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

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Spec is the trainer's input (spec.json beside two raw float32 files).
type Spec struct {
	Network     string      `json:"network"`
	Fingerprint string      `json:"fingerprint"`
	Nodes       int         `json:"nodes"`
	Links       [][2]int    `json:"links"`
	OutLinks    [][]int     `json:"out_links"`
	Mean        []float64   `json:"mean"`
	SD          []float64   `json:"sd"`
	Factor      [][]float64 `json:"factor,omitempty"` // Σ = F Fᵀ; absent for independent links
	Floor       float64     `json:"floor"`
	Correlation string      `json:"correlation"`
	ODs         [][2]int    `json:"ods"`
	ODNames     []string    `json:"od_names"`
	LETTime     []float64   `json:"let_time"`
	BudgetLo    float64     `json:"budget_lo"` // factors of the LET time
	BudgetHi    float64     `json:"budget_hi"`
	StepCap     int         `json:"step_cap"`
	// LETTo maps each destination (as a string key) to every node's LET
	// time to it (a large number where unreachable); SlackScale is the mean
	// standard deviation of the OD pairs' LET paths.
	LETTo       map[string][]float64 `json:"let_to"`
	SlackScale  float64              `json:"slack_scale"`
	Seed        uint64               `json:"seed"`
	Validation  Blob                 `json:"validation"` // realizations, rows × links
	Teacher     string               `json:"teacher"`
	Demos       Blob                 `json:"demos"` // per row: od index, budget, then the realization
	DemoActions [][]int              `json:"demo_actions"`
}

// Blob names a raw little-endian float32 file of Rows × Cols.
type Blob struct {
	File string `json:"file"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

// Options say what to put in a spec.
type Options struct {
	ODs                []engine.OD
	BudgetLo, BudgetHi float64
	Seed               uint64
	ValidationSize     int
	Teacher            engine.Policy
	TeacherName        string
	Demos              int
}

// Fingerprint is engine.Fingerprint (kept here for the trainer's callers).
func Fingerprint(net *engine.Network, c engine.Correlation) string { return engine.Fingerprint(net, c) }

// Write writes spec.json, validation.f32 and demos.f32 into dir.
func Write(dir string, net *engine.Network, m *linktime.Gaussian, o Options) (*Spec, error) {
	s := &Spec{Network: net.Name, Fingerprint: Fingerprint(net, m.Spec), Nodes: len(net.Nodes), Mean: m.Mean, SD: m.SD,
		Floor: linktime.Floor, Correlation: m.Spec.Model, BudgetLo: o.BudgetLo, BudgetHi: o.BudgetHi,
		StepCap: sim.StepCap(net, net.StepCap), Seed: o.Seed, Teacher: o.TeacherName}
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
	}
	if len(o.ODs) == 0 {
		return nil, engine.Errorf(engine.EINVALID, "network %s: no OD pairs to train for", net.Name)
	}
	s.LETTo = map[string][]float64{}
	for _, od := range o.ODs {
		tree := net.LET(od.Destination)
		s.ODs = append(s.ODs, [2]int{od.Origin, od.Destination})
		s.ODNames = append(s.ODNames, net.ODString(od))
		s.LETTime = append(s.LETTime, tree.Time[od.Origin])
		to := make([]float64, len(net.Nodes))
		for i, t := range tree.Time {
			to[i] = math.Min(t, 1e6)
		}
		s.LETTo[fmt.Sprint(od.Destination)] = to
		_, sd := m.Condition(nil, nil).Sum(tree.Path(od.Origin, net))
		s.SlackScale += sd / float64(len(o.ODs))
	}
	if s.SlackScale <= 0 {
		s.SlackScale = 1
	}
	val := sim.NewPool(m, net.PoolKey(), sim.Validation, 0, o.ValidationSize, o.Seed, nil)
	s.Validation = Blob{File: "validation.f32", Rows: val.Size, Cols: val.Dim}
	if err := writeF32(filepath.Join(dir, s.Validation.File), val.X); err != nil {
		return nil, err
	}
	if err := s.demos(dir, net, m, o); err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return s, os.WriteFile(filepath.Join(dir, "spec.json"), b, 0o644)
}

// demos plays the teacher on training-stream realizations with budgets drawn
// uniformly in the factor range, recording its actions.
func (s *Spec) demos(dir string, net *engine.Network, m *linktime.Gaussian, o Options) error {
	if o.Teacher == nil || o.Demos == 0 {
		s.Demos = Blob{File: "demos.f32", Rows: 0, Cols: 2 + len(net.Links)}
		return writeF32(filepath.Join(dir, s.Demos.File), nil)
	}
	stream := sim.NewStream(m, net.PoolKey(), o.Seed)
	pool := stream.Next(o.Demos)
	cols := 2 + len(net.Links)
	data := make([]float64, 0, o.Demos*cols)
	r := &sim.Runner{Net: net}
	res := make([]sim.Result, 1)
	rec := &recorder{p: o.Teacher}
	for i := range o.Demos {
		k := i % len(s.ODs)
		f := o.BudgetLo + (o.BudgetHi-o.BudgetLo)*frac(i, o.Demos)
		budget := f * s.LETTime[k]
		one := &sim.Pool{Purpose: sim.Train, Index: i, Size: 1, Dim: pool.Dim, X: pool.Row(i)}
		rec.actions = rec.actions[:0]
		if err := r.Run(rec, sim.Task{OD: o.ODs[k], Budget: budget, Cap: net.StepCap}, one, res); err != nil {
			return err
		}
		data = append(data, float64(k), budget)
		data = append(data, pool.Row(i)...)
		s.DemoActions = append(s.DemoActions, append([]int{}, rec.actions...))
	}
	s.Demos = Blob{File: "demos.f32", Rows: o.Demos, Cols: cols}
	return writeF32(filepath.Join(dir, s.Demos.File), data)
}

// frac spreads i over [0, 1) with a golden-ratio sequence, so budgets cover
// the range evenly whatever the count.
func frac(i, _ int) float64 {
	_, f := math.Modf(float64(i) * 0.6180339887498949)
	return f
}

type recorder struct {
	p       engine.Policy
	actions []int
}

func (r *recorder) Act(o *engine.Observation) int {
	a := r.p.Act(o)
	r.actions = append(r.actions, a)
	return a
}

func writeF32(path string, x []float64) error {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	}
	return os.WriteFile(path, b, 0o644)
}
