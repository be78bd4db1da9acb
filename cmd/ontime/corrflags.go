package main

import (
	"flag"
	"fmt"

	"github.com/ontime-routing/ontime/engine/linktime"
)

// corrFlags are the correlation flags (--corr, --corr-seed, …): text flags
// read by linktime's one parser, so flags, forms and sweeps accept and refuse
// the same settings with the same messages.
type corrFlags struct {
	values [5]string
}

// register adds the flags; what is the first words of --corr's help and
// seedDefault says what an absent seed means.
func (c *corrFlags) register(fs *flag.FlagSet, what, seedDefault string) {
	names := linktime.CorrFlagNames
	fs.StringVar(&c.values[linktime.CorrFieldModel], names[linktime.CorrFieldModel], "", what+": "+linktime.CorrModelNames(linktime.ChoosableCorrModels()))
	fs.StringVar(&c.values[linktime.CorrFieldSeed], names[linktime.CorrFieldSeed], "", "seed of the random-psd correlation (default: "+seedDefault+")")
	fs.StringVar(&c.values[linktime.CorrFieldStrength], names[linktime.CorrFieldStrength], "", fmt.Sprintf("spatial correlation between coincident links, in [0,1] (default %g)", linktime.DefaultStrength))
	fs.StringVar(&c.values[linktime.CorrFieldLength], names[linktime.CorrFieldLength], "", "spatial decay length in the network's drawing units (default: a tenth of the network's extent)")
	fs.StringVar(&c.values[linktime.CorrFieldFactors], names[linktime.CorrFieldFactors], "", fmt.Sprintf("spatial-factor: number of spatial factors, a √K × √K grid (default %d)", linktime.DefaultFactors))
}

// given reports whether any correlation flag was given.
func (c *corrFlags) given() bool {
	for _, v := range c.values {
		if v != "" {
			return true
		}
	}
	return false
}

// choice parses the flags given.
func (c *corrFlags) choice() (linktime.CorrChoice, error) {
	names := linktime.CorrFlagNames
	for i := range names {
		names[i] = "--" + names[i]
	}
	return linktime.ParseCorrChoice(func(f linktime.CorrField) string { return c.values[f] }, names)
}
