package builtin

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

//go:embed twobranch.json
var twobranchJSON []byte

// Seeds fixed in code so that every run, split and method sees the same
// network: the random-PSD correlation of each benchmark, and the per-link
// uniform draws that set Anaheim's standard deviations.
const (
	SFNCorrSeed      uint64 = 250817218
	AnaheimCorrSeed  uint64 = 250817219
	AnaheimSigmaSeed uint64 = 416914
	// AnaheimSigmaScale is κ in σ_e = κ·μ_e·U_e, U_e ~ U(0,1): the SEGAC
	// group's convention (its Sioux Falls variances fit κ = 0.4).
	AnaheimSigmaScale = 0.4
)

// Example is the embedded five-node example: the teaching view's network
// (every install has it and Ringtown, which is generated).
const Example = "twobranch"

// Names lists the built-in networks.
var Names = []string{Example, Ringtown, "sfn", "anaheim"}

// TimedNames lists the built-in networks whose law changes over the day:
// the CLI and the API load them by name; the dashboard's pages list them
// once they know the clock (issue 74), so they are not among Names yet.
var TimedNames = []string{Rushtown}

// IsExample reports whether net is the embedded five-node example itself
// (not a file that happens to share its name).
func IsExample(net *engine.Network) bool { return net.Instance == Example }

// IsBuiltin reports whether name is a built-in network's name (stored
// networks may not take one).
func IsBuiltin(name string) bool {
	return slices.Contains(Names, name) || slices.Contains(TimedNames, name)
}

// Describe gives a one-line description of each built-in network.
var Describe = map[string]string{
	"twobranch": "the paper's five-node example (embedded; A-E, T = 106 at factor 1)",
	Ringtown:    "ontime's own town, 49 nodes, 168 links; a fast ring road that jams, steady avenues (generated, offline)",
	"sfn":       "Sioux Falls, 24 nodes, 76 links; SEGAC means and variances (needs the data directory)",
	"anaheim":   "Anaheim, 416 nodes, 914 links; UE costs, σ = 0.4·μ·U (needs the data directory)",
	Rushtown:    "Ringtown over a weekday: rush hours at 08:00 and 17:30 in which the ring road jams most (generated, offline; its law changes over the day)",
}

// Load returns the built-in network called name, reading benchmark files from
// dataDir where it needs them.
func Load(name, dataDir string) (*engine.Network, error) {
	var net *engine.Network
	var err error
	switch name {
	case Example:
		net, err = netfile.ReadJSON(bytes.NewReader(twobranchJSON), "twobranch.json (embedded)")
		if err == nil {
			net.Factors = []float64{1} // T = 106, the closed form's budget
		}
	case Ringtown:
		net, err = newRingtown()
	case Rushtown:
		net, err = newRushtown()
	case "sfn":
		net, err = loadSFN(dataDir)
	case "anaheim":
		net, err = loadAnaheim(dataDir)
	default:
		return nil, engine.Errorf(engine.ENOTFOUND, "no built-in network %q (built-ins: %s; or give a path to a network file: .json, .csv or TNTP _net.tntp)", name, strings.Join(append(slices.Clone(Names), TimedNames...), ", "))
	}
	if err != nil {
		return nil, err
	}
	net.Instance = name
	return net, nil
}

// reader reads data files and records their digests for provenance.
type reader struct {
	dir     string
	network string
	sources []engine.SourceFile
}

func (r *reader) read(rel string) ([]byte, string, error) {
	path := filepath.Join(r.dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			dir := r.dir
			if dir == "" {
				dir = "(none set)"
			}
			return nil, "", engine.Errorf(engine.ENOTFOUND,
				"network %s needs %s, which is not in the data directory %s: run `ontime networks fetch --dest DIR` and point --data or ONTIME_DATA at DIR",
				r.network, rel, dir)
		}
		return nil, "", engine.Errorf(engine.EINVALID, "cannot read %s: %v", path, err)
	}
	r.sources = append(r.sources, engine.SourceFile{Path: rel, SHA256: netfile.Digest(data)})
	return data, path, nil
}

// tntpTopology builds nodes (ids ordered numerically, coordinates as given)
// and links (in file order, mean and variance still zero) from a TNTP net.
func tntpTopology(name, netFile string, tn *netfile.TNTPNet, coords []netfile.NodeCoord, coordFile string) (*engine.Network, error) {
	net := &engine.Network{Name: name}
	seen := map[string]bool{}
	var raw [][2]float64
	for _, c := range coords {
		if seen[c.ID] {
			return nil, engine.InputError(coordFile, c.Line, "node", "duplicate node id %s", c.ID)
		}
		seen[c.ID] = true
		net.Nodes = append(net.Nodes, engine.Node{ID: c.ID, Coord: c.Coord})
		raw = append(raw, c.Coord)
	}
	net.Coords = engine.CoordPlanar
	if engine.LooksLonLat(raw) {
		net.Coords = engine.CoordLonLat
	}
	net.Index()
	for _, l := range tn.Links {
		from, ok := net.NodeIndex(l.Init)
		if !ok {
			return nil, engine.InputError(netFile, l.Line, "init_node", "node %s has no coordinates in %s", l.Init, coordFile)
		}
		to, ok := net.NodeIndex(l.Term)
		if !ok {
			return nil, engine.InputError(netFile, l.Line, "term_node", "node %s has no coordinates in %s", l.Term, coordFile)
		}
		net.Links = append(net.Links, engine.Link{From: from, To: to})
	}
	net.Index()
	net.Project()
	net.Zones = tn.ZoneIDs()
	return net, nil
}

func (r *reader) tntp(netRel, coordRel string, geo bool) (*engine.Network, error) {
	data, path, err := r.read(netRel)
	if err != nil {
		return nil, err
	}
	tn, err := netfile.ReadTNTPNet(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	cdata, cpath, err := r.read(coordRel)
	if err != nil {
		return nil, err
	}
	var coords []netfile.NodeCoord
	if geo {
		coords, err = netfile.ReadGeoJSONNodes(bytes.NewReader(cdata), cpath)
	} else {
		coords, err = netfile.ReadTNTPNodes(bytes.NewReader(cdata), cpath)
	}
	if err != nil {
		return nil, err
	}
	return tntpTopology(r.network, path, tn, coords, cpath)
}

// loadSFN: topology and coordinates from TNTP; μ = Cost and σ² = Var from the
// SEGAC benchmark's SiouxFalls_network.csv, whose rows follow the net file.
func loadSFN(dir string) (*engine.Network, error) {
	r := &reader{dir: dir, network: "sfn"}
	net, err := r.tntp("tntp/SiouxFalls_net.tntp", "tntp/SiouxFalls_node.tntp", false)
	if err != nil {
		return nil, err
	}
	data, path, err := r.read("segac/SiouxFalls_network.csv")
	if err != nil {
		return nil, err
	}
	rows, err := netfile.ReadLinkCSV(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	if err := matchLinks(net, path, len(rows), func(i int) (string, string, int) { return rows[i].From, rows[i].To, rows[i].Line }); err != nil {
		return nil, err
	}
	for e, row := range rows {
		net.Links[e].Mean, net.Links[e].Var = row.Cost, row.Var
	}
	net.Description = "Sioux Falls (LeBlanc et al. 1975, TNTP); link means and variances of the SEGAC benchmark"
	net.Correlation = engine.Correlation{Model: "random-psd", Seed: SFNCorrSeed}
	if err := paperODs(net, "2-15", "4-7", "10-13", "13-19", "17-24"); err != nil {
		return nil, err
	}
	net.StepCap = 12
	net.Sources = r.sources
	return net, net.Validate()
}

// loadAnaheim: topology from TNTP, coordinates from the GeoJSON nodes, μ =
// UE Cost from the flow file, σ_e = 0.4·μ_e·U_e with U_e drawn per link from
// AnaheimSigmaSeed. Zone centroids may be passed through, as in the
// benchmark's plain Dijkstra.
func loadAnaheim(dir string) (*engine.Network, error) {
	r := &reader{dir: dir, network: "anaheim"}
	net, err := r.tntp("tntp/Anaheim_net.tntp", "tntp/anaheim_nodes.geojson", true)
	if err != nil {
		return nil, err
	}
	data, path, err := r.read("tntp/Anaheim_flow.tntp")
	if err != nil {
		return nil, err
	}
	rows, err := netfile.ReadTNTPFlow(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	if err := matchLinks(net, path, len(rows), func(i int) (string, string, int) { return rows[i].From, rows[i].To, rows[i].Line }); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(AnaheimSigmaSeed, 0))
	for e, row := range rows {
		if !(row.Cost > 0) {
			return nil, engine.InputError(path, row.Line, "Cost", "mean time %v must be positive", row.Cost)
		}
		sd := AnaheimSigmaScale * row.Cost * rng.Float64()
		net.Links[e].Mean, net.Links[e].Var = row.Cost, sd*sd
	}
	net.Description = "Anaheim (TNTP, 1992); UE link costs as means, σ = 0.4·μ·U(0,1) per link (seeded)"
	net.Correlation = engine.Correlation{Model: "random-psd", Seed: AnaheimCorrSeed}
	if err := paperODs(net, "96-161", "43-161", "376-52", "34-32", "402-47"); err != nil {
		return nil, err
	}
	net.StepCap = 32
	net.Sources = r.sources
	return net, net.Validate()
}

// matchLinks checks that a per-link file lists the network's links in order.
func matchLinks(net *engine.Network, file string, n int, row func(i int) (from, to string, line int)) error {
	if n != len(net.Links) {
		return engine.InputError(file, 0, "", "%d link rows, the network has %d links", n, len(net.Links))
	}
	for e, l := range net.Links {
		from, to, line := row(e)
		if from != net.Nodes[l.From].ID || to != net.Nodes[l.To].ID {
			return engine.InputError(file, line, "From/To", "row is %s→%s, the network's link %d is %s→%s",
				from, to, e+1, net.Nodes[l.From].ID, net.Nodes[l.To].ID)
		}
	}
	return nil
}

// paperODs sets the paper's OD pairs; a data directory holding other files
// than the benchmark's can lack their nodes.
func paperODs(net *engine.Network, specs ...string) error {
	for _, s := range specs {
		od, err := net.ParseOD(s)
		if err != nil {
			return fmt.Errorf("network %s: the benchmark's OD pair: %w", net.Name, err)
		}
		net.ODs = append(net.ODs, od)
	}
	return nil
}
