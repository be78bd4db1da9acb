package netfile

import (
	"fmt"
	"path/filepath"
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
