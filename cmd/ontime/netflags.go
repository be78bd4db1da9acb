package main

import (
	"context"
	"flag"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// netFlags are the flags that select a network and its correlation.
type netFlags struct {
	network  string
	data     string
	state    string
	corr     string
	corrSeed uint64
	strength float64
	length   float64
	factors  int
	// models is where the network's trained model lives, as the dashboard
	// reads it (a stored network's: STATE/models), set by load.
	models string
}

// stored reports whether the network named is a stored one (neither a
// built-in nor a file).
func (nf *netFlags) stored() bool {
	return !builtin.IsBuiltin(nf.network) && !netfile.LooksLikePath(nf.network)
}

func (nf *netFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&nf.network, "network", builtin.Example, "built-in network ("+strings.Join(builtin.Names, ", ")+"), a stored network's name, or a network file (.json, .csv, TNTP _net.tntp)")
	fs.StringVar(&nf.data, "data", "", "benchmark data directory (default $ONTIME_DATA)")
	fs.StringVar(&nf.state, "state", "", "state directory of stored networks (default $ONTIME_STATE, else "+defaultStateHint+")")
	fs.StringVar(&nf.corr, "corr", "", "override the correlation: independent, random-psd, spatial or spatial-factor")
	fs.Uint64Var(&nf.corrSeed, "corr-seed", 0, "seed of the random-psd correlation (default: the network's)")
	fs.Float64Var(&nf.strength, "corr-strength", 0.5, "spatial correlation between coincident links, in [0,1]")
	fs.Float64Var(&nf.length, "corr-length", 0, "spatial decay length in metres (default: a tenth of the network's extent)")
	fs.IntVar(&nf.factors, "corr-factors", linktime.DefaultFactors, "spatial-factor: number of spatial factors (a √K × √K grid)")
}

// load reads the network and builds its link-time model.
func (nf *netFlags) load(fs *flag.FlagSet, getenv func(string) string) (*engine.Network, *linktime.Gaussian, error) {
	// "ontime networks show sfn" names the network without the flag; any
	// other stray argument is a mistake worth reporting, not ignoring.
	networkSet := false
	fs.Visit(func(f *flag.Flag) { networkSet = networkSet || f.Name == "network" })
	switch {
	case fs.NArg() == 1 && !networkSet:
		nf.network = fs.Arg(0)
	case fs.NArg() > 0:
		return nil, nil, engine.Errorf(engine.EINVALID, "unexpected argument %q (flags go before arguments; the network is --network NAME)", fs.Arg(0))
	}
	l := lab.New(lab.Options{DataDir: orEnv(nf.data, getenv, "ONTIME_DATA"), StateDir: stateDir(nf.state, getenv)})
	defer l.Close()
	net, err := l.LoadNetworkOrFile(context.Background(), nf.network)
	if err != nil {
		return nil, nil, err
	}
	if nf.stored() {
		nf.models = l.ModelsDirFor(net.Name)
	}
	ov := lab.CorrOverride{Model: nf.corr, Strength: nf.strength, Length: nf.length, Factors: nf.factors}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "corr-seed" {
			ov.Seed = &nf.corrSeed
		}
	})
	switch {
	case nf.corr != "" && !slices.Contains(lab.CorrModels, nf.corr):
		return nil, nil, engine.Errorf(engine.EINVALID, "--corr %q: use independent, random-psd, spatial or spatial-factor", nf.corr)
	case nf.corr == "" && ov.Seed != nil && net.Correlation.Model != "random-psd":
		return nil, nil, engine.Errorf(engine.EINVALID, "--corr-seed applies to random-psd correlation; network %s uses %s (add --corr random-psd)", net.Name, net.Correlation.Model)
	}
	if err := ov.Apply(net); err != nil {
		return nil, nil, err
	}
	model, err := linktime.NewCached(net, learnerCache("", getenv))
	if err != nil {
		return nil, nil, err
	}
	return net, model, nil
}
