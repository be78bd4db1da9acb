package main

import (
	"context"
	"flag"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// netFlags are the flags that select a network and its correlation.
type netFlags struct {
	network string
	data    string
	state   string
	corr    corrFlags
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
	fs.StringVar(&nf.network, "network", builtin.Example, "built-in network ("+strings.Join(builtin.Names, ", ")+"), a stored network's name, or a network's files: "+netfile.FormatList())
	fs.StringVar(&nf.data, "data", "", "benchmark data directory (default $ONTIME_DATA)")
	registerStateVar(fs, &nf.state)
	nf.corr.register(fs, "override the correlation", "the network's")
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
	l := newLab(getenv, nf.state, lab.Options{DataDir: orEnv(nf.data, getenv, "ONTIME_DATA")})
	defer l.Close()
	net, err := l.LoadNetworkOrFile(context.Background(), nf.network)
	if err != nil {
		return nil, nil, err
	}
	if nf.stored() {
		nf.models = l.ModelsDirFor(net.Name)
	}
	ov, err := nf.corr.choice()
	if err != nil {
		return nil, nil, err
	}
	if ov.Model == "" && ov.Seed != nil && net.Correlation.Model != linktime.RandomPSD {
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
