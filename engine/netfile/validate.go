package netfile

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Size limits, enforced on import. Dense correlation models hold a links ×
// links covariance and its eigen factor (linktime.DenseLinkLimit); larger
// networks take independent links.
const (
	MaxNodes       = 100000
	MaxLinks       = 250000
	DenseLinkLimit = linktime.DenseLinkLimit
	// MaxMean (minutes, about two years) and MaxCV bound a link's law to
	// what the engine computes with: sums of means stay exact in float64
	// and DOT's grid finite, and the matched law is solved (and tested) up
	// to a standard deviation ten times the mean.
	MaxMean = 1e6
	MaxCV   = 10
	// MaxIDLength and MaxDescription bound the text a file carries into
	// every page that shows it.
	MaxIDLength    = 200
	MaxDescription = 4000
)

// Check validates a network read from files and lists every problem, each
// naming the file, line and field it came from: non-finite or non-positive
// means, negative or non-finite variances, self-loops, duplicate links, a
// covariance that is not symmetric or not positive semi-definite,
// unreachable OD pairs, and sizes over the limits. Every path from a file to
// a policy goes through it.
func Check(net *engine.Network, src *source, o ImportOptions) engine.Problems {
	var probs problemList // every problem, up to the bound
	at := func(e int) linkSource { return src.at(e, net) }
	if len(net.Nodes) > MaxNodes {
		probs.add(engine.Errorf(engine.EINVALID, "%d nodes: ontime takes at most %d", len(net.Nodes), MaxNodes))
	}
	if len(net.Links) > MaxLinks {
		probs.add(engine.Errorf(engine.EINVALID, "%d links: ontime takes at most %d", len(net.Links), MaxLinks))
	}
	if len(net.Links) == 0 {
		probs.add(engine.Errorf(engine.EINVALID, "the network has no links"))
	}
	if n := len([]rune(net.Description)); n > MaxDescription {
		probs.add(engine.InputError(src.file(), 0, "description", "%d characters: at most %d", n, MaxDescription))
	}
	for i, n := range net.Nodes {
		if len(n.ID) > MaxIDLength {
			probs.add(engine.InputError(src.file(), 0, fmt.Sprintf("nodes[%d].id", i), "node id %q is %d bytes long: at most %d", trunc(n.ID), len(n.ID), MaxIDLength))
		}
		if probs.full {
			break
		}
	}
	seen := make(map[[2]int]int, len(net.Links))
	for e, l := range net.Links {
		s := at(e)
		from, to := net.Nodes[l.From].ID, cmp.Or(s.to, net.Nodes[l.To].ID)
		switch {
		case !finite(l.Mean):
			probs.add(engine.InputError(s.file, s.line, s.meanField, "link %s→%s: mean %v is not a finite number", from, to, l.Mean))
		case l.Mean <= 0:
			probs.add(engine.InputError(s.file, s.line, s.meanField, "link %s→%s: mean %v must be positive", from, to, l.Mean))
		case l.Mean > MaxMean:
			probs.add(engine.InputError(s.file, s.line, s.meanField, "link %s→%s: mean %.4g min is over ontime's limit of %g min (check the time unit)", from, to, l.Mean, float64(MaxMean)))
		}
		switch {
		case !finite(l.Var):
			probs.add(engine.InputError(s.file, s.line, s.varField, "link %s→%s: variance %v is not a finite number", from, to, l.Var))
		case l.Var < 0:
			probs.add(engine.InputError(s.file, s.line, s.varField, "link %s→%s: variance %v must be ≥ 0", from, to, l.Var))
		case l.Mean > 0 && l.Mean <= MaxMean && math.Sqrt(l.Var) > MaxCV*l.Mean:
			probs.add(engine.InputError(s.file, s.line, s.varField, "link %s→%s: standard deviation %.4g is over %d times the mean %.4g (ontime's limit)", from, to, math.Sqrt(l.Var), MaxCV, l.Mean))
		}
		if l.From == l.To {
			probs.add(engine.InputError(s.file, s.line, "From/To", "link %s→%s is a self-loop", from, to))
		}
		k := [2]int{l.From, l.To}
		if first, dup := seen[k]; dup {
			fs := at(first)
			probs.add(engine.InputError(s.file, s.line, "From/To", "duplicate link %s→%s (first at %s line %d)", from, to, fs.file, fs.line))
		} else {
			seen[k] = e
		}
	}
	c := net.Correlation
	cm, known := linktime.LookupCorrModel(c.Model)
	switch {
	case !known || c.Model == "": // a network states its model
		probs.add(engine.InputError("correlation", 0, "model", "unknown model %q (%s)", c.Model, linktime.CorrModelNames(linktime.CorrModels())))
	case cm.Dense && len(net.Links) > DenseLinkLimit:
		probs.add(engine.InputError("correlation", 0, "model", "%s correlation holds a dense %d × %d covariance; it is limited to %d links: choose spatial-factor (scales to any size) or independent links for this network", c.Model, len(net.Links), len(net.Links), DenseLinkLimit))
	}
	if cm.Spatial && (c.Strength < 0 || c.Strength > 1) {
		probs.add(engine.InputError("correlation", 0, "strength", "must be in [0, 1], got %v", c.Strength))
	}
	if cm.Spatial && net.Coords == engine.CoordNone {
		probs.add(engine.InputError("correlation", 0, "model", "%s correlation decays with distance and needs node coordinates (in ontime JSON: \"coordinates\": \"planar\" or \"lonlat\")", c.Model))
	}
	if cm.Factored && (c.Factors < 0 || c.Factors > linktime.MaxFactors) {
		probs.add(engine.InputError("correlation", 0, "factors", "must be 1 to %d (0: %d), got %d", linktime.MaxFactors, linktime.DefaultFactors, c.Factors))
	}
	if c.Model == linktime.Explicit && o.MaxExplicitLinks > 0 && len(net.Links) > o.MaxExplicitLinks {
		probs.add(engine.InputError(src.file(), 0, "correlation.covariance", "an explicit covariance over %d links is imported on the command line only (`ontime networks add`): checking it takes minutes; this network has %d links", o.MaxExplicitLinks, len(net.Links)))
	}
	if c.Model == linktime.Explicit && len(probs.list) == 0 {
		probs.add(checkCovariance(net, src.file(), o.PSDProject)...)
	}
	if len(probs.list) > 0 {
		return probs.list // reachability needs sound means
	}
	odFile := "ods"
	if src != nil && src.odFile != "" {
		odFile = src.odFile
	}
	if probs.add(checkODList(net, odFile)...) {
		return probs.list
	}
	for i, od := range net.ODs {
		if math.IsInf(net.LET(od.Destination).Time[od.Origin], 1) {
			probs.add(engine.InputError(odFile, 0, fmt.Sprintf("ods[%d]", i), "OD %s: the destination cannot be reached from the origin", net.ODString(od)))
		}
	}
	if net.StepCap < 0 {
		probs.add(engine.InputError("step_cap", 0, "step_cap", "must be ≥ 0"))
	}
	return probs.list
}

// file names the network's link file, for messages.
func (s *source) file() string {
	if s != nil && len(s.links) > 0 {
		return s.links[0].file
	}
	return "network"
}

// checkCovariance checks an explicit covariance: one row per link, symmetric,
// diagonal equal to the variances, positive semi-definite (or projected
// onto the PSD cone when asked).
func checkCovariance(net *engine.Network, file string, project bool) engine.Problems {
	cov := net.Correlation.Covariance
	n := len(net.Links)
	f := "correlation.covariance"
	if len(cov) != n {
		return engine.Problems{engine.InputError(file, 0, f, "need %d rows (one per link), got %d", n, len(cov))}
	}
	var probs problemList
	for i, row := range cov {
		if len(row) != n {
			if probs.add(engine.InputError(file, 0, fmt.Sprintf("%s[%d]", f, i), "need %d entries, got %d", n, len(row))) {
				break
			}
			continue
		}
		for j, v := range row {
			if !finite(v) {
				probs.add(engine.InputError(file, 0, fmt.Sprintf("%s[%d][%d]", f, i, j), "%v is not a finite number", v))
			} else if j < len(cov[j]) && math.Abs(v-cov[j][i]) > 1e-12*(1+math.Abs(v)) && j > i {
				probs.add(engine.InputError(file, 0, fmt.Sprintf("%s[%d][%d]", f, i, j), "not symmetric: %v, but [%d][%d] is %v", v, j, i, cov[j][i]))
			}
		}
		if v := net.Links[i].Var; math.Abs(row[i]-v) > 1e-9*(1+v) {
			probs.add(engine.InputError(file, 0, fmt.Sprintf("%s[%d][%d]", f, i, i), "diagonal %v differs from link %d's variance %v", row[i], i, v))
		}
		if probs.full {
			break
		}
	}
	if len(probs.list) > 0 || project {
		return probs.list
	}
	if lo := minEigen(cov); lo < -1e-9*maxDiag(cov) {
		probs.add(engine.InputError(file, 0, f, "not positive semi-definite (smallest eigenvalue %.4g): import it with the projection (--psd project, or 'project onto the nearest valid covariance' in the form), which clips negative eigenvalues and keeps the variances", lo))
	}
	return probs.list
}

func symDense(cov [][]float64) *mat.SymDense {
	n := len(cov)
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, cov[i][j])
		}
	}
	return s
}

func minEigen(cov [][]float64) float64 {
	var eig mat.EigenSym
	if !eig.Factorize(symDense(cov), false) {
		return math.Inf(-1)
	}
	return slices.Min(eig.Values(nil))
}

func maxDiag(cov [][]float64) float64 {
	m := 0.0
	for i := range cov {
		m = math.Max(m, cov[i][i])
	}
	return math.Max(m, 1e-300)
}

// projectIfNeeded replaces a non-PSD explicit covariance by its projection:
// negative eigenvalues clipped to zero, then rows rescaled so that every
// variance is kept (the random-psd recipe's repair).
func projectIfNeeded(net *engine.Network, rep *ImportReport) engine.Problems {
	if probs := checkCovariance(net, net.Name, true); len(probs) > 0 {
		return probs
	}
	cov := net.Correlation.Covariance
	if minEigen(cov) >= -1e-9*maxDiag(cov) {
		return nil
	}
	var eig mat.EigenSym
	if !eig.Factorize(symDense(cov), true) {
		return engine.Problems{engine.InputError(net.Name, 0, "correlation.covariance", "the eigendecomposition failed")}
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	n := len(cov)
	clipped := 0
	for k, v := range vals {
		if v < 0 {
			vals[k] = 0
			clipped++
		}
	}
	out := make([][]float64, n)
	for i := range n {
		out[i] = make([]float64, n)
		for j := range n {
			s := 0.0
			for k, v := range vals {
				s += vecs.At(i, k) * v * vecs.At(j, k)
			}
			out[i][j] = s
		}
	}
	diag := make([]float64, n)
	for i := range n {
		diag[i] = out[i][i]
	}
	for i := range n {
		for j := range n {
			if diag[i] > 0 && diag[j] > 0 {
				out[i][j] *= math.Sqrt(cov[i][i]*cov[j][j]) / math.Sqrt(diag[i]*diag[j])
			}
		}
	}
	for i := range n {
		for j := range i {
			out[i][j] = out[j][i] // exact symmetry after rounding
		}
		out[i][i] = cov[i][i]
	}
	net.Correlation.Covariance = out
	rep.note("the covariance was not positive semi-definite: projected (%d negative eigenvalues clipped, variances kept)", clipped)
	return nil
}

// OriginSuffix marks the origin half of a zone centroid split by BlockZones.
const OriginSuffix = engine.OriginSuffix

// parseInt reads a TNTP node id written as a plain integer.
func parseInt(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err == nil && strconv.Itoa(v) != s {
		err = fmt.Errorf("%q is not written as a plain integer", s)
	}
	return v, err
}

// layoutLimit bounds the automatic layout (Isomap's all-pairs shortest
// paths are cubic in the nodes); larger networks are put on a circle.
const layoutLimit = 1000
