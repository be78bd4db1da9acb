package netfile

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// ImportSetting is one import setting as every door states it: the
// command line's flag (`ontime networks add --NAME`), the Add-a-network
// form's field (FormField), their label and help, the choices a menu
// offers, and the one parser both doors call, so that they accept and
// refuse the same values with the same message (naming the field as the
// door spells it).
type ImportSetting struct {
	Name  string // the flag's name (time-unit); the form's field is FormField()
	Label string // the form's label (with its default)
	Help  string // the flag's help (with its default)
	// Choices, when set, are the only values (the form's menu; the first
	// is the default).
	Choices func() []Choice
	// Switch settings are on or off: a flag without a value, a checkbox.
	Switch bool
	// Inputmode is the form's keyboard hint for a free-text setting
	// (numeric, decimal; "": text).
	Inputmode string
	// apply sets the value v (trimmed; never "") on o, or says what is
	// wrong with it (the caller names the field).
	apply func(o *ImportOptions, v string) error
	// corr: one of the correlation's fields, read together (see Apply).
	corr linktime.CorrField
}

// Choice is one value of a menu.
type Choice struct{ Value, Label string }

// FormField is the setting's name in the form (time_unit).
func (s ImportSetting) FormField() string { return strings.ReplaceAll(s.Name, "-", "_") }

// isCorr reports whether the setting is one of the correlation's fields.
func (s ImportSetting) isCorr() bool { return s.apply == nil }

// ImportSettings are the import's settings in the order forms and help
// list them.
var ImportSettings = []ImportSetting{
	{Name: "mean", Label: "Link means", Help: "link means: auto (the flow file's cost if given, else free-flow time), freeflow or flow",
		Choices: func() []Choice {
			return []Choice{{MeanAuto, "auto: the flow file's cost if given, else free-flow time"}, {MeanFreeFlow, "free-flow time"}, {MeanFlow, "the flow file's cost"}}
		},
		apply: func(o *ImportOptions, v string) error { o.Mean = v; return nil }},
	{Name: "cv", Inputmode: "decimal", Label: fmt.Sprintf("σ as a coefficient of variation (σ = CV × mean; empty: the file's variances, else %g)", DefaultCV),
		Help:  fmt.Sprintf("σ = CV × mean on every link, 0 to 5 (default: the file's variances, else %g)", DefaultCV),
		apply: func(o *ImportOptions, v string) (err error) { o.CV, err = number(v, 0, 5, false); return err }},
	{Name: "corr", Label: "Correlation", Help: "correlation (default: random-psd seed 1 up to 4,000 links, else spatial-factor, or independent without coordinates): " + linktime.CorrModelNames(linktime.ChoosableCorrModels()),
		Choices: func() []Choice {
			out := []Choice{{"default", "default: random-psd (seed 1) up to 4,000 links, else spatial-factor"}}
			for _, m := range linktime.ChoosableCorrModels() {
				out = append(out, Choice{m.Name, m.Summary})
			}
			return out
		}, corr: linktime.CorrFieldModel},
	{Name: "corr-seed", Inputmode: "numeric", Label: "random-psd seed", Help: fmt.Sprintf("seed of the random-psd correlation (default: %d)", linktime.DefaultCorrSeed), corr: linktime.CorrFieldSeed},
	{Name: "corr-strength", Inputmode: "decimal", Label: fmt.Sprintf("spatial strength (0–1, default %g)", linktime.DefaultStrength),
		Help: fmt.Sprintf("spatial correlation between coincident links, in [0,1] (default %g)", linktime.DefaultStrength), corr: linktime.CorrFieldStrength},
	{Name: "corr-length", Inputmode: "decimal", Label: "spatial length (drawing units; empty: a tenth of the extent)",
		Help: "spatial decay length in the network's drawing units (default: a tenth of the network's extent)", corr: linktime.CorrFieldLength},
	{Name: "corr-factors", Inputmode: "numeric", Label: fmt.Sprintf("spatial-factor factors (1–%d; empty: %d)", linktime.MaxFactors, linktime.DefaultFactors),
		Help: fmt.Sprintf("spatial-factor: number of spatial factors, a √K × √K grid (default %d)", linktime.DefaultFactors), corr: linktime.CorrFieldFactors},
	{Name: "cap", Inputmode: "numeric", Label: "Step cap (links per trip; empty: 1.5 × the longest LET path of the OD pairs, at least 12)",
		Help: "step cap: links per trip, 0 to 10000 (default: 1.5 × the longest LET path of the OD pairs, at least 12)",
		apply: func(o *ImportOptions, v string) error {
			x, err := number(v, 0, 10000, true)
			o.StepCap = int(x)
			return err
		}},
	{Name: "ods", Label: "OD pairs (O-D with node ids, comma-separated; empty: five drawn by a demand table's trips, else picked by rule)", Help: "OD pairs O-D,O-D with node ids (default: five drawn in proportion to the trips of a demand table given with the network, else picked by rule)",
		apply: func(o *ImportOptions, v string) error {
			o.ODs = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
			if len(o.ODs) > MaxODPairs {
				return fmt.Errorf("%d OD pairs given: a network takes at most %d", len(o.ODs), MaxODPairs)
			}
			return nil
		}},
	{Name: "highways",
		Label: "OpenStreetMap road classes (highway=…, comma-separated; empty: " + strings.Join(DefaultHighways, ", ") + ", leaving out the lowest when a city is over ontime's limits)",
		Help:  "OpenStreetMap highway classes to keep, comma-separated (default: " + strings.Join(DefaultHighways, ",") + ", leaving out the lowest when a city is over the limits)",
		apply: func(o *ImportOptions, v string) error { o.Highways = engine.SplitList(v); return nil }},
	{Name: "zones", Label: "Zone centroids", Help: "zone centroids: auto (trip ends only where the TNTP file has a first thru node), block or through",
		Choices: func() []Choice {
			return []Choice{{ZonesAuto, "auto: trip ends only where the file has a first thru node"}, {ZonesBlock, "trip ends only"}, {ZonesThrough, "may be passed through"}}
		},
		apply: func(o *ImportOptions, v string) error { o.Zones = v; return nil }},
	{Name: "coords", Label: "Coordinates", Help: "coordinates: planar or lonlat (default: lon/lat when every point is within ±180/±90)",
		Choices: func() []Choice {
			return []Choice{{"", "auto: lon/lat when every point is within ±180/±90 and not all within 3° of (0°, 0°), which is sea"},
				{"planar", "planar"}, {"lonlat", "longitude/latitude"}}
		},
		apply: func(o *ImportOptions, v string) error { o.Coords = v; return nil }},
	{Name: "time-unit", Label: "Unit of the file's times (TNTP files do not say; ontime shows minutes)", Help: "unit of the file's times: s, min or h (default min; converted to minutes)",
		Choices: func() []Choice {
			return []Choice{{UnitMinutes, "minutes"}, {UnitSeconds, "seconds"}, {UnitHours, "hours"}}
		},
		apply: func(o *ImportOptions, v string) (err error) { o.TimeUnit, err = ParseTimeUnit("", v); return err }},
	{Name: "law", Label: "Link-time law", Help: "link-time law: " + linktime.LawNames() + " (default: " + linktime.MatchedLaw + "; a JSON file's own)",
		Choices: func() []Choice {
			out := []Choice{{"", "default: " + linktime.MatchedLaw}}
			for _, l := range linktime.Laws {
				if !l.FromData {
					out = append(out, Choice{l.Name, l.Name + ": " + l.Label})
				}
			}
			return out
		},
		apply: func(o *ImportOptions, v string) error { _, err := linktime.ChooseLaw(v); o.Law = v; return err }},
	{Name: "period", Label: "Period of the day to fit (HH:MM-HH:MM, by the observations' time_of_day; empty: every row)",
		Help:  "with observed times: keep the rows whose time_of_day is in HH:MM-HH:MM",
		apply: func(o *ImportOptions, v string) error { _, err := fit.ParsePeriod(v); o.Period = v; return err }},
	{Name: "skip-bad-rows", Switch: true, Label: "Skip link rows that do not parse (each is named in the report) instead of refusing the file",
		Help: "skip link rows that do not parse, naming each in the report, instead of refusing the file",
		apply: func(o *ImportOptions, v string) (err error) {
			if o.SkipBadRows, err = strconv.ParseBool(v); err != nil {
				return errors.New("give true or false")
			}
			return nil
		}},
	{Name: "psd", Label: "Project a covariance that is not positive semi-definite onto the nearest valid one",
		Help:    "project: replace a covariance that is not positive semi-definite by its projection",
		Choices: func() []Choice { return []Choice{{"", "refuse it"}, {"project", "project it"}} },
		apply:   func(o *ImportOptions, v string) error { o.PSDProject = v == "project"; return nil }},
}

// ApplySettings reads every import setting from value (by setting; ""
// when not given) into o, the correlation's fields together. Errors name
// the setting as field(setting) spells it. The command line and the form
// both call it: they accept and refuse the same values.
func ApplySettings(o *ImportOptions, value func(ImportSetting) string, field func(ImportSetting) string) error {
	var corrValues [5]string
	var corrNames linktime.CorrFieldNames
	for _, s := range ImportSettings {
		v := strings.TrimSpace(value(s))
		if s.isCorr() {
			corrValues[s.corr], corrNames[s.corr] = v, field(s)
			continue
		}
		if v == "" {
			continue
		}
		if err := s.apply(o, v); err != nil { // its own message first: it says more
			return engine.Errorf(engine.EINVALID, "%s=%q: %s", field(s), v, settingMessage(err))
		}
		if s.Choices != nil && !slices.ContainsFunc(s.Choices(), func(c Choice) bool { return c.Value == v }) {
			return engine.Errorf(engine.EINVALID, "%s=%q: choose %s", field(s), v, choiceValues(s.Choices()))
		}
	}
	c, err := linktime.ParseCorrChoice(func(f linktime.CorrField) string { return corrValues[f] }, corrNames)
	if err != nil {
		return err
	}
	o.Corr = c.Correlation()
	return nil
}

// settingMessage is what a setting's parser said: an engine error's
// message, else the plain error's text (number's, strconv's).
func settingMessage(err error) string {
	var e *engine.Error
	var ps engine.Problems
	if errors.As(err, &e) || errors.As(err, &ps) {
		return engine.ErrorMessage(err)
	}
	return err.Error()
}

func choiceValues(cs []Choice) string {
	var out []string
	for _, c := range cs {
		if c.Value != "" {
			out = append(out, c.Value)
		}
	}
	return engine.JoinOr(out)
}

// number reads v as a number in [lo, hi] (whole: an integer).
func number(v string, lo, hi float64, whole bool) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || x < lo || x > hi {
		return 0, fmt.Errorf("give a number from %g to %g", lo, hi)
	}
	if whole && x != math.Trunc(x) {
		return 0, fmt.Errorf("give a whole number")
	}
	return x, nil
}
