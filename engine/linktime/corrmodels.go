package linktime

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
)

// CorrModel is one link-time correlation model: what it needs and how its
// factor is built. Every caller (import checks, flags, forms, sweeps, the
// pages) asks this table instead of switching on model names.
type CorrModel struct {
	Name    string
	Summary string // one line for help texts and form choices
	// Dense models hold a links × links covariance and its factor, so they
	// are limited to DenseLinkLimit links.
	Dense bool
	// Spatial models decay with distance: they need node coordinates and
	// read Strength and Length (0: DefaultSpatialLength).
	Spatial bool
	// Seeded models read Seed.
	Seeded bool
	// Factored models read Factors (0: DefaultFactors).
	Factored bool
	// Choosable models can be asked for by a flag, a form or a sweep;
	// explicit comes only with its covariance, from a file.
	Choosable bool
	// build fills g's factor; done reports that g is complete (its
	// correlation summary computed or not needed).
	build func(g *Gaussian, net *engine.Network, law Law) (done bool, err error)
}

// Correlation model names that code outside this table still needs as values
// (a network built in code states its model).
const (
	Independent = "independent"
	RandomPSD   = "random-psd"
	Spatial     = "spatial"
	Explicit    = "explicit"
	// FittedFactor is the correlation fitted from observed times: a
	// low-rank factor model of the links' normal scores.
	FittedFactor = "fitted-factor"
)

// DefaultCorrSeed seeds random-psd correlation when an import names none.
const DefaultCorrSeed = 1

// DefaultStrength is a spatial model's correlation between coincident links
// when none is given.
const DefaultStrength = 0.5

var corrModels = []CorrModel{
	{Name: Independent, Summary: "independent links", Choosable: true,
		build: func(g *Gaussian, _ *engine.Network, _ Law) (bool, error) {
			g.Spec.Model = Independent
			g.Stats.Rank = positive(g.SD)
			return true, nil
		}},
	{Name: RandomPSD, Summary: "random-psd: the paper's recipe (pairwise coefficients drawn at random, projected; dense)", Dense: true, Seeded: true, Choosable: true,
		build: func(g *Gaussian, net *engine.Network, _ Law) (bool, error) {
			var L *mat.Dense
			L, g.Stats.Clipped = randomPSDFactor(len(net.Links), net.Correlation.Seed)
			g.F = scaleRows(L, g.SD)
			return false, nil
		}},
	{Name: Spatial, Summary: "spatial: decays with distance (dense)", Dense: true, Spatial: true, Choosable: true,
		build: func(g *Gaussian, net *engine.Network, _ Law) (bool, error) {
			L, err := spatialFactor(net, net.Correlation.Strength, net.Correlation.Length)
			if err != nil {
				return false, err
			}
			g.F = scaleRows(L, g.SD)
			return false, nil
		}},
	{Name: SpatialFactor, Summary: "spatial-factor: decays with distance through K spatial factors (any size)", Spatial: true, Factored: true, Choosable: true,
		build: func(g *Gaussian, net *engine.Network, _ Law) (bool, error) {
			return true, spatialFactorModel(g, net)
		}},
	{Name: Explicit, Summary: "explicit: the file's own covariance (dense)", Dense: true,
		build: buildExplicit},
	{Name: FittedFactor, Summary: "fitted-factor: a low-rank factor model of the normal scores, fitted from observed times (any size)",
		build: buildFittedFactor},
}

// buildFittedFactor scales the fitted loadings of the normal scores' correlation
// by each link's latent SD: F_e = s_e L_e, Idio_e = s_e √(1 − |L_e|²).
func buildFittedFactor(g *Gaussian, net *engine.Network, _ Law) (bool, error) {
	L := net.Correlation.Loadings
	n := len(net.Links)
	if len(L) != n || n == 0 {
		return false, engine.Errorf(engine.EINVALID, "network %s: %s correlation needs one row of loadings per link (%d links, %d rows)", net.Name, FittedFactor, n, len(L))
	}
	k := len(L[0])
	g.F = mat.NewDense(n, max(k, 1), nil)
	g.Idio = make([]float64, n)
	for e, row := range L {
		if msg := CheckLoadings(row, k); msg != "" {
			return false, engine.Errorf(engine.EINVALID, "network %s: loadings of link %d: %s", net.Name, e, msg)
		}
		dst := g.F.RawRowView(e)
		for j, v := range row {
			dst[j] = g.SD[e] * v
		}
		g.Idio[e] = g.SD[e] * math.Sqrt(math.Max(1-floats.Dot(row, row), 0))
	}
	g.Stats.Rank = k + positive(g.SD)
	g.Stats.MeanAbs, g.Stats.MaxAbs = g.sampledCorrSummary()
	return true, nil
}

// CheckLoadings says what is wrong with one link's row of fitted loadings
// ("" if nothing): k finite values whose squares sum to at most 1.
func CheckLoadings(row []float64, k int) string {
	if len(row) != k {
		return "need " + strconv.Itoa(k) + " loadings like the first row, got " + strconv.Itoa(len(row))
	}
	ss := 0.0
	for _, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "loadings must be finite"
		}
		ss += v * v
	}
	if ss > 1+1e-9 {
		return "the squared loadings sum to " + strconv.FormatFloat(ss, 'g', 6, 64) + ": a correlation needs at most 1"
	}
	return ""
}

func buildExplicit(g *Gaussian, net *engine.Network, law Law) (bool, error) {
	n := len(net.Links)
	cov := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			cov.SetSym(i, j, net.Correlation.Covariance[i][j])
		}
	}
	var err error
	g.F, g.Stats.Clipped, err = eigenFactor(cov, 1e-8)
	if err != nil {
		return false, engine.Errorf(engine.EINVALID, "network %s: explicit covariance: %v", net.Name, err)
	}
	if law.Name != PaperLaw { // the covariance is the stated one: the latent law keeps its correlation
		for e, l := range net.Links {
			if sd := l.SD(); sd > 0 {
				floats.Scale(g.SD[e]/sd, g.F.RawRowView(e))
			}
		}
	}
	return false, nil
}

// CorrModels lists every correlation model, in the order help texts show them.
func CorrModels() []CorrModel { return slices.Clone(corrModels) }

// ChoosableCorrModels lists the models a flag, form or sweep can ask for.
func ChoosableCorrModels() []CorrModel {
	return slices.DeleteFunc(CorrModels(), func(m CorrModel) bool { return !m.Choosable })
}

// CorrModelNames joins the names of models for a message ("a, b or c").
func CorrModelNames(ms []CorrModel) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return engine.JoinOr(names)
}

// LookupCorrModel finds a model by name; "" is independent links.
func LookupCorrModel(name string) (CorrModel, bool) {
	if name == "" {
		name = Independent
	}
	i := slices.IndexFunc(corrModels, func(m CorrModel) bool { return m.Name == name })
	if i < 0 {
		return CorrModel{}, false
	}
	return corrModels[i], true
}

// CorrModelByName finds a model; "" is independent links.
func CorrModelByName(name string) (CorrModel, error) {
	if m, ok := LookupCorrModel(name); ok {
		return m, nil
	}
	return CorrModel{}, engine.Errorf(engine.EINVALID, "unknown correlation model %q (%s)", name, CorrModelNames(corrModels))
}

// CorrField is one setting of a correlation choice. Each caller names the
// fields its own way (flags --corr-seed, a form's corr_seed, a sweep's seed);
// the parser and its messages use the caller's names.
type CorrField int

// The settings of a correlation choice.
const (
	CorrFieldModel CorrField = iota
	CorrFieldSeed
	CorrFieldStrength
	CorrFieldLength
	CorrFieldFactors
)

// CorrFieldNames names the fields as one caller spells them.
type CorrFieldNames [5]string

// CorrFlagNames are the command line's names (without the dashes).
var CorrFlagNames = CorrFieldNames{"corr", "corr-seed", "corr-strength", "corr-length", "corr-factors"}

// CorrChoice is a correlation asked for by a flag, a form or a sweep, before
// a network is at hand: the zero value asks for nothing (the network's own).
type CorrChoice struct {
	Model    string  // "" keeps the network's (or the import's default)
	Seed     *uint64 // random-psd's seed (nil: see Apply and Correlation)
	Strength float64 // spatial models: correlation between coincident links, in [0,1]
	Length   float64 // spatial models: decay length (0: a tenth of the network's extent)
	Factors  int     // spatial-factor: factor count (0: DefaultFactors)
}

// ParseCorrChoice reads a choice from text settings (flags or form fields):
// value returns a field's text, "" when not given. Every error names the
// field as the caller spells it. An absent strength is DefaultStrength.
func ParseCorrChoice(value func(CorrField) string, names CorrFieldNames) (CorrChoice, error) {
	c := CorrChoice{Model: strings.TrimSpace(value(CorrFieldModel)), Strength: DefaultStrength}
	if c.Model == "default" {
		c.Model = ""
	}
	// num reads field f as a number in [lo, hi] (whole: an integer); ok
	// is false when the field is not given.
	num := func(f CorrField, lo, hi float64, whole bool) (x float64, ok bool, err error) {
		v := strings.TrimSpace(value(f))
		if v == "" {
			return 0, false, nil
		}
		x, err = engine.ParseNumber(v)
		if err != nil || x < lo || x > hi {
			return 0, false, engine.Errorf(engine.EINVALID, "%s=%q: give a number from %g to %g", names[f], v, lo, hi)
		}
		if whole && x != math.Trunc(x) {
			return 0, false, engine.Errorf(engine.EINVALID, "%s=%q: give a whole number", names[f], v)
		}
		return x, true, nil
	}
	seed, ok, err := num(CorrFieldSeed, 0, 1<<53, true)
	if err != nil {
		return c, err
	}
	if ok {
		s := uint64(seed)
		c.Seed = &s
	}
	if st, ok, err := num(CorrFieldStrength, 0, 1, false); err != nil {
		return c, err
	} else if ok {
		c.Strength = st
	}
	if c.Length, _, err = num(CorrFieldLength, 0, 1e12, false); err != nil {
		return c, err
	}
	k, _, err := num(CorrFieldFactors, 0, MaxFactors, true)
	if err != nil {
		return c, err
	}
	c.Factors = int(k)
	if field, msg := c.Problem(); msg != "" {
		return c, engine.Errorf(engine.EINVALID, "%s %s", names[field], msg)
	}
	return c, nil
}

// Problem reports the first setting that cannot be used ("" when none): an
// unknown or unchoosable model, a strength outside [0, 1], a negative length,
// a factor count out of range.
func (c CorrChoice) Problem() (CorrField, string) {
	if c.Model != "" {
		m, ok := LookupCorrModel(c.Model)
		if !ok || !m.Choosable {
			return CorrFieldModel, strconv.Quote(c.Model) + ": use " + CorrModelNames(ChoosableCorrModels())
		}
	}
	switch {
	case c.Strength < 0 || c.Strength > 1 || math.IsNaN(c.Strength):
		return CorrFieldStrength, strconv.FormatFloat(c.Strength, 'g', -1, 64) + ": give a value in [0, 1]"
	case c.Length < 0 || math.IsNaN(c.Length):
		return CorrFieldLength, strconv.FormatFloat(c.Length, 'g', -1, 64) + ": give a positive length (or 0 for the default)"
	case c.Factors < 0 || c.Factors > MaxFactors:
		return CorrFieldFactors, strconv.Itoa(c.Factors) + ": give 1 to " + strconv.Itoa(MaxFactors) + " (0 for the default)"
	}
	return 0, ""
}

// Correlation is the choice as an import states it (Model "" keeps the
// import's default); a random-psd choice without a seed takes
// DefaultCorrSeed, and a spatial length of 0 is filled in by the import once
// the coordinates are known.
func (c CorrChoice) Correlation() engine.Correlation {
	m, ok := LookupCorrModel(c.Model)
	if c.Model == "" || !ok {
		return engine.Correlation{}
	}
	return c.stated(m, DefaultCorrSeed, 0)
}

// stated is the correlation of model m the choice states: its seed, else
// seed; its strength and length, a length of 0 replaced by length; its
// factor count, else DefaultFactors.
func (c CorrChoice) stated(m CorrModel, seed uint64, length float64) engine.Correlation {
	out := engine.Correlation{Model: m.Name}
	if m.Seeded {
		out.Seed = seed
		if c.Seed != nil {
			out.Seed = *c.Seed
		}
	}
	if m.Spatial {
		out.Strength, out.Length = c.Strength, c.Length
		if out.Length == 0 {
			out.Length = length
		}
	}
	if m.Factored {
		out.Factors = c.Factors
		if out.Factors == 0 {
			out.Factors = DefaultFactors
		}
	}
	return out
}

// Apply replaces net's correlation by the choice, as `ontime bench --corr …`
// and a sweep's correlation settings ask: a seed alone reseeds the
// network's own random-psd; a random-psd choice without a seed keeps the
// network's seed when it is random-psd already, else 0; a spatial length of
// 0 is a tenth of the network's extent.
func (c CorrChoice) Apply(net *engine.Network) error {
	if _, msg := c.Problem(); msg != "" {
		return engine.Errorf(engine.EINVALID, "correlation %s", msg)
	}
	if c.Model == "" {
		if c.Seed != nil {
			if cur, _ := LookupCorrModel(net.Correlation.Model); !cur.Seeded {
				return engine.Errorf(engine.EINVALID, "a correlation seed applies to %s correlation; network %s uses %s", RandomPSD, net.Name, net.Correlation.Model)
			}
			net.Correlation.Seed = *c.Seed
		}
		return nil
	}
	m, _ := LookupCorrModel(c.Model)
	var seed uint64
	if net.Correlation.Model == m.Name {
		seed = net.Correlation.Seed
	}
	length := 0.0
	if m.Spatial && c.Length == 0 {
		length = DefaultSpatialLength(net)
	}
	net.Correlation = c.stated(m, seed, length)
	return nil
}
