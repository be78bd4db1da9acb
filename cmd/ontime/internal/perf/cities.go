package perf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/internal/procstatus"
)

// cityMethods are the methods a city is benchmarked with (issue 47's
// question: the planners that scale, history-aware or not).
var cityMethods = []string{"let", "dot", "cdot", "cgr"}

// city is a whole city measured at ontime's size: its files and name.
type city struct {
	name  string
	files func() ([]netfile.File, string, error) // "" and nil: not on this machine (the reason)
}

var cities = []city{
	{"generated grid 250 × 250", func() ([]netfile.File, string, error) { return GridFiles(250), "", nil }},
	{"Delaware (OpenStreetMap, every default road class)", delawareFiles},
}

// citySection measures each whole city: import, model, DOT's tables for the
// benchmark pairs and the four-method benchmark of 2 pools of 1,000.
func citySection(ctx context.Context, c *Config, w io.Writer) error {
	fmt.Fprintf(w, "Networks at ontime's size limit, whole. Import is reading the files into a network (as\n")
	fmt.Fprintf(w, "`ontime networks add` does, before storing); model is the link-time model's build; tables are\n")
	fmt.Fprintf(w, "DOT's for the destinations of the 5 benchmark OD pairs (one a core); bench is `ontime bench\n")
	fmt.Fprintf(w, "--methods %s --pools 2 --pool-size 1000` at the network's budget factors on\n", strings.Join(cityMethods, ","))
	fmt.Fprintf(w, "%d cores, its peak the process's resident memory while it ran (Linux VmHWM, reset before). bestpath is its\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "build for the 5 pairs at the network's budget factors: Yen's 200 shortest paths of each pair, searched in the\n")
	fmt.Fprintf(w, "corridor where they lie, and how many pairs' corridors held all 200 within %d links. plan is `ontime plan --methods\n", policy.BestPathLinkLimit)
	fmt.Fprintf(w, "%s` on the first pair (each method's least budget for 95%% on time, and its 3 fastest routes' indices) and\n", strings.Join(cityMethods, ","))
	fmt.Fprintf(w, "live `ontime live --methods %s` (factor 1.05, with the on-time curve), each on the days that fit, with its own peak.\n\n", strings.Join(cityMethods, ","))
	fmt.Fprintf(w, "| network | nodes | links | import s | model s | tables s | bench s | bench peak GB | bestpath s | pairs with 200 paths | plan s | plan peak GB | live s | live peak GB | days | build of each method |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	var reach []string // the rows of the second table
	for _, ct := range cities {
		if err := ctx.Err(); err != nil {
			return err
		}
		files, why, err := ct.files()
		if err != nil {
			return err
		}
		if files == nil {
			fmt.Fprintf(w, "| %s | | | | | | | | | | | | | | | not measured: %s |\n", ct.name, why)
			continue
		}
		fmt.Fprintf(c.Log, "perf: %s …\n", ct.name)
		t0 := time.Now()
		net, _, err := netfile.Import(files, netfile.ImportOptions{})
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		imp := time.Since(t0).Seconds()
		t0 = time.Now()
		model, err := linktime.New(net)
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		build := time.Since(t0).Seconds()
		t0 = time.Now()
		tasks := sim.Tasks(net, net.ODs, net.BudgetFactors())
		dot := (&policy.Env{Net: net, Model: model, Tasks: tasks, Ctx: ctx}).DOT() // not used after reach: the bench's peak is its own
		tables := time.Since(t0).Seconds()
		reach = append(reach, cityReach(ct.name, net, model, tasks, dot)...)
		debug.FreeOSMemory() // their pages back, so the peak below starts from the bench's own
		resetPeak()
		t0 = time.Now()
		rep, err := bench.Run(ctx, bench.Config{Net: net, Model: model, Methods: cityMethods, Budgets: net.BudgetFactors(), ODs: net.ODs,
			Pools: 2, PoolSize: 1000, Version: c.Version})
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		wall := time.Since(t0).Seconds()
		peak := peakGB()
		short := 0 // pairs whose corridor held fewer than 200 paths (bestpath logs each)
		t0 = time.Now()
		bp, _ := policy.Lookup("bestpath")
		if _, _, err := bp.New(&policy.Env{Net: net, Model: model, Tasks: tasks, Ctx: ctx, Logf: func(string, ...any) { short++ }}); err != nil {
			return fmt.Errorf("%s: bestpath: %w", ct.name, err)
		}
		bestpath := time.Since(t0).Seconds()
		runs, err := cityRuns(ctx, net, model)
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		var per []string
		for _, m := range rep.Provenance.Methods {
			per = append(per, fmt.Sprintf("%s %.1f s to build", m.Name, m.SolveSeconds))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f | %d of %d | %.0f | %.1f | %.0f | %.1f | %d | %s |\n", ct.name, len(net.Nodes), len(net.Links),
			imp, build, tables, wall, peak, bestpath, len(net.ODs)-short, len(net.ODs), runs.plan, runs.planPeak, runs.live, runs.livePeak, runs.days, strings.Join(per, "; "))
	}
	fmt.Fprintln(w)
	if len(reach) > 0 {
		fmt.Fprintf(w, "Where DOT works on each pair (issue 47's third deliverable): the table towards the pair's destination up\n")
		fmt.Fprintf(w, "to its largest budget covers nodes × budget bins; DOT solves and stores only the destination band, the\n")
		fmt.Fprintf(w, "bins whose value can be told from zero (engine/policy/dotband.go). An exact cut from the origin's side\n")
		fmt.Fprintf(w, "would keep only the band's bins an episode from the origin can read: the budget less the least sum of\n")
		fmt.Fprintf(w, "the links' floors from the origin (engine/policy/dotreach.go; no tail margin holds under correlated\n")
		fmt.Fprintf(w, "links). It is not built: this is what it would save.\n\n")
		fmt.Fprintf(w, "| network | OD pair | budget bins | nodes × bins | band bins | share of the grid | kept by an exact origin cut | share of the band |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range reach {
			fmt.Fprintln(w, r)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// cityReach is a row of the second table for each of net's pairs: its
// table's grid, band and what an exact cut from the origin would keep.
func cityReach(name string, net *engine.Network, model *linktime.Gaussian, tasks []sim.Task, dot *policy.DOT) []string {
	top := map[engine.OD]float64{}
	for _, t := range tasks {
		top[t.OD] = math.Max(top[t.OD], t.Budget)
	}
	var rows []string
	for _, od := range net.ODs {
		b, ok := top[od]
		if !ok {
			continue
		}
		r := dot.Reach(od.Destination, od.Origin, b, model.Floors)
		bins := r.Cells / int64(len(net.Nodes))
		rows = append(rows, fmt.Sprintf("| %s | %s | %d | %d | %d | %.1f%% | %d | %.1f%% |", name, net.ODString(od), bins, r.Cells, r.Band,
			100*float64(r.Band)/float64(r.Cells), r.Kept, 100*float64(r.Kept)/float64(r.Band)))
	}
	return rows
}

// cityRunTimes are the seconds and peaks of a city's plan and Live runs.
type cityRunTimes struct {
	plan, planPeak, live, livePeak float64
	days                           int
}

// cityRuns times the plan and Live on the city's first pair as the
// commands run them, each on a Net of its own (its tables solved afresh,
// as a command's are) and with the peak reset before.
func cityRuns(ctx context.Context, net *engine.Network, model *linktime.Gaussian) (cityRunTimes, error) {
	var r cityRunTimes
	od := net.ODs[0]
	debug.FreeOSMemory()
	resetPeak()
	t0 := time.Now()
	p, err := lab.NewNet(net, model, lab.Options{}).Plan(ctx, lab.PlanRequest{OD: od, Alpha: 0.95, Methods: cityMethods, Routes: 3})
	if err != nil {
		return r, fmt.Errorf("plan: %w", err)
	}
	r.plan, r.planPeak, r.days = time.Since(t0).Seconds(), peakGB(), p.Days
	for _, row := range p.Rows {
		if row.Err != "" {
			return r, fmt.Errorf("plan: %s: %s", row.Method, row.Err)
		}
	}
	debug.FreeOSMemory()
	resetPeak()
	t0 = time.Now()
	if _, err := lab.NewNet(net, model, lab.Options{}).Live(ctx, lab.LiveRequest{OD: od, Factor: 1.05, Methods: cityMethods, Episodes: lab.PoolSize, Curve: lab.LiveCurveFactors}, nil); err != nil {
		return r, fmt.Errorf("live: %w", err)
	}
	r.live, r.livePeak = time.Since(t0).Seconds(), peakGB()
	return r, nil
}

// GridFiles is a w × w street grid (links both ways, 100 units apart,
// means 0.5 to 2 min, σ = 0.3 μ) as a link CSV and a TNTP node file: the
// network the browser tests and this report use at ontime's size limit
// (w = 250: 62,500 nodes, 249,000 links).
func GridFiles(w int) []netfile.File {
	var links, nodes bytes.Buffer
	links.WriteString("From,To,Cost,Var\n")
	nodes.WriteString("Node\tX\tY\t;\n")
	id := func(x, y int) int { return y*w + x + 1 }
	mean := func(a, b int) float64 { return 0.5 + float64((a*7+b*13)%16)/10 }
	both := func(a, b int, m float64) {
		v := strconv.FormatFloat(0.09*m*m, 'f', 4, 64)
		fmt.Fprintf(&links, "%d,%d,%g,%s\n%d,%d,%g,%s\n", a, b, m, v, b, a, m, v)
	}
	for y := range w {
		for x := range w {
			fmt.Fprintf(&nodes, "%d\t%d\t%d\t;\n", id(x, y), x*100, y*100)
			if x+1 < w {
				both(id(x, y), id(x+1, y), mean(x, y))
			}
			if y+1 < w {
				both(id(x, y), id(x, y+1), mean(y, x+3))
			}
		}
	}
	return []netfile.File{{Name: "grid.csv", Data: links.Bytes()}, {Name: "grid_node.tntp", Data: nodes.Bytes()}}
}

// delawareFiles reads the Delaware extract the paulmach/osm module ships
// (from the Go module cache, where a build of ontime put it).
func delawareFiles() ([]netfile.File, string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/paulmach/osm").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		return nil, "the paulmach/osm module's testdata is not in the Go module cache here", nil
	}
	p := filepath.Join(dir, "testdata", "delaware-latest.osm.pbf")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, "no " + p, nil
	}
	return []netfile.File{{Name: filepath.Base(p), Data: b}}, "", nil
}

// resetPeak resets the process's peak resident memory (Linux).
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakGB is the process's peak resident memory since resetPeak, in GB
// (Linux; 0 elsewhere).
func peakGB() float64 {
	n, _ := procstatus.Bytes("VmHWM")
	return float64(n) / (1 << 30)
}
