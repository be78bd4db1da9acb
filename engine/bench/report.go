package bench

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Report is the result of a benchmark run; its JSON form is the `--format
// json` output.
type Report struct {
	Network string      `json:"network"`
	Methods []string    `json:"methods"`
	Focus   string      `json:"focus"`
	Budgets []float64   `json:"budgets"`
	ODs     []ODInfo    `json:"ods"`
	Summary []Summary   `json:"summary"`
	PerOD   []ODSummary `json:"per_od"`
	Paired  []Paired    `json:"paired"`
	// Leaders are each table row's marks (best, tied) with the tests they
	// rest on (Holm over the row), computed once with the report.
	Leaders []Leader `json:"leaders,omitempty"`
	// Outside lists the cells whose number is not the method's own: a
	// learned policy asked outside what it was trained for, or one whose
	// episodes its fallback drove home (engine.HandsOver).
	Outside    []OutsideCell `json:"outside,omitempty"`
	Provenance Provenance    `json:"provenance"`
}

// OutsideCell is one method's cell (OD pair, budget factor) outside its
// training cover (Reason), or where its fallback drove HandedOver of the
// cell's Episodes.
type OutsideCell struct {
	Method     string  `json:"method"`
	OD         string  `json:"od"`
	Budget     float64 `json:"budget"`
	Reason     string  `json:"reason,omitempty"`
	HandedOver int     `json:"handed_over"`
	Episodes   int     `json:"episodes"`
	Fallback   string  `json:"fallback,omitempty"`
}

// Outsides are the report's cells of method outside at budget (every OD
// pair when od is "").
func (rep *Report) Outsides(method, od string, budget float64) []OutsideCell {
	var out []OutsideCell
	for _, c := range rep.Outside {
		if c.Method == method && c.Budget == budget && (od == "" || c.OD == od) {
			out = append(out, c)
		}
	}
	return out
}

// IsBound reports whether a method of the report is a bound (a clairvoyant),
// which reports show but never mark best.
func (rep *Report) IsBound(method string) bool {
	for _, m := range rep.Provenance.Methods {
		if m.Name == method {
			return m.Bound
		}
	}
	return false
}

// ODInfo describes an OD pair's LET path.
type ODInfo struct {
	OD       string   `json:"od"`
	LETTime  float64  `json:"let_time"`
	LETLinks int      `json:"let_links"`
	LETPath  []string `json:"let_path"`
	// Depart is the departure on a network whose law changes over the day;
	// the LET fields are then the time-dependent LET path's at it.
	Depart string `json:"depart,omitempty"`
}

// Summary is a method's on-time rate at one budget: per pool the mean over
// OD pairs (equal weight), and the mean over pools.
type Summary struct {
	Method    string    `json:"method"`
	Budget    float64   `json:"budget"`
	Mean      float64   `json:"mean"`
	PoolMeans []float64 `json:"pool_means"`
}

// ODSummary is a method's on-time rate on one OD pair at one budget.
type ODSummary struct {
	Method    string    `json:"method"`
	OD        string    `json:"od"`
	Budget    float64   `json:"budget"`
	Mean      float64   `json:"mean"`
	PoolMeans []float64 `json:"pool_means"`
}

// Paired compares methods a and b at one budget over the pools: mean gain
// a − b, its 95% paired-t interval, the raw two-sided p and, inside the Holm
// family (focus against each other method), the Holm-adjusted p.
type Paired struct {
	A      string   `json:"a"`
	B      string   `json:"b"`
	Budget float64  `json:"budget"`
	Gain   float64  `json:"gain"`
	CILow  float64  `json:"ci_low"`
	CIHigh float64  `json:"ci_high"`
	P      float64  `json:"p"`
	PHolm  *float64 `json:"p_holm"`
}

// Provenance says exactly what produced a report.
type Provenance struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// GoVersion is the Go toolchain the binary was built with (an ONNX
	// method's settings name its model's SHA-256 and ONNX Runtime version).
	GoVersion    string              `json:"go_version,omitempty"`
	DataFiles    []engine.SourceFile `json:"data_files"`
	Correlation  CorrelationInfo     `json:"correlation"`
	FloorMinutes float64             `json:"floor_minutes"`
	// Law is the link-time law when it is not the paper's (whose floor is
	// FloorMinutes); absent in the paper's reports, as before laws existed.
	Law            string       `json:"law,omitempty"`
	StepCap        int          `json:"step_cap"`
	OnTime         string       `json:"on_time"`
	BenchSeed      uint64       `json:"seed"`
	Sampled        bool         `json:"sampled"`
	Pools          []PoolInfo   `json:"pools"`
	Methods        []MethodInfo `json:"methods"`
	ElapsedSeconds float64      `json:"elapsed_seconds"`
	// Depart, ArriveBy and Clock are a timed network's: the departure, the
	// deadline where one was asked, and the law over the day in words.
	Depart   string `json:"depart,omitempty"`
	ArriveBy string `json:"arrive_by,omitempty"`
	Clock    string `json:"clock,omitempty"`
}

// CorrelationInfo is the link-time correlation a report ran under.
type CorrelationInfo struct {
	Model    string  `json:"model"`
	Seed     uint64  `json:"seed,omitempty"`
	Strength float64 `json:"strength,omitempty"`
	Length   float64 `json:"length,omitempty"`
	linktime.CorrStats
}

// PoolInfo identifies one sample pool.
type PoolInfo struct {
	Purpose string    `json:"purpose"`
	Index   int       `json:"index"`
	Seed    [2]uint64 `json:"seed"`
	Size    int       `json:"size"`
}

// MethodInfo is a method's settings and the time its policy took to build.
type MethodInfo struct {
	Name         string         `json:"name"`
	Bound        bool           `json:"bound"`
	Settings     map[string]any `json:"settings"`
	SolveSeconds float64        `json:"solve_seconds"`
}

// WithoutTimings is a copy of the report with its wall and solve times
// zeroed: the only numbers two runs of one benchmark may differ in, so the
// copies of two runs (one whole, one assembled from a sweep's parts) are
// equal field for field.
func (rep *Report) WithoutTimings() *Report {
	c := *rep
	c.Provenance.ElapsedSeconds = 0
	c.Provenance.Methods = append([]MethodInfo(nil), rep.Provenance.Methods...)
	for i := range c.Provenance.Methods {
		c.Provenance.Methods[i].SolveSeconds = 0
	}
	return &c
}
