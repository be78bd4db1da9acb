package lab

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// CorrModels are the correlation models an override can ask for.
var CorrModels = []string{"independent", "random-psd", "spatial", linktime.SpatialFactor}

// CorrOverride replaces a network's link-time correlation, as `ontime bench
// --corr …` and a sweep's correlation settings ask. The zero value keeps the
// network's own.
type CorrOverride struct {
	Model    string  // independent, random-psd, spatial or spatial-factor; "" keeps the network's
	Seed     *uint64 // random-psd's seed (nil: the network's, else 0)
	Strength float64 // spatial: correlation between coincident links, in [0,1]
	Length   float64 // spatial: decay length (0: a tenth of the network's extent)
	Factors  int     // spatial-factor: number of factors (0: the default)
}

// Apply sets net's correlation.
func (c CorrOverride) Apply(net *engine.Network) error {
	length := c.Length
	if length == 0 && (c.Model == "spatial" || c.Model == linktime.SpatialFactor) {
		length = linktime.DefaultSpatialLength(net)
	}
	switch c.Model {
	case "":
		if c.Seed != nil {
			if net.Correlation.Model != "random-psd" {
				return engine.Errorf(engine.EINVALID, "a correlation seed applies to random-psd correlation; network %s uses %s", net.Name, net.Correlation.Model)
			}
			net.Correlation.Seed = *c.Seed
		}
	case "independent":
		net.Correlation = engine.Correlation{Model: "independent"}
	case "random-psd":
		var seed uint64
		switch {
		case c.Seed != nil:
			seed = *c.Seed
		case net.Correlation.Model == "random-psd":
			seed = net.Correlation.Seed
		}
		net.Correlation = engine.Correlation{Model: "random-psd", Seed: seed}
	case "spatial":
		net.Correlation = engine.Correlation{Model: "spatial", Strength: c.Strength, Length: length}
	case linktime.SpatialFactor:
		factors := c.Factors
		if factors == 0 {
			factors = linktime.DefaultFactors
		}
		net.Correlation = engine.Correlation{Model: linktime.SpatialFactor, Strength: c.Strength, Length: length, Factors: factors}
	default:
		return engine.Errorf(engine.EINVALID, "correlation %q: use independent, random-psd, spatial or spatial-factor", c.Model)
	}
	return nil
}
