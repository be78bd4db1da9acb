package lab

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/testenv"
)

// Every committed report fits the network it names: a network whose code or
// data changed without scripts/results.sh being rerun fails here.
func TestPublishedReportsFitTheirNetworks(t *testing.T) {
	files, err := fs.Glob(publishedFS, "published/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no published reports: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "published/"), ".json")
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "anaheim" {
				t.Skip("-short: anaheim's dense model takes 25 s to build under the race detector; the plain run checks its report")
			}
			n, err := New(Options{DataDir: dataDirFor(t, name)}).Open(name)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := n.Published()
			if err != nil || rep == nil || rep.Network != name || len(rep.Summary) == 0 {
				t.Fatalf("%v, %+v", err, rep)
			}
			// The published table is what the Benchmarks page's defaults
			// reproduce: the network's own budget factors.
			if fmt.Sprint(rep.Budgets) != fmt.Sprint(n.Net.BudgetFactors()) {
				t.Errorf("published at budgets %v, the network's defaults are %v", rep.Budgets, n.Net.BudgetFactors())
			}
		})
	}
}

// A report of other data is not shown as this network's.
func TestPublishedRefusesAnotherNetworksReport(t *testing.T) {
	n, err := New(Options{}).Open("twobranch")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := n.readPublished() // a copy of its own: altered below
	if err != nil || rep == nil {
		t.Fatalf("%v %v", rep, err)
	}
	rep.ODs[0].LETTime += 0.01
	if why := n.mismatch(rep); !strings.Contains(why, "LET time") {
		t.Errorf("changed LET time: %q", why)
	}
	rep.ODs[0].LETTime -= 0.01
	rep.Provenance.DataFiles = append(rep.Provenance.DataFiles, engine.SourceFile{Path: "tntp/x.tntp", SHA256: "00"})
	if why := n.mismatch(rep); !strings.Contains(why, "source files") {
		t.Errorf("an extra source file: %q", why)
	}
}

// dataDirFor is the benchmark data directory for networks read from it, and
// none for the built-in generated ones.
func dataDirFor(t *testing.T, name string) string {
	if name == "twobranch" || name == "ringtown" {
		return t.TempDir()
	}
	return testenv.DataDir(t)
}

// A report computed elsewhere (a sweep) is stored as a finished benchmark
// job of its network: the benchmarks page finds it as the latest, with
// where it came from; importing it again finds the same job.
func TestImportBench(t *testing.T) {
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	n, err := l.Open("twobranch")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := n.Published()
	if err != nil || rep == nil {
		t.Fatal(err)
	}
	st, err := l.ImportBench(context.Background(), "sweep-x|0", "sweep x, instance 0", rep)
	if err != nil || st.State != "done" {
		t.Fatalf("%+v %v", st, err)
	}
	latest, got, spec, ok := l.LatestBench("twobranch")
	if !ok || latest.ID != st.ID || latest.Source != "sweep x, instance 0" || got == nil || len(got.Summary) != len(rep.Summary) || spec.Pools != 10 {
		t.Errorf("latest %+v, spec %+v", latest, spec)
	}
	again, err := l.ImportBench(context.Background(), "sweep-x|0", "sweep x, instance 0", rep)
	if err != nil || again.ID != st.ID {
		t.Errorf("again: %+v %v", again, err)
	}
}
