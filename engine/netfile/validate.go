package netfile

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/graph/layout"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/internal/ordered"
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

// BlockZones keeps routes from passing through zone centroids (TNTP nodes
// with ids below firstThru): each centroid with links both in and out is
// split into a destination node (its id, the links in) and an origin node
// (id + OriginSuffix, the links out), drawn at the same place. OD pairs
// written with the centroid's id map to the right half. It returns how many
// were split.
func BlockZones(net *engine.Network, firstThru int) int {
	in := make([]bool, len(net.Nodes))
	for _, l := range net.Links {
		in[l.To] = true
	}
	split := 0
	n := len(net.Nodes)
	for i := range n {
		id := net.Nodes[i].ID
		z, err := parseInt(id)
		if err != nil || z >= firstThru || !in[i] || len(net.Out(i)) == 0 {
			continue
		}
		origin := net.Nodes[i]
		origin.ID = id + OriginSuffix
		net.Nodes = append(net.Nodes, origin)
		for _, e := range net.Out(i) {
			net.Links[e].From = len(net.Nodes) - 1
		}
		split++
	}
	net.Index()
	return split
}

// parseInt reads a TNTP node id written as a plain integer.
func parseInt(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err == nil && strconv.Itoa(v) != s {
		err = fmt.Errorf("%q is not written as a plain integer", s)
	}
	return v, err
}

// DefaultODs picks k OD pairs by a fixed rule: among 500 random pairs of
// nodes (seeded by the network's size) whose destination can be reached,
// the ones at the 50th, 60th, 70th, 80th and 90th percentile of LET time:
// trips long enough for routes to differ, never the extreme outliers.
func DefaultODs(net *engine.Network, k int) []engine.OD {
	type cand struct {
		od engine.OD
		t  float64
	}
	var origins, dests []int
	for i, nd := range net.Nodes {
		if engine.IsRoadPoint(nd.ID) {
			continue // the middle of a parallel road, not a place
		}
		if len(net.Out(i)) > 0 {
			origins = append(origins, i)
		}
		if _, isOrigin := strings.CutSuffix(nd.ID, OriginSuffix); !isOrigin {
			dests = append(dests, i)
		}
	}
	if len(origins) == 0 || len(dests) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(len(net.Nodes)), uint64(len(net.Links))))
	trees := map[int][]float64{}
	var cands []cand
	seen := map[engine.OD]bool{}
	for range 500 {
		od := engine.OD{Origin: origins[rng.IntN(len(origins))], Destination: dests[rng.IntN(len(dests))]}
		if od.Origin == od.Destination || seen[od] || sameZone(net, od) {
			continue
		}
		seen[od] = true
		if len(trees) < 64 || trees[od.Destination] != nil {
			if trees[od.Destination] == nil {
				trees[od.Destination] = net.LET(od.Destination).Time
			}
			if t := trees[od.Destination][od.Origin]; !math.IsInf(t, 1) && t > 0 {
				cands = append(cands, cand{od, t})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.t, b.t), engine.CompareIDs(net.ODString(a.od), net.ODString(b.od)))
	})
	var out []engine.OD
	for i := range k {
		if len(cands) == 0 {
			break
		}
		q := 0.5 + 0.4*float64(i)/float64(max(k-1, 1))
		c := cands[min(len(cands)-1, int(q*float64(len(cands))))]
		if !slices.Contains(out, c.od) {
			out = append(out, c.od)
		}
	}
	return out
}

func sameZone(net *engine.Network, od engine.OD) bool {
	a, _ := strings.CutSuffix(net.Nodes[od.Origin].ID, OriginSuffix)
	return a == net.Nodes[od.Destination].ID
}

// DefaultStepCap is 1.5 times the longest LET path (in links) of the
// network's OD pairs, rounded up, and at least 12 (Sioux Falls' cap): room
// for detours, while DOT's tables (one level per link left) stay small.
func DefaultStepCap(net *engine.Network) int {
	longest := 0
	for _, od := range net.ODs {
		longest = max(longest, len(net.LET(od.Destination).Path(od.Origin, net)))
	}
	return max(12, (3*longest+1)/2)
}

// layoutLimit bounds the automatic layout (Isomap's all-pairs shortest
// paths are cubic in the nodes); larger networks are put on a circle.
const layoutLimit = 1000

// Layout places a network without coordinates: Isomap (gonum) on the
// undirected graph, which keeps graph distances; a circle where the graph
// is too large or not connected.
func Layout(net *engine.Network) {
	defer fixLayout(net)
	defer unstack(net)
	if len(net.Nodes) <= layoutLimit {
		g := simple.NewUndirectedGraph()
		for i := range net.Nodes {
			g.AddNode(simple.Node(i))
		}
		for _, l := range net.Links {
			if l.From != l.To && g.Edge(int64(l.From), int64(l.To)) == nil {
				g.SetEdge(g.NewEdge(simple.Node(l.From), simple.Node(l.To)))
			}
		}
		// In ID order: Isomap numbers the nodes as it reads them, and with
		// simple's map order a symmetric grid got another of its equally
		// good layouts at every import (18 in 20 runs of a 30-node ring).
		opt := layout.NewOptimizerR2(ordered.Undirected{Undirected: g}, layout.IsomapR2{}.Update)
		for opt.Update() {
		}
		ok := true
		for i := range net.Nodes {
			p := opt.Coord2(int64(i))
			if math.IsNaN(p.X) || math.IsNaN(p.Y) {
				ok = false
				break
			}
			net.Nodes[i].X, net.Nodes[i].Y = p.X, p.Y
		}
		if ok {
			return
		}
	}
	for i := range net.Nodes {
		a := 2 * math.Pi * float64(i) / float64(len(net.Nodes))
		net.Nodes[i].X, net.Nodes[i].Y = math.Cos(a), math.Sin(a)
	}
}

// unstack moves nodes a layout put on one spot (Isomap places nodes with
// the same distances to every other, like the two middle nodes of a
// diamond, together) onto a small circle around it: a tenth of the
// distance to the nearest other spot, so that every node can be seen and
// clicked, and the map's bounds never collapse.
func unstack(net *engine.Network) {
	if len(net.Nodes) < 2 {
		return
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, n := range net.Nodes {
		minX, maxX, minY, maxY = math.Min(minX, n.X), math.Max(maxX, n.X), math.Min(minY, n.Y), math.Max(maxY, n.Y)
	}
	extent := math.Max(maxX-minX, maxY-minY)
	if extent == 0 { // every node on one spot: a unit circle
		for i := range net.Nodes {
			a := 2 * math.Pi * float64(i) / float64(len(net.Nodes))
			net.Nodes[i].X, net.Nodes[i].Y = minX+math.Cos(a), minY+math.Sin(a)
		}
		return
	}
	tol := 1e-6 * extent
	type spot struct{ x, y float64 }
	var spots []spot
	index := map[[2]int64]int{} // a spot by its position rounded to tol
	groups := map[int][]int{}
	for i, n := range net.Nodes {
		key := [2]int64{int64(math.Round(n.X / tol)), int64(math.Round(n.Y / tol))}
		k, ok := index[key]
		if !ok {
			spots = append(spots, spot{n.X, n.Y})
			k = len(spots) - 1
			index[key] = k
		}
		groups[k] = append(groups[k], i)
	}
	for k, members := range groups {
		if len(members) < 2 {
			continue
		}
		near := math.Inf(1) // stacks are rare: a scan of the spots for each
		for j, s := range spots {
			if j != k {
				near = math.Min(near, math.Hypot(s.x-spots[k].x, s.y-spots[k].y))
			}
		}
		r := 0.1 * near // near is finite: the extent is not 0, so there is another spot
		for m, i := range members {
			a := 2 * math.Pi * float64(m) / float64(len(members))
			net.Nodes[i].X, net.Nodes[i].Y = spots[k].x+r*math.Cos(a), spots[k].y+r*math.Sin(a)
		}
	}
}

// fixLayout keeps a computed layout as the nodes' coordinates, so that it
// survives a round trip through ontime's JSON.
func fixLayout(net *engine.Network) {
	for i := range net.Nodes {
		net.Nodes[i].Coord = [2]float64{net.Nodes[i].X, net.Nodes[i].Y}
	}
	net.Coords = engine.CoordLayout
}

// Digest is the SHA-256 of a file's bytes, as provenance records it.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
