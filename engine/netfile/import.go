package netfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// File is one input file: a path on the CLI, an upload in the browser.
type File struct {
	Name string // base name; its ending says the format
	Data []byte
	// Observed: the file holds observed times, whatever its header says
	// (given as such: an upload's observations field, --observations), so
	// a header that names no observation or time column is reported with
	// the rows' problems, quoting the header found.
	Observed bool
	// Path, for a file given by path with no Data (the command line's
	// observations), is read as it streams: a 0.5 GB file is never held
	// whole (FitFile; only a worker process is given a path).
	Path string `json:",omitempty"`
}

// open is the file's content as a stream, and a function giving its
// SHA-256 once it was read to its end.
func (f File) open() (io.ReadCloser, func() string, error) {
	if f.Path == "" || f.Data != nil {
		return io.NopCloser(bytes.NewReader(f.Data)), func() string { return Digest(f.Data) }, nil
	}
	in, err := os.Open(f.Path)
	if err != nil {
		return nil, nil, engine.Errorf(engine.ENOTFOUND, "cannot read %s: %v", f.Name, errors.Unwrap(err))
	}
	h := sha256.New()
	return struct {
		io.Reader
		io.Closer
	}{io.TeeReader(bufio.NewReaderSize(in, 1<<20), h), in}, func() string { return hex.EncodeToString(h.Sum(nil)) }, nil
}

// Import choices and their defaults (stated in help, forms and the README).
const (
	MeanAuto     = "auto"     // the flow file's cost when one is given, else free-flow time
	MeanFreeFlow = "freeflow" // TNTP free_flow_time
	MeanFlow     = "flow"     // the _flow file's (congested) Cost
	ZonesAuto    = "auto"     // block where the TNTP file says FIRST THRU NODE > 1
	ZonesBlock   = "block"    // zone centroids are trip ends only
	ZonesThrough = "through"  // routes may pass through zone centroids
	// DefaultCV sets σ = CV·μ where a file has no variances.
	DefaultCV = 0.3
	// DefaultCorrSeed seeds the default random-PSD correlation.
	DefaultCorrSeed = linktime.DefaultCorrSeed
	// DefaultODCount is how many OD pairs the default rule picks.
	DefaultODCount = 5
)

// ImportOptions are the choices an import takes; zero values mean defaults.
type ImportOptions struct {
	Name string // "" : from the first file's name
	Mean string // auto (default), freeflow, flow
	// CV > 0 sets σ = CV·μ on every link; 0 keeps a file's variances (CSV
	// Var, JSON variance) and uses DefaultCV where the file has none.
	CV float64
	// Corr: Model "" keeps a JSON file's correlation, else the default:
	// random-psd (seed 1) within the dense limit, independent above it.
	Corr engine.Correlation
	// PSDProject replaces an explicit covariance that is not positive
	// semi-definite by its projection (negative eigenvalues clipped,
	// variances kept) instead of refusing it.
	PSDProject bool
	StepCap    int      // 0: the file's, or 1.5 × the longest LET path of the OD pairs (at least 12)
	ODs        []string // "O-D" with node ids; none: the file's, or DefaultODCount picked by rule
	Zones      string   // auto (default), block, through
	Coords     string   // "" auto (lon/lat when every point is within ±180/±90), planar, lonlat
	// Law is the link-time law ("": a JSON file's, else linktime.MatchedLaw).
	Law string
	// TimeUnit is the unit of the file's times: s, min or h ("": minutes,
	// with a note when the scale looks like another unit). Times are
	// converted to minutes, and the unit is stored with the network.
	TimeUnit string
	// SkipBadRows drops rows of the link file that do not parse, naming
	// each in the report, instead of refusing the file.
	SkipBadRows bool
	// MaxExplicitLinks bounds the links of an explicit covariance this
	// import checks (an eigen decomposition: minutes at 4,000 links, and
	// not interruptible); 0: DenseLinkLimit. The dashboard sets it lower.
	MaxExplicitLinks int `json:"-"`
	// Highways are the OpenStreetMap highway classes kept (none:
	// DefaultHighways).
	Highways []string
	// Period keeps the observation rows whose time_of_day is in it
	// ("HH:MM-HH:MM"; "": every row), when an observation file is given.
	Period string
}

// ImportReport says what an import read, assumed and found wrong.
type ImportReport struct {
	Format   string          `json:"format"`
	Files    []string        `json:"files"`
	Scale    *Scale          `json:"scale,omitempty"` // the link-time scale, in minutes
	Notes    []string        `json:"notes"`           // what was assumed or changed, said once each
	Problems engine.Problems `json:"problems"`        // empty when the network was accepted
	// Fit is what fitting observed times found (the fitted law), when
	// observations came with the network or were fitted to it later.
	Fit *fit.Report `json:"fit,omitempty"`
}

func (r *ImportReport) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// linkSource is where a link came from, for validation messages.
type linkSource struct {
	file      string
	line      int
	meanField string
	varField  string
	// to is the node the file's row ends at where the link now ends
	// elsewhere (a parallel road's split node): problems name the row's
	// link. "": the link's own end.
	to string
}

// source maps each link to its origin in the input files.
type source struct {
	links  []linkSource
	odFile string
	// noVars: the file gives no variances (TNTP, OpenStreetMap, GMNS
	// without a spread column): σ comes from the CV rule.
	noVars bool
	// minutes: the times were computed in minutes (length / speed), so
	// there is no file unit to guess or convert.
	minutes bool
}

// at is where link e came from ("links[e]" of the network when src has
// no record of it).
func (src *source) at(e int, net *engine.Network) linkSource {
	if src != nil && e < len(src.links) {
		return src.links[e]
	}
	return linkSource{file: net.Name, meanField: fmt.Sprintf("links[%d].mean", e), varField: fmt.Sprintf("links[%d].variance", e)}
}

// Import reads a network from files (TNTP _net with optional _node, GeoJSON
// nodes and _flow; the link CSV with optional node coordinates; or ontime's
// JSON), applies the options and validates the result. A network is
// returned only when the report lists no problem; the error is then nil.
// Otherwise the error is the report's Problems, every one of them.
func Import(files []File, o ImportOptions) (*engine.Network, *ImportReport, error) {
	rep := &ImportReport{}
	for _, f := range files {
		rep.Files = append(rep.Files, f.Name)
	}
	net, src, err := readFiles(files, o, rep)
	if err != nil {
		ps, ok := engine.ProblemsOf(err) // with a partial network, validation goes on
		if !ok {
			return nil, rep, err
		}
		rep.Problems = ps
		if net == nil {
			return nil, rep, rep.Problems
		}
	}
	if o.Name != "" {
		net.Name = o.Name
	}
	if net.Description == "" {
		net.Description = fmt.Sprintf("imported from %s (%s)", strings.Join(rep.Files, ", "), rep.Format)
	}
	applyOptions(net, src, o, rep)
	// The readers' problems and the checks' count toward one bound.
	all := problemList{list: rep.Problems, full: len(rep.Problems) > MaxProblems}
	if !all.full {
		all.add(Check(net, src, o)...)
	}
	rep.Problems = all.list
	if len(rep.Problems) > 0 {
		return nil, rep, rep.Problems
	}
	if obs := observationFile(files); obs != nil {
		return fitObservations(net, obs, o, rep)
	}
	if o.Period != "" {
		return nil, rep, engine.Errorf(engine.EINVALID, "a period chooses rows of observed times: give an observation file too")
	}
	return net, rep, nil
}

// observationFile is the file of observed link times among files, if any.
func observationFile(files []File) *File {
	for i := range files {
		if isObservations(&files[i]) {
			return &files[i]
		}
	}
	return nil
}

func isObservations(f *File) bool {
	return f.Observed || strings.HasSuffix(strings.ToLower(f.Name), ".csv") && fit.LooksLikeObservations(f.Data)
}

// fitObservations gives an accepted network the law fitted to the observed
// times (in the network file's unit); bad observations refuse the import,
// each named by file, line and field.
func fitObservations(net *engine.Network, obs *File, o ImportOptions, rep *ImportReport) (*engine.Network, *ImportReport, error) {
	fitted, frep, err := FitFile(net, *obs, o.Period, o.TimeUnit)
	if err != nil {
		ps, ok := engine.ProblemsOf(err)
		if !ok {
			return nil, rep, err
		}
		rep.Problems = ps
		return nil, rep, ps
	}
	rep.Fit = frep
	fittedNotes(rep, fitted, frep)
	rep.note("%s", frep.Summary())
	return fitted, rep, nil
}

// fittedNotes rewrites the report's notes of the defaults the fit replaced:
// the law and spread rules hold for the links never observed only, and the
// correlation is the fitted one (the report said "correlation: random-psd"
// and then the fit's "fitted-factor").
func fittedNotes(rep *ImportReport, net *engine.Network, frep *fit.Report) {
	unobserved := fmt.Sprintf("for the %d of %d links never observed: ", len(frep.Unobserved), len(net.Links))
	for i, n := range rep.Notes {
		switch {
		case strings.HasPrefix(n, "link-time law:"), strings.HasPrefix(n, "link standard deviations:"), strings.HasPrefix(n, "link means"):
			rep.Notes[i] = unobserved + n
		case strings.HasPrefix(n, "correlation:"), strings.HasPrefix(n, "spatial correlation length:"):
			rep.Notes[i] = fmt.Sprintf("correlation stored: %s, fitted to the observed links' normal scores (rank %d); the links never observed have none", net.Correlation.Model, frep.Rank)
		}
	}
	rep.Notes = slices.Compact(rep.Notes)
}

// FitFile fits the observed times in obs (in timeUnit, "" minutes; rows of
// period, "" all) to net: a copy under the fitted law, its sources naming
// obs. Bad rows name the file, line and field.
func FitFile(net *engine.Network, obs File, period, timeUnit string) (*engine.Network, *fit.Report, error) {
	p, err := fit.ParsePeriod(period)
	if err != nil {
		return nil, nil, err
	}
	in, digest, err := obs.open()
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	read, err := fit.ReadObservations(obs.Name, in, net, unitMinutes(timeUnit), p)
	if err != nil {
		return nil, nil, err
	}
	io.Copy(io.Discard, in) // the digest is of the whole file
	fitted, rep, err := fit.Fit(net, read)
	if err != nil {
		return nil, nil, err
	}
	fitted.Sources = append(slices.Clone(fitted.Sources), engine.SourceFile{Path: obs.Name, SHA256: digest()})
	return fitted, rep, nil
}

// partial keeps a parse's Problems while the rows that parsed are used.
func partial(err error, probs *problemList) error {
	if ps, ok := err.(engine.Problems); ok {
		probs.add(ps...)
		return nil
	}
	return err
}

// baseName is a network name from a file name: the TNTP stem or the name
// without its ending, lower case.
func baseName(file string) string {
	b := filepath.Base(file)
	for _, suf := range FormatEndings() {
		if len(b) > len(suf) && strings.EqualFold(b[len(b)-len(suf):], suf) {
			b = b[:len(b)-len(suf)]
			break
		}
	}
	return SanitizeName(b)
}

// SanitizeName lowers a name and keeps letters, digits, '-' and '_'.
func SanitizeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ' || r == '.':
			b.WriteRune('-')
		}
	}
	return strings.Trim(b.String(), "-_")
}

// optionalCoords reads a node coordinate file, TNTP or GeoJSON, if one was
// given, keeping its row problems in probs.
func optionalCoords(f *File, probs *problemList) ([]NodeCoord, string, error) {
	if f == nil {
		return nil, "", nil
	}
	var coords []NodeCoord
	var err error
	if tntpNodeName.MatchString(f.Name) {
		coords, err = ReadTNTPNodes(bytes.NewReader(f.Data), f.Name)
	} else {
		coords, err = ReadGeoJSONNodes(bytes.NewReader(f.Data), f.Name)
	}
	return coords, f.Name, partial(err, probs)
}

// topology holds nodes by id in a stable order while links are read.
type topology struct {
	net    *engine.Network
	coords map[string][2]float64
	ids    map[string]int
	has    int // nodes with coordinates
}

func newTopology(name string, coords []NodeCoord, coordFile string) (*topology, engine.Problems) {
	t := &topology{net: &engine.Network{Name: name}, coords: map[string][2]float64{}, ids: map[string]int{}}
	var probs problemList
	for _, c := range coords {
		if _, dup := t.coords[c.ID]; dup {
			probs.add(engine.InputError(coordFile, c.Line, "node", "duplicate node id %s", c.ID))
			continue
		}
		t.coords[c.ID] = c.Coord
	}
	return t, probs.list
}

// known reports link endpoints missing from the coordinate file, when one
// was given: a link to an unknown node.
func (t *topology) known(coordFile, file string, line int, fields ...string) engine.Problems {
	if coordFile == "" {
		return nil
	}
	var probs engine.Problems
	for i := 0; i+1 < len(fields); i += 2 {
		if _, ok := t.coords[fields[i+1]]; !ok {
			probs = append(probs, engine.InputError(file, line, fields[i], "node %s is not in %s", fields[i+1], coordFile))
		}
	}
	return probs
}

// node returns the index of id, adding the node on first sight.
func (t *topology) node(id string) int {
	if i, ok := t.ids[id]; ok {
		return i
	}
	nd := engine.Node{ID: id}
	if c, ok := t.coords[id]; ok {
		nd.Coord = c
		t.has++
	}
	t.net.Nodes = append(t.net.Nodes, nd)
	t.ids[id] = len(t.net.Nodes) - 1
	return len(t.net.Nodes) - 1
}

// orderNodesByID sorts the nodes by id (numerically for integer ids, as
// engine.CompareIDs), remaps the links to them and indexes the network:
// every import orders its nodes so, which makes a round trip through GMNS
// the same network.
func orderNodesByID(net *engine.Network) {
	order := make([]int, len(net.Nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return engine.CompareIDs(net.Nodes[a].ID, net.Nodes[b].ID) })
	pos := make([]int, len(order))
	nodes := make([]engine.Node, len(order))
	for k, i := range order {
		pos[i], nodes[k] = k, net.Nodes[i]
	}
	net.Nodes = nodes
	for e := range net.Links {
		net.Links[e].From, net.Links[e].To = pos[net.Links[e].From], pos[net.Links[e].To]
	}
	net.Index()
}

// finish orders nodes by id (numerically for TNTP ids), remapping links,
// and places the nodes: as given, or laid out where coordinates are missing.
func (t *topology) finish(o ImportOptions, rep *ImportReport, coordFile string) {
	net := t.net
	orderNodesByID(net)
	switch {
	case t.has == len(net.Nodes):
		var raw [][2]float64
		for _, nd := range net.Nodes {
			raw = append(raw, nd.Coord)
		}
		net.Coords = engine.CoordPlanar
		switch o.Coords {
		case "lonlat":
			net.Coords = engine.CoordLonLat
		case "planar":
		default:
			if engine.LooksLonLat(raw) {
				net.Coords = engine.CoordLonLat
				rep.note("coordinates read as longitude/latitude (every point is within ±180/±90); choose planar coordinates if they are not")
			} else if inRange(raw) {
				rep.note("coordinates read as planar: they are within ±180/±90, but all within %g° of (0°, 0°), which is open sea; choose longitude/latitude if they are", engine.NullIsland)
			} else {
				rep.note("coordinates read as planar")
			}
		}
		net.Project()
	default:
		missing := len(net.Nodes) - t.has
		if coordFile == "" {
			rep.note("no node coordinates were given: the map shows an automatic layout of the graph")
		} else {
			rep.note("%d of %d nodes have no coordinates in %s: the map shows an automatic layout of the graph", missing, len(net.Nodes), coordFile)
		}
		Layout(net)
	}
}

func readTNTPNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	var probs problemList
	tn, err := ReadTNTPNet(bytes.NewReader(r.net.Data), r.net.Name)
	if tn != nil && tn.Standard {
		rep.note("%s: the header names %d columns but every row has TNTP's standard %d: rows read in the standard order (%s)",
			r.net.Name, tn.HeaderColumns, len(StandardTNTPColumns), strings.Join(StandardTNTPColumns, " "))
	}
	if ps, ok := err.(engine.Problems); ok && o.SkipBadRows && tn != nil {
		var lines []string
		for _, p := range ps {
			lines = append(lines, fmt.Sprintf("line %d (%s: %s)", p.Line, p.Field, p.Message))
		}
		rep.note("%d rows of %s skipped as asked (skip bad rows): %s", len(ps), r.net.Name, listSome(lines, 20))
		err = nil
	}
	if err = partial(err, &probs); err != nil {
		return nil, nil, err
	}
	coords, coordFile, err := optionalCoords(r.nodes, &probs)
	if err != nil {
		return nil, nil, err
	}
	mean := o.Mean
	if mean == "" || mean == MeanAuto {
		mean = MeanFreeFlow
		if r.flow != nil {
			mean = MeanFlow
		}
	}
	var flow map[[2]string][]FlowRow // a pair's rows in file order: parallel links take them in turn
	switch mean {
	case MeanFlow:
		if r.flow == nil {
			return nil, nil, engine.InputError(r.net.Name, 0, "mean", "mean from the flow file's cost needs the _flow.tntp file beside the _net file")
		}
		rows, err := ReadTNTPFlow(bytes.NewReader(r.flow.Data), r.flow.Name)
		if err = partial(err, &probs); err != nil {
			return nil, nil, err
		}
		flow = map[[2]string][]FlowRow{}
		for _, row := range rows {
			k := [2]string{row.From, row.To}
			flow[k] = append(flow[k], row)
		}
		rep.note("link means: the congested Cost of %s", r.flow.Name)
	case MeanFreeFlow:
		rep.note("link means: free_flow_time of %s", r.net.Name)
	default:
		return nil, nil, engine.Errorf(engine.EINVALID, "mean %q: choose auto, freeflow or flow", o.Mean)
	}
	t, ps := newTopology(baseName(r.net.Name), coords, coordFile)
	probs.add(ps...)
	src := &source{noVars: true}
	var rows []string // each link's row less its line: parallel links that repeat one are duplicates
	zeros := 0
	var closed []string
	for _, l := range tn.Links {
		probs.add(t.known(coordFile, r.net.Name, l.Line, "init_node", l.Init, "term_node", l.Term)...)
		var link engine.Link // its nodes are added once it is known to be open
		ls := linkSource{file: r.net.Name, line: l.Line, meanField: "free_flow_time"}
		link.Mean = l.FFTime
		if flow != nil {
			k := [2]string{l.Init, l.Term}
			if len(flow[k]) == 0 {
				probs.add(engine.InputError(r.flow.Name, 0, "From/To", "no row for link %s→%s (%s line %d)", l.Init, l.Term, r.net.Name, l.Line))
				continue
			}
			row := flow[k][0]
			flow[k] = flow[k][1:]
			link.Mean = row.Cost
			ls = linkSource{file: r.flow.Name, line: row.Line, meanField: "Cost"}
		}
		if math.IsInf(link.Mean, 1) {
			closed = append(closed, fmt.Sprintf("%s→%s (line %d)", l.Init, l.Term, ls.line))
			continue
		}
		if link.Mean == 0 {
			zeros++
			link.Mean = ZeroTimeMean / unitMinutes(o.TimeUnit)
		}
		link.From, link.To = t.node(l.Init), t.node(l.Term)
		t.net.Links = append(t.net.Links, link)
		src.links = append(src.links, ls)
		row := l
		row.Line = 0
		rows = append(rows, fmt.Sprint(row, link.Mean))
	}
	for k, rows := range flow {
		for _, row := range rows {
			probs.add(engine.InputError(r.flow.Name, row.Line, "From/To", "link %s→%s: no such link in %s (or more rows for it than links)", k[0], k[1], r.net.Name))
		}
	}
	if zeros > 0 {
		rep.note("%d links have a zero time (zone connectors, typically): they take %.1f min", zeros, ZeroTimeMean)
	}
	if len(closed) > 0 {
		rep.note("%d links have an infinite time and can never be used (closed links): dropped: %s", len(closed), listSome(closed, 10))
	}
	t.finish(o, rep, coordFile)
	net := t.net
	n, dups := splitParallel(net, src, rows, unitMinutes(o.TimeUnit))
	probs.add(dups...)
	if n > 0 {
		rep.note("%s", parallelNote(n))
	}
	net.Zones = tn.ZoneIDs()
	net.Sources = []engine.SourceFile{{Path: r.net.Name, SHA256: Digest(r.net.Data)}}
	for _, f := range []*File{r.nodes, r.flow} {
		if f != nil {
			net.Sources = append(net.Sources, engine.SourceFile{Path: f.Name, SHA256: Digest(f.Data)})
		}
	}
	zones := o.Zones
	if zones == "" || zones == ZonesAuto {
		zones = ZonesThrough
		if tn.FirstThruNode > 1 {
			zones = ZonesBlock
		}
	}
	switch zones {
	case ZonesBlock:
		if tn.FirstThruNode > 1 {
			n := BlockZones(net, tn.FirstThruNode)
			rep.note("zone centroids (nodes below FIRST THRU NODE %d) are trip ends only: %d of them split into an origin (id:out) and a destination node, so no route passes through a zone", tn.FirstThruNode, n)
		}
	case ZonesThrough:
		if tn.FirstThruNode > 1 {
			rep.note("routes may pass through zone centroids (nodes below %d), as chosen", tn.FirstThruNode)
		}
	default:
		return nil, nil, engine.Errorf(engine.EINVALID, "zones %q: choose auto, block or through", o.Zones)
	}
	for i := range src.links {
		src.links[i].varField = src.links[i].meanField
	}
	return net, src, probs.err()
}

// ZeroTimeMean is the mean in minutes given to a link whose file time is
// zero (zone connectors): a tenth of a minute costs almost nothing yet keeps
// the positive mean every method needs.
const ZeroTimeMean = 0.1

func lawLabel(name string) string {
	l, _ := linktime.LawByName(name)
	return l.Label
}

// listSome joins the first k items, saying how many more there are.
func listSome(items []string, k int) string {
	if len(items) <= k {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:k], ", ") + fmt.Sprintf(" and %d more", len(items)-k)
}

// DefaultFactorStrength is the correlation between coincident links of the
// spatial factor model a large network gets by default (as --corr-strength).
const DefaultFactorStrength = 0.5

func readCSVNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	var probs problemList
	rows, err := ReadLinkCSV(bytes.NewReader(r.csv.Data), r.csv.Name)
	if err = partial(err, &probs); err != nil {
		return nil, nil, err
	}
	coords, coordFile, err := optionalCoords(r.nodes, &probs)
	if err != nil {
		return nil, nil, err
	}
	t, ps := newTopology(baseName(r.csv.Name), coords, coordFile)
	probs.add(ps...)
	src := &source{}
	for _, row := range rows {
		probs.add(t.known(coordFile, r.csv.Name, row.Line, "From", row.From, "To", row.To)...)
		t.net.Links = append(t.net.Links, engine.Link{From: t.node(row.From), To: t.node(row.To), Mean: row.Cost, Var: row.Var})
		src.links = append(src.links, linkSource{file: r.csv.Name, line: row.Line, meanField: "Cost", varField: "Var"})
	}
	t.finish(o, rep, coordFile)
	n, dups := splitParallel(t.net, src, nil, unitMinutes(o.TimeUnit))
	probs.add(dups...)
	if n > 0 {
		rep.note("%s", parallelNote(n))
	}
	t.net.Correlation = engine.Correlation{Model: linktime.Independent}
	t.net.Sources = []engine.SourceFile{{Path: r.csv.Name, SHA256: Digest(r.csv.Data)}}
	if o.CV == 0 {
		rep.note("link means and variances: Cost and Var of %s", r.csv.Name)
	}
	return t.net, src, probs.err()
}

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
