package verify

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
)

// BuiltIn lists the built-in networks as cases: the five-node example with
// its closed form (the adaptive optimum at T = 106), and the paper's two
// benchmarks when the data directory has them. They keep the paper's law.
func BuiltIn(dataDir string, logf func(string, ...any)) []Case {
	var cases []Case
	if tb, err := builtin.Load(builtin.Example, ""); err == nil {
		let := tb.LET(tb.ODs[0].Destination).Time[tb.ODs[0].Origin]
		f := 106 / let
		opt := policy.TwoBranchOptimum()
		cases = append(cases, Case{Name: builtin.Example, Kind: "built-in", Net: tb,
			Closed: []ClosedForm{
				{Method: "condrule", Factor: f, P: opt, Why: "the adaptive optimum ½ + [arctan(1.5/√1.75) − arctan(1/√2)]/(2π)"},
				{Method: "cgr", Factor: f, P: opt, Why: "the adaptive optimum"},
			}, Note: "the paper's five-node example"})
	}
	for _, name := range []string{builtin.Ringtown, "sfn", "anaheim"} {
		net, err := builtin.Load(name, dataDir)
		if err != nil {
			logf("verify: %s skipped: %v", name, err)
			continue
		}
		cases = append(cases, Case{Name: name, Kind: "built-in", Net: net, Note: "built-in (the paper's law)"})
	}
	return cases
}

// SharedFiles are the networks of the data directory, imported as a new
// user would (every default): the real TNTP networks and SEGAC's link CSVs
// (sioux_network.csv's variances are 0.4 × cost, so σ/μ reaches 1 on short
// links). DRL-Router's Anaheim spreadsheet is the TNTP Anaheim's links and
// is not read (ontime reads no .xlsx).
var SharedFiles = []string{
	"tntp/SiouxFalls_net.tntp",
	"tntp/Anaheim_net.tntp",
	"tntp/berlin-mitte-center_net.tntp",
	"tntp/Winnipeg_net.tntp",
	"tntp/ChicagoSketch_net.tntp",
	"tntp/ChicagoRegional_net.tntp",
	"segac/SiouxFalls_network.csv",
	"segac/sioux_network.csv",
	"segac/simple_network.csv",
}

// Shared imports the data directory's TNTP networks with the defaults.
func Shared(dataDir string, logf func(string, ...any)) []Case {
	var cases []Case
	for _, rel := range SharedFiles {
		cases = append(cases, SharedCases(dataDir, rel, logf)...)
	}
	return cases
}

// SharedCases are one shared file's cases: the network imported with every
// default, and under the skewed laws when it is one of SkewedShared (none,
// with a note, when the file is missing or does not import).
func SharedCases(dataDir, rel string, logf func(string, ...any)) []Case {
	path := filepath.Join(dataDir, rel)
	if _, err := os.Stat(path); err != nil {
		logf("verify: %s skipped: not in %s", rel, dataDir)
		return nil
	}
	net, err := netfile.OpenFile(path, netfile.ImportOptions{})
	if err != nil {
		logf("verify: %s skipped: %v", rel, engine.ErrorMessage(err))
		return nil
	}
	cases := []Case{{Name: net.Name, Kind: "shared", Net: net, Note: "imported with every default from " + rel}}
	if slices.Contains(SkewedShared, rel) {
		cases = append(cases, skewedCases(net, rel)...)
	}
	return cases
}

// SkewedShared are the shared networks also checked under the skewed laws:
// the log-normal law of their stated means and SDs, and the law fitted to
// 500 days simulated from it (a fifth of the times missing).
var SkewedShared = []string{"tntp/SiouxFalls_net.tntp", "tntp/berlin-mitte-center_net.tntp"}

func skewedCases(net *engine.Network, rel string) []Case {
	ln := *net
	ln.Name, ln.Law = net.Name+"-lognormal", linktime.LogNormalLaw
	out := []Case{{Name: ln.Name, Kind: "shared", Net: &ln, Note: "the log-normal law of " + rel + "'s stated means and SDs"}}
	obs, err := fit.Simulate(&ln, 500, 0.2, 45)
	if err == nil {
		var fitted *engine.Network
		if fitted, _, err = fit.Fit(&ln, obs); err == nil {
			fitted.Name = net.Name + "-fitted"
			return append(out, Case{Name: fitted.Name, Kind: "shared", Net: fitted, Note: "the law fitted to 500 simulated days of " + ln.Name})
		}
	}
	return out
}
