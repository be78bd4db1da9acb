// The import options applied to an assembled network: law, spread,
// correlation, OD pairs and step cap.

package netfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// applyOptions sets variances, correlation, OD pairs and the step cap from
// the options and the default rules, noting each default it applied.
func applyOptions(net *engine.Network, src *source, o ImportOptions, rep *ImportReport) {
	unit, err := ParseTimeUnit("time_unit", o.TimeUnit)
	if err != nil {
		rep.Problems = append(rep.Problems, err.(*engine.Error))
		return
	}
	if src.minutes && unit != "" && unit != UnitMinutes {
		rep.Problems = append(rep.Problems, engine.InputError("", 0, "time_unit", "the times of %s are computed from lengths and speeds, in minutes: leave the time unit unset", rep.Format))
		return
	}
	if src.minutes {
		unit = ""
	}
	if unit != "" {
		if net.TimeUnit != "" && net.TimeUnit != UnitMinutes {
			rep.Problems = append(rep.Problems, engine.InputError("", 0, "time_unit", "this file's times were already converted from %s to minutes", net.TimeUnit))
			return
		}
		convertUnits(net, unit)
		net.TimeUnit = unit
		rep.note("times converted from %s to minutes", unit)
	}
	switch {
	case o.Law != "":
		net.Law = o.Law
	case rep.Format == "ontime JSON" && net.Law != "":
	default:
		net.Law = linktime.MatchedLaw
		rep.note("link-time law: %s (%s)", linktime.MatchedLaw, lawLabel(linktime.MatchedLaw))
	}
	if _, err := linktime.LawByName(net.Law); err != nil {
		rep.Problems = append(rep.Problems, engine.InputError("", 0, "law", "%s", engine.ErrorMessage(err)))
		return
	}
	scaleUnit := unit
	if src.minutes {
		scaleUnit = UnitMinutes // known, not guessed
	}
	defer scaleOf(net, scaleUnit, rep)
	fileVars := !src.noVars
	cv := o.CV
	if cv == 0 && !fileVars {
		cv = DefaultCV
	}
	if cv > 0 {
		for e := range net.Links {
			sd := cv * net.Links[e].Mean
			net.Links[e].Var = sd * sd
		}
		rep.note("link standard deviations: σ = %s × mean", strconv.FormatFloat(cv, 'g', -1, 64))
	}
	switch {
	case o.Corr.Model != "":
		net.Correlation = o.Corr
	case rep.Format == "ontime JSON" && net.Correlation.Model != "":
	case len(net.Links) <= DenseLinkLimit:
		net.Correlation = engine.Correlation{Model: linktime.RandomPSD, Seed: DefaultCorrSeed}
		rep.note("correlation: random-psd (the paper's recipe), seed %d", DefaultCorrSeed)
	case net.Coords != engine.CoordNone:
		net.Correlation = engine.Correlation{Model: linktime.SpatialFactor, Strength: DefaultFactorStrength, Factors: linktime.DefaultFactors}
		rep.note("correlation: %s, %d factors, strength %g (%d links is over the dense models' limit of %d; this model scales)",
			linktime.SpatialFactor, linktime.DefaultFactors, DefaultFactorStrength, len(net.Links), DenseLinkLimit)
	default:
		net.Correlation = engine.Correlation{Model: linktime.Independent}
		rep.note("correlation: independent (%d links is over the dense models' limit of %d, and without coordinates the spatial factor model has nothing to stand on)", len(net.Links), DenseLinkLimit)
	}
	if net.Correlation.Model == linktime.Explicit && o.PSDProject {
		rep.Problems = append(rep.Problems, projectIfNeeded(net, rep)...)
	}
	if m, _ := linktime.LookupCorrModel(net.Correlation.Model); m.Spatial && net.Correlation.Length == 0 {
		net.Correlation.Length = linktime.DefaultSpatialLength(net)
		rep.note("spatial correlation length: %.4g (drawing-frame units)", net.Correlation.Length)
	}
	if len(o.ODs) > 0 {
		src.odFile = "ods"
		var probs engine.Problems
		net.ODs, _, probs = parseODList(net, o.ODs, "ods")
		rep.Problems = append(rep.Problems, probs...)
	}
	if len(net.ODs) == 0 && len(rep.Problems) == 0 && len(net.Demand) > 0 {
		net.ODs = engine.DemandODs(net, DefaultODCount, DemandSeed, nil)
		if len(net.ODs) > 0 {
			rep.note("%s", demandNote(net, net.ODs))
		}
	}
	if len(net.ODs) == 0 && len(rep.Problems) == 0 {
		net.ODs = DefaultODs(net, DefaultODCount)
		var names []string
		for _, od := range net.ODs {
			names = append(names, net.ODString(od))
		}
		rep.note("OD pairs: %s, picked by rule (the pairs at the 50th to 90th percentile of LET time among 500 seeded random pairs)", strings.Join(names, ", "))
	}
	switch {
	case o.StepCap > 0:
		net.StepCap = o.StepCap
	case net.StepCap == 0 && len(net.ODs) > 0:
		net.StepCap = DefaultStepCap(net)
		rep.note("step cap: %d links per trip (1.5 × the longest LET path of the OD pairs, at least 12)", net.StepCap)
	}
}

// ReplaceODs sets a checked network's OD pairs to ods ("O-D" with node
// ids), as picked on its preview map before saving. Each must parse and be
// reachable; the step cap grows when the new pairs need more links (a
// chosen cap, capChosen, is kept). The report says what changed.
func ReplaceODs(net *engine.Network, ods []string, capChosen bool, rep *ImportReport) error {
	parsed, at, probs := parseODList(net, ods, "ods")
	var picked []engine.OD
	for k, od := range parsed {
		if math.IsInf(net.LET(od.Destination).Time[od.Origin], 1) {
			probs = append(probs, engine.InputError("ods", 0, fmt.Sprintf("ods[%d]", at[k]), "OD %s: the destination cannot be reached from the origin", net.ODString(od)))
			continue
		}
		picked = append(picked, od)
	}
	if len(picked) == 0 && len(probs) == 0 {
		probs = append(probs, engine.InputError("ods", 0, "ods", "no OD pair given"))
	}
	if err := probs.Err(); err != nil {
		return err
	}
	net.ODs = picked
	var names []string
	for _, od := range picked {
		names = append(names, net.ODString(od))
	}
	rep.note("OD pairs picked before saving: %s", strings.Join(names, ", "))
	if need := DefaultStepCap(net); !capChosen && need > net.StepCap {
		net.StepCap = need
		rep.note("step cap: %d links per trip (1.5 × the longest LET path of the picked OD pairs)", need)
	}
	return nil
}

// inRange says whether every pair is within ±180/±90 (what the automatic
// choice reads as geographic unless it is all at sea).
func inRange(coords [][2]float64) bool {
	for _, c := range coords {
		if math.Abs(c[0]) > 180 || math.Abs(c[1]) > 90 {
			return false
		}
	}
	return true
}
