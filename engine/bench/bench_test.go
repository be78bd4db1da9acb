package bench_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
)

var update = flag.Bool("update", false, "rewrite golden files")

func twobranch(t *testing.T, corr string) (*engine.Network, *linktime.Gaussian) {
	t.Helper()
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	if corr != "" {
		net.Correlation = engine.Correlation{Model: corr}
	}
	m, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	return net, m
}

// mcTol is four standard errors of a rate near ½ over n episodes.
func mcTol(n int) float64 { return 4 * math.Sqrt(0.25/float64(n)) }

// The truths of the five-node example at T = 106 on 10 × 10000: LET scores
// ½; the rule that uses the observed A→B time reaches the closed-form
// optimum 0.5370; with independent links it cannot beat ½.
func TestTwoBranchTruths(t *testing.T) {
	opt := policy.TwoBranchOptimum()
	if math.Abs(opt-0.5370) > 5e-5 {
		t.Fatalf("closed form %v, want 0.5370", opt)
	}
	tol := mcTol(100000)
	for _, tc := range []struct {
		corr string
		want map[string]float64
	}{
		{"", map[string]float64{"let": 0.5, "condrule": opt}},
		{"independent", map[string]float64{"let": 0.5, "condrule": 0.5}},
	} {
		net, m := twobranch(t, tc.corr)
		rep, err := bench.Run(context.Background(), bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule"},
			Budgets: []float64{1}, ODs: net.ODs, Pools: 10, PoolSize: 10000})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.Summary {
			if math.Abs(s.Mean-tc.want[s.Method]) > tol {
				t.Errorf("corr %q: %s scores %.4f, want %.4f ± %.4f", tc.corr, s.Method, s.Mean, tc.want[s.Method], tol)
			}
		}
	}
}

// The paper's history-control experiment with the rule policy: only the
// realized history on correlated links beats ½.
func TestHistoryControl(t *testing.T) {
	net, m := twobranch(t, "")
	rep, err := bench.HistoryControl(context.Background(), bench.Config{Net: net, Model: m,
		Budgets: []float64{1}, ODs: net.ODs, Pools: 10, PoolSize: 10000})
	if err != nil {
		t.Fatal(err)
	}
	tol := mcTol(100000)
	if len(rep.Rows) != 3 || rep.Optimum == nil {
		t.Fatalf("rows %+v", rep.Rows)
	}
	for _, r := range rep.Rows {
		want := 0.5
		if r.History == "realized history" {
			want = *rep.Optimum
		}
		if r.History != "shuffled history" && math.Abs(r.Correlated.Mean-want) > tol {
			t.Errorf("%s, correlated: %.4f, want %.4f", r.History, r.Correlated.Mean, want)
		}
		if math.Abs(r.Independent.Mean-0.5) > tol {
			t.Errorf("%s, independent: %.4f, want 0.5", r.History, r.Independent.Mean)
		}
	}
	// Shuffled history still sees the true remaining budget, so it may keep
	// a little of the gain, but far less than the realized history.
	real, shuf := rep.Rows[0].Correlated.Mean, rep.Rows[2].Correlated.Mean
	if !(shuf < real-0.015) {
		t.Errorf("shuffled %.4f not clearly below realized %.4f", shuf, real)
	}
}

// A fixed-route method for tests: always the first link out.
func init() {
	policy.Methods = append(policy.Methods, policy.Method{Name: "first", Doc: "test: first link out",
		New: func(env *policy.Env) (engine.Policy, map[string]any, error) {
			return engine.PolicyFunc(func(o *engine.Observation) int { return env.Net.Out(o.Node)[0] }), nil, nil
		}})
}

func TestReportJSONAndHolmFamily(t *testing.T) {
	net, m := twobranch(t, "")
	rep, err := bench.Run(context.Background(), bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule", "first"},
		Focus: "condrule", Budgets: []float64{0.99, 1.01}, ODs: net.ODs, Pools: 4, PoolSize: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Network string
		ODs     []struct {
			OD       string  `json:"od"`
			LETTime  float64 `json:"let_time"`
			LETLinks int     `json:"let_links"`
		} `json:"ods"`
		Summary []struct {
			Method    string
			Budget    float64
			Mean      float64
			PoolMeans []float64 `json:"pool_means"`
		}
		Paired []struct {
			A, B   string
			Budget float64
			P      float64
			PHolm  *float64 `json:"p_holm"`
		}
		Provenance struct {
			Commit    string
			DataFiles []any `json:"data_files"`
			Pools     []struct{ Seed [2]uint64 }
			Methods   []struct{ Name string }
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Network != "twobranch" || len(doc.ODs) != 1 || doc.ODs[0].LETLinks != 3 || doc.ODs[0].LETTime != 106 {
		t.Errorf("ods %+v", doc.ODs)
	}
	if len(doc.Summary) != 6 || len(doc.Summary[0].PoolMeans) != 4 {
		t.Errorf("summary %+v", doc.Summary)
	}
	// 3 methods × 2 budgets: per budget 2 family pairs (condrule vs let,
	// first) and 1 other pair (let vs first) with p_holm null.
	inFamily := 0
	for _, p := range doc.Paired {
		isFamily := p.A == "condrule"
		if isFamily != (p.PHolm != nil) {
			t.Errorf("pair %s-%s: p_holm %v", p.A, p.B, p.PHolm)
		}
		if p.PHolm != nil {
			inFamily++
			if *p.PHolm < p.P {
				t.Errorf("Holm p %v below raw %v", *p.PHolm, p.P)
			}
		}
	}
	if len(doc.Paired) != 6 || inFamily != 4 {
		t.Errorf("%d pairs, %d in the family", len(doc.Paired), inFamily)
	}
	if len(doc.Provenance.Pools) != 4 || len(doc.Provenance.Methods) != 3 || doc.Provenance.DataFiles == nil {
		t.Errorf("provenance %+v", doc.Provenance)
	}
	// Seed 3 is another benchmark instance: other pool seeds.
	if doc.Provenance.Pools[0].Seed[1] != 3<<32 {
		t.Errorf("pool seed %v does not carry the instance", doc.Provenance.Pools[0].Seed)
	}
}

// Every method meets the same realizations: two runs agree exactly, and the
// worker count does not change a result.
func TestCommonPoolsDeterministic(t *testing.T) {
	net, m := twobranch(t, "")
	cfg := bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule"}, Budgets: []float64{1}, ODs: net.ODs, Pools: 3, PoolSize: 300, Workers: 1}
	a, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 3
	b, _ := bench.Run(context.Background(), cfg)
	for i := range a.Summary {
		for k := range a.Summary[i].PoolMeans {
			if a.Summary[i].PoolMeans[k] != b.Summary[i].PoolMeans[k] {
				t.Fatalf("pool %d differs between runs", k)
			}
		}
	}
}

// The markdown report against a golden file (timings masked).
func TestMarkdownGolden(t *testing.T) {
	net, m := twobranch(t, "")
	rep, err := bench.Run(context.Background(), bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule", "first"},
		Budgets: []float64{0.98, 1, 1.02}, ODs: net.ODs, Pools: 5, PoolSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rep.Write(&buf, "md")
	got := regexp.MustCompile(`\d+\.\d+s`).ReplaceAll(buf.Bytes(), []byte("T"))
	got = regexp.MustCompile(`go1\.\d+(\.\d+)?`).ReplaceAll(got, []byte("GO")) // the toolchain's patch release varies
	if !bytes.Contains(got, []byte("Built by ontime unknown (commit unknown); GO.")) {
		t.Errorf("the report does not say which build made it:\n%s", got)
	}
	golden := filepath.Join("testdata", "twobranch.md")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err, " (run go test -update)")
	}
	if !bytes.Equal(got, want) {
		t.Errorf("markdown differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

func TestConfigErrors(t *testing.T) {
	net, m := twobranch(t, "")
	for _, cfg := range []bench.Config{
		{Net: net, Model: m, Methods: []string{"nope"}, Budgets: []float64{1}, ODs: net.ODs, Pools: 1, PoolSize: 1},
		{Net: net, Model: m, Methods: []string{"let"}, Focus: "condrule", Budgets: []float64{1}, ODs: net.ODs, Pools: 1, PoolSize: 1},
		{Net: net, Model: m, Methods: []string{"let"}, Budgets: []float64{-1}, ODs: net.ODs, Pools: 1, PoolSize: 1},
		{Net: net, Model: m, Methods: []string{"let"}, Budgets: []float64{1}, ODs: net.ODs, Pools: 0, PoolSize: 1},
		{Net: net, Model: m, Methods: []string{"let"}, Budgets: []float64{1}, ODs: net.ODs, Pools: 1, PoolSize: 0},
		{Net: net, Model: m, Methods: []string{"dot"}, Budgets: []float64{1}, ODs: net.ODs, Pools: 1, PoolSize: 1, DOTRounding: "nearest"},
	} {
		if _, err := bench.Run(context.Background(), cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// The summary CSV and the LaTeX table carry what the page shows: means,
// intervals and marks, without float noise; the CSV parses. A bound is
// compared but outside the Holm family.
func TestSummaryExports(t *testing.T) {
	net, m := twobranch(t, "")
	rep, err := bench.Run(context.Background(), bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule", "clairvoyant"},
		Budgets: []float64{1}, ODs: net.ODs, Pools: 5, PoolSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, "summary.csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*2 || strings.Join(rows[0], ",") != "network,method,od,budget,mean,ci_low,ci_high,mark,pools" {
		t.Fatalf("rows %v", rows)
	}
	marks := map[string]string{}
	for _, r := range rows[1:] {
		if len(r[4]) > 8 {
			t.Errorf("float noise: %q", r[4])
		}
		if r[2] == "all" {
			marks[r[1]] = r[7]
		}
	}
	if marks["condrule"] != "best" || marks["clairvoyant"] != "" || marks["let"] != "" {
		t.Errorf("marks %v", marks)
	}
	for _, p := range rep.Paired {
		if (p.A == "clairvoyant" || p.B == "clairvoyant") && p.PHolm != nil {
			t.Errorf("a bound is in the Holm family: %+v", p)
		}
	}
	buf.Reset()
	if err := rep.Write(&buf, "tex"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`\begin{tabular}{lrrr}`, `\textbf{`, `$\pm$`, `\bottomrule`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("LaTeX lacks %s:\n%s", want, buf.String())
		}
	}
}

// One pool is a quick look: the report holds means, no paired rows and no
// marks; every format writes it (JSON without NaN) and the tables say why
// there are no intervals.
func TestOnePool(t *testing.T) {
	net, m := twobranch(t, "")
	rep, err := bench.Run(context.Background(), bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule", "clairvoyant"},
		Budgets: []float64{0.95, 1}, ODs: net.ODs, Pools: 1, PoolSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Paired) != 0 {
		t.Errorf("paired rows with one pool: %+v", rep.Paired)
	}
	for _, c := range rep.SummaryRow(1) {
		if c.Mark != bench.Plain || !(c.Mean >= 0 && c.Mean <= 1) {
			t.Errorf("cell %+v", c)
		}
	}
	for _, format := range []string{"md", "json", "csv", "summary.csv", "tex"} {
		var b bytes.Buffer
		if err := rep.Write(&b, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if strings.Contains(b.String(), "NaN") {
			t.Errorf("%s holds NaN:\n%s", format, b.String())
		}
		if format == "md" && !strings.Contains(b.String(), "One pool: means only") {
			t.Errorf("markdown does not say why there are no intervals:\n%s", b.String())
		}
	}
}

// Marks are computed once, with the tests they rest on, and stored: the
// report read back from JSON marks its rows the same; a report without
// stored leaders (written before them) gets the same ones when read; and
// every stored leader agrees with its own tests (Best exactly when each
// Holm-adjusted p is under Alpha, Tied exactly the tests at or over it).
func TestLeadersStoredOnce(t *testing.T) {
	net, m := twobranch(t, "")
	rep, err := bench.Run(context.Background(), bench.Config{Net: net, Model: m, Methods: []string{"let", "condrule", "first", "clairvoyant"},
		Budgets: []float64{0.98, 1, 1.02}, ODs: net.ODs, Pools: 5, PoolSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(rep.Budgets) * (1 + len(rep.ODs)); len(rep.Leaders) != want {
		t.Fatalf("%d leaders, want %d", len(rep.Leaders), want)
	}
	for _, l := range rep.Leaders {
		separated := len(l.Tests) > 0
		for _, x := range l.Tests {
			if x.Method == "clairvoyant" || x.Method == l.Best {
				t.Errorf("%+v: a bound or the best itself is tested", l)
			}
			if x.Tied != (x.PHolm >= bench.Alpha) {
				t.Errorf("%+v: tied %v at p_holm %v", l, x.Tied, x.PHolm)
			}
			separated = separated && !x.Tied
		}
		if l.Separated != separated {
			t.Errorf("%+v: separated %v, its tests say %v", l, l.Separated, separated)
		}
	}
	data, _ := json.Marshal(rep)
	var back, old bench.Report
	json.Unmarshal(data, &back)
	json.Unmarshal(data, &old)
	old.Leaders = nil
	old.EnsureLeaders()
	for _, b := range rep.Budgets {
		want := rep.SummaryRow(b)
		if got := back.SummaryRow(b); !reflect.DeepEqual(got, want) {
			t.Errorf("budget %v read back: %v, want %v", b, got, want)
		}
		if got := old.SummaryRow(b); !reflect.DeepEqual(got, want) {
			t.Errorf("budget %v without stored leaders: %v, want %v", b, got, want)
		}
		for _, od := range rep.ODs {
			if got := back.ODRow(od.OD, b); !reflect.DeepEqual(got, rep.ODRow(od.OD, b)) {
				t.Errorf("OD %s budget %v read back differs", od.OD, b)
			}
		}
	}
}

// Prepare builds the methods as many at once as the run has workers (the
// learners first); no build reads another's, so one worker and four give
// the same policies, pool for pool, and the same settings. The progress
// callback is called one build at a time, names every method, and ends at
// all built.
func TestBuildsAtOnceChangeNothing(t *testing.T) {
	net, m := twobranch(t, "")
	methods := []string{"let", "dot", "pql", "cdot", "ctd", "cgr"}
	run := func(workers int) (*bench.Report, []string) {
		var (
			lines []string
			busy  atomic.Int32
		)
		cfg := bench.Config{Net: net, Model: m, Methods: methods, Budgets: []float64{0.95, 1.05}, ODs: net.ODs, Pools: 3, PoolSize: 300, Workers: workers,
			OnProgress: func(stage string, done, total int) {
				if busy.Add(1) != 1 {
					t.Error("progress called from two builds at once")
				}
				defer busy.Add(-1)
				if strings.HasPrefix(stage, "methods") {
					lines = append(lines, fmt.Sprintf("%s %d/%d", stage, done, total))
				}
			}}
		rep, err := bench.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return rep, lines
	}
	one, oneLines := run(1)
	many, lines := run(4)
	for i := range one.Summary {
		if !reflect.DeepEqual(one.Summary[i].PoolMeans, many.Summary[i].PoolMeans) {
			t.Errorf("%s: pool means %v built one at a time, %v four at a time", one.Summary[i].Method, one.Summary[i].PoolMeans, many.Summary[i].PoolMeans)
		}
	}
	for i, mi := range many.Provenance.Methods {
		if mi.Name != methods[i] || !reflect.DeepEqual(mi.Settings, one.Provenance.Methods[i].Settings) {
			t.Errorf("method %d: %s with %v, want %s with %v", i, mi.Name, mi.Settings, methods[i], one.Provenance.Methods[i].Settings)
		}
	}
	started := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "methods:") {
			started++
		}
	}
	if started != len(methods) || len(lines) == 0 || lines[len(lines)-1] != fmt.Sprintf("methods %d/%d", len(methods), len(methods)) {
		t.Errorf("progress %q: want each method started and all built last", lines)
	}
	// The learners start first: one at a time, pql then ctd; four at a
	// time, both among the first four started (which of the four tells
	// first is the scheduler's).
	if len(oneLines) < 3 || oneLines[0] != "methods:pql 0/6" || oneLines[2] != "methods:ctd 1/6" {
		t.Errorf("one at a time, progress %q: want pql then ctd first", oneLines)
	}
	var firstFour []string
	for _, l := range lines {
		if name, ok := strings.CutPrefix(l, "methods:"); ok && len(firstFour) < 4 {
			firstFour = append(firstFour, strings.Fields(name)[0])
		}
	}
	if !slices.Contains(firstFour, "pql") || !slices.Contains(firstFour, "ctd") {
		t.Errorf("four at a time, the first started %q: want the learners among them", firstFour)
	}
}
