package engine

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CoordKind says how a network's node coordinates were given.
type CoordKind string

const (
	CoordNone   CoordKind = ""       // no coordinates known
	CoordPlanar CoordKind = "planar" // x, y in any planar unit
	CoordLonLat CoordKind = "lonlat" // WGS84 longitude, latitude in degrees
	CoordLayout CoordKind = "layout" // none were given: ontime's automatic layout
)

// OriginSuffix marks the origin half of a zone centroid that routes may not
// pass through (see netfile.BlockZones): node "7" receives trips, node
// "7:out" starts them. OD pairs are written with the plain id.
const OriginSuffix = ":out"

// ParallelMark joins the ids of a split node made for a parallel link (see
// netfile's splitParallel): "3~12#2" is the middle of the second road from
// node 3 to node 12. Such a node is a point on a road, never a trip's end.
const ParallelMark = "~"

// LinkNumbers are links' numbers as files and pages write them: a link's
// 1-based position in the network's links (the observations file's link
// column, the data page, links.csv, a map's tooltip, a route's export),
// where the code indexes from 0.
func LinkNumbers(links []int) []int {
	out := make([]int, len(links))
	for i, e := range links {
		out[i] = e + 1
	}
	return out
}

// IsRoadPoint reports whether node id is a split node of a parallel link.
func IsRoadPoint(id string) bool { return strings.Contains(id, ParallelMark) }

// Node is a network node. ID is the source's identifier; Coord holds the
// coordinates as given and X, Y the drawing frame (metres for lon/lat input).
type Node struct {
	ID    string
	Coord [2]float64
	X, Y  float64
}

// Link is a directed link between two nodes (indices into Network.Nodes) with
// the mean and variance of its travel time in minutes.
type Link struct {
	From, To int
	Mean     float64
	Var      float64
	// Shape is the road's drawn course between its end nodes, in the
	// nodes' coordinates (ends excluded), when the source gives one
	// (OpenStreetMap ways, GMNS geometry). Drawing only: not hashed in the
	// fingerprint, no method reads it.
	Shape [][2]float64
	// Fit is the marginal fitted from observed times (the fitted law reads
	// it); nil for a link never observed or a network without observations.
	Fit *LinkFit
}

// LinkFit is what fitting a link's observed times found: its Mean and Var
// are the fitted law's, and the law is the family's (linktime's fitted law).
type LinkFit struct {
	Family string `json:"family"` // normal, lognormal, gamma or empirical
	N      int    `json:"n"`      // observations of the link
	// KS is the Kolmogorov–Smirnov distance between the fitted marginal
	// and the link's observed times (a goodness-of-fit statistic).
	KS float64 `json:"ks"`
	// Shrink is the weight of the neighbourhood's shape in the fit (0: the
	// link's own times only), given to links with few observations.
	Shrink float64 `json:"shrink,omitempty"`
	// LogTime is the law's log-quantile at Φ(linktime.ZGrid), the copula's
	// transform; absent for a normal fit (the matched normal of Mean, Var).
	LogTime []float64 `json:"log_time,omitempty"`
}

// SD is the standard deviation of the link's travel time.
func (l Link) SD() float64 { return math.Sqrt(l.Var) }

// OD is an origin-destination pair of node indices.
type OD struct{ Origin, Destination int }

// Correlation describes how link times co-vary. Model is one of
// "independent", "random-psd", "spatial", "spatial-factor" or "explicit".
type Correlation struct {
	Model      string
	Seed       uint64      // random-psd
	Strength   float64     // spatial, spatial-factor: coefficient between coincident links
	Length     float64     // spatial, spatial-factor: decay length in drawing-frame units
	Factors    int         // spatial-factor: number of spatial factors (0: the default)
	Covariance [][]float64 // explicit: full link covariance, links in order
	// Loadings are fitted-factor's: links × K loadings of the normal
	// scores' correlation R = L Lᵀ + diag(1 − |L_e|²), fitted from
	// observations (rows of zeros: links never observed, independent).
	Loadings [][]float64
}

// SourceFile records a file a network was read from, for provenance.
type SourceFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Network is a directed road network with random link times.
type Network struct {
	Name        string
	Description string
	Coords      CoordKind
	Nodes       []Node
	Links       []Link
	Correlation Correlation
	// Law names the link-time law (linktime.Laws): how a link's stated mean
	// and variance become the law its times are drawn from. "" is the
	// paper's law (the Gaussian floored at 0.1 min), which every network
	// had before laws were named, so their fingerprints are unchanged.
	Law string
	// TimeUnit is the unit the source file's times were in ("s", "min",
	// "h"; "" for minutes): provenance only, every time here is in minutes.
	TimeUnit string
	ODs      []OD // the benchmark's OD pairs, if any
	// Zones are the ids of the zone centroids (where trips start and end)
	// when the source file names them (TNTP), else nil.
	Zones []string
	// Demand is the trips between pairs of nodes when the source gave a
	// demand table (TNTP _trips, GMNS demand.csv): default OD pairs and a
	// model's extra pairs can be drawn by it. Not part of the law (nor of
	// the fingerprint).
	Demand []Demand
	// StepCap is the benchmark's cap on links per episode as the file states
	// it, 0 if none; EpisodeCap is the cap every episode and planner uses.
	StepCap int
	// Factors are the budget factors its benchmark table uses (nil: the
	// paper's 0.95, 1.00, 1.05).
	Factors []float64
	Sources []SourceFile
	// Instance names the published benchmark instance whose sample pools a
	// built-in network uses (its name); "" for every other network, whose
	// pools are keyed by its fingerprint, so that a file called "sfn" does
	// not share the benchmark's realizations.
	Instance string
	// Clock is the law over the day (nil: the same law at every hour).
	Clock *Clock

	out   [][]int
	index map[string]int
}

// Demand is the trips from one node to another in the demand table.
type Demand struct {
	OD    OD
	Trips float64
}

// DefaultFactors are the paper's budget factors.
var DefaultFactors = []float64{0.95, 1.00, 1.05}

// BudgetFactors are the network's benchmark budget factors.
func (n *Network) BudgetFactors() []float64 {
	if len(n.Factors) > 0 {
		return n.Factors
	}
	return DefaultFactors
}

// PoolKey keys the network's sample pools: the published instance's name for
// EpisodeCap is the cap on links per episode that the episode rule and
// every planner share: StepCap, or 4 × the nodes when the network states
// none (a cycle-free path has fewer links, so the cap only ends episodes
// that loop). One rule, so that a planner's values and the episodes it is
// scored on agree.
func (n *Network) EpisodeCap() int {
	if n.StepCap > 0 {
		return n.StepCap
	}
	return 4 * len(n.Nodes)
}

// a built-in network, otherwise its fingerprint.
func (n *Network) PoolKey() string {
	if n.Instance != "" {
		return n.Instance
	}
	return "fp:" + Fingerprint(n, n.Correlation)
}

// PaperLawName is linktime.PaperLaw, named here so fingerprints can leave it
// out (the paper's law hashes as every network did before laws existed).
const PaperLawName = "gaussian-floor"

// Fingerprint hashes the network's links, means, variances, correlation
// (with an explicit covariance's entries) and link-time law: model cards record it, a model
// for another network is refused, and pools of non-built-in networks are
// keyed by it.
func Fingerprint(net *Network, c Correlation) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d|", len(net.Nodes))
	for _, l := range net.Links {
		fmt.Fprintf(h, "%d>%d:%v:%v;", l.From, l.To, l.Mean, l.Var)
	}
	fmt.Fprintf(h, "|%s|%d|%v|%v", c.Model, c.Seed, c.Strength, c.Length)
	// Appended only when present, so fingerprints of the other models (and
	// the committed model cards) are unchanged.
	if c.Model == "spatial-factor" {
		fmt.Fprintf(h, "|factors %d", c.Factors)
	}
	if c.Model == "explicit" {
		for _, row := range c.Covariance {
			fmt.Fprintf(h, "|%v", row)
		}
	}
	if net.Law != "" && net.Law != PaperLawName {
		fmt.Fprintf(h, "|law %s", net.Law)
	}
	for e, l := range net.Links { // fitted marginals, only where present
		if l.Fit != nil {
			fmt.Fprintf(h, "|fit %d %s %v", e, l.Fit.Family, l.Fit.LogTime)
		}
	}
	if c.Model == "fitted-factor" {
		for _, row := range c.Loadings {
			fmt.Fprintf(h, "|%v", row)
		}
	}
	if k := net.Clock; net.Timed() { // the day, only where it changes (a constant one is static)
		fmt.Fprintf(h, "|clock %v %v %v", k.Step, k.Profiles, k.Links)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Timed reports whether the network's law changes over the day (a clock
// that is not constant): its methods must know the clock.
func (n *Network) Timed() bool { return n.Clock != nil && !n.Clock.Constant() }

// Index builds the lookup tables; call it after changing Nodes or Links.
// Loaders call it, so users of a loaded network need not.
func (n *Network) Index() {
	n.index = make(map[string]int, len(n.Nodes))
	for i, nd := range n.Nodes {
		n.index[nd.ID] = i
	}
	n.out = make([][]int, len(n.Nodes))
	for e, l := range n.Links {
		n.out[l.From] = append(n.out[l.From], e)
	}
}

// Out returns the links leaving node i, in source order.
func (n *Network) Out(i int) []int {
	if n.out == nil {
		n.Index()
	}
	return n.out[i]
}

// InLinks lists each node's incoming links, in source order: a new list
// each call (the backward searches' adjacency; Out is the forward one).
func (n *Network) InLinks() [][]int {
	in := make([][]int, len(n.Nodes))
	for e, l := range n.Links {
		in[l.To] = append(in[l.To], e)
	}
	return in
}

// NodeIndex returns the index of the node with the given source id.
func (n *Network) NodeIndex(id string) (int, bool) {
	if n.index == nil {
		n.Index()
	}
	i, ok := n.index[id]
	return i, ok
}

// OriginIndex is the node a trip from id starts at: a zone centroid's
// origin half (id + OriginSuffix) when it was split, else the node itself.
func (n *Network) OriginIndex(id string) (int, bool) {
	if twin, ok := n.NodeIndex(id + OriginSuffix); ok {
		return twin, true
	}
	return n.NodeIndex(id)
}

// ParseOD reads "O-D" (source ids) into an OD of node indices.
func (n *Network) ParseOD(s string) (OD, error) {
	for k := 0; k < len(s); k++ {
		if s[k] != '-' || k == 0 {
			continue
		}
		o, okO := n.OriginIndex(s[:k])
		d, okD := n.NodeIndex(s[k+1:])
		if okO && okD {
			if o == d {
				return OD{}, Errorf(EINVALID, "OD %q: origin and destination are the same node", s)
			}
			return OD{o, d}, nil
		}
	}
	return OD{}, Errorf(ENOTFOUND, "OD %q: no such node pair in network %s (write ORIGIN-DESTINATION with node ids)", s, n.Name)
}

// ODString writes an OD with source ids, as ParseOD reads it.
func (n *Network) ODString(od OD) string {
	return strings.TrimSuffix(n.Nodes[od.Origin].ID, OriginSuffix) + "-" + n.Nodes[od.Destination].ID
}

// CompareIDs orders node ids: numerically when both are integers (TNTP ids),
// otherwise as strings, with integers first.
func CompareIDs(a, b string) int {
	ai, errA := strconv.ParseInt(a, 10, 64)
	bi, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(ai, bi)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// earthRadius is the WGS84 equatorial radius in metres; the equirectangular
// projection below needs only a sphere of about the right size.
const earthRadius = 6378137.0

// Project fills every node's drawing frame X, Y from Coord: lon/lat are
// projected to local metres (equirectangular about the centroid) so that
// every network is drawn the same way; planar coordinates are kept.
func (n *Network) Project() {
	to := n.Projection()
	for i := range n.Nodes {
		p := to(n.Nodes[i].Coord)
		n.Nodes[i].X, n.Nodes[i].Y = p[0], p[1]
	}
}

// Projection is the map from the nodes' coordinates to the drawing frame
// that Project applies, for other points given in them (link shapes).
func (n *Network) Projection() func([2]float64) [2]float64 {
	f, ok := n.LocalFrame()
	if !ok {
		return func(c [2]float64) [2]float64 { return c }
	}
	return f.Forward
}

// LocalFrame is the drawing frame of a longitude/latitude network: metres
// east and north of its nodes' mean position, the equirectangular
// projection at that latitude (within 0.1% over a state).
type LocalFrame struct {
	Lon0, Lat0      float64 // degrees: the frame's origin
	MetresPerDegree float64 // of latitude
	CosLat0         float64 // a degree of longitude is CosLat0 × MetresPerDegree
}

// Forward maps (longitude, latitude) to the frame.
func (f LocalFrame) Forward(p [2]float64) [2]float64 {
	return [2]float64{(p[0] - f.Lon0) * f.MetresPerDegree * f.CosLat0, (p[1] - f.Lat0) * f.MetresPerDegree}
}

// Inverse maps a frame point back to (longitude, latitude): what a map in
// Web Mercator (under a tile server's tiles) draws.
func (f LocalFrame) Inverse(q [2]float64) [2]float64 {
	return [2]float64{f.Lon0 + q[0]/(f.MetresPerDegree*f.CosLat0), f.Lat0 + q[1]/f.MetresPerDegree}
}

// LocalFrame is the network's drawing frame when its coordinates are
// longitude/latitude (ok false otherwise: planar coordinates are drawn as
// given).
func (n *Network) LocalFrame() (f LocalFrame, ok bool) {
	if n.Coords != CoordLonLat || len(n.Nodes) == 0 {
		return LocalFrame{}, false
	}
	for _, nd := range n.Nodes {
		f.Lon0 += nd.Coord[0]
		f.Lat0 += nd.Coord[1]
	}
	f.Lon0 /= float64(len(n.Nodes))
	f.Lat0 /= float64(len(n.Nodes))
	f.MetresPerDegree = math.Pi / 180 * earthRadius
	f.CosLat0 = math.Cos(f.Lat0 * math.Pi / 180)
	return f, true
}

// LooksLonLat reports whether coordinates look geographic: every pair
// within the WGS84 range (|x| ≤ 180, |y| ≤ 90), and not all within
// NullIsland degrees of (0°, 0°). That box is open sea (the Gulf of
// Guinea): no road network lies in it, while planar drawings near the
// origin do (Berlin Mitte's TNTP nodes run x 0.7–1.3, y 1.3–2.1, and were
// read as a road in the sea). The rule loaders use to detect geographic input.
func LooksLonLat(coords [][2]float64) bool {
	if len(coords) == 0 {
		return false
	}
	atSea := true
	for _, c := range coords {
		if math.Abs(c[0]) > 180 || math.Abs(c[1]) > 90 {
			return false
		}
		atSea = atSea && math.Abs(c[0]) <= NullIsland && math.Abs(c[1]) <= NullIsland
	}
	return !atSea
}

// NullIsland is the half-width in degrees of the box around (0°, 0°),
// all sea, that LooksLonLat takes for planar coordinates.
const NullIsland = 3.0

// Validate checks the invariants every loader guarantees.
func (n *Network) Validate() error {
	if len(n.Nodes) == 0 {
		return Errorf(EINVALID, "network %s has no nodes", n.Name)
	}
	for e, l := range n.Links {
		if l.From < 0 || l.From >= len(n.Nodes) || l.To < 0 || l.To >= len(n.Nodes) {
			return Errorf(EINVALID, "link %d: endpoint out of range", e)
		}
		if !(l.Mean > 0) || math.IsInf(l.Mean, 0) {
			return Errorf(EINVALID, "link %d (%s→%s): mean %v must be positive", e, n.Nodes[l.From].ID, n.Nodes[l.To].ID, l.Mean)
		}
		if !(l.Var >= 0) || math.IsInf(l.Var, 0) {
			return Errorf(EINVALID, "link %d (%s→%s): variance %v must be ≥ 0", e, n.Nodes[l.From].ID, n.Nodes[l.To].ID, l.Var)
		}
	}
	if n.Clock != nil {
		return n.Clock.Validate(len(n.Links))
	}
	return nil
}
