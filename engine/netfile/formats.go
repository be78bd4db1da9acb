package netfile

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Format is one kind of input ontime reads: how its files are recognised,
// which of them says the format was given, its reader, the import settings
// only it reads, and the exporter that writes it. Every list of formats
// (the CLI's help, the upload page's hint, the errors, docs/extending.md)
// is made from Formats; a new format is one file and one row.
type Format struct {
	Name string // as reports name it
	// Files says how a person gives it, for help, hints and errors.
	Files string
	// Endings are its files' endings, longest first (a name without its
	// ending names the network; a path with one is a file, not a name).
	Endings []string
	// Options are the import settings (ImportSettings' names) only this
	// format reads.
	Options []string
	// Export is the Exports entry that writes it ("": none).
	Export string
	// slots are its kinds of file, tried in the table's order (the first
	// slot of any format that matches a file takes it).
	slots []slot
	// read reads the network from the files sorted into roles; nil: the
	// format's files go with another format's (observed times).
	read func(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error)
	// main is the slot whose file says this format was given.
	main func(r *roles) **File
}

// slot is one kind of a format's file.
type slot struct {
	what  string // for "a second … file" messages
	match func(f *File) bool
	into  func(r *roles) **File // nil: accepted and not read (a TNTP _trips file)
}

// roles are the input files sorted by what they hold.
type roles struct {
	net, nodes, flow, csv, json, osm *File
	geojson                          *File
	trips, demand                    *File // a demand table: TNTP _trips, GMNS demand.csv
	gmnsNode, gmnsLink               *File
}

var (
	tntpNetName  = regexp.MustCompile(`(?i)_net\.tntp$`)
	tntpNodeName = regexp.MustCompile(`(?i)_nodes?\.tntp$`)
	tntpFlowName = regexp.MustCompile(`(?i)_flows?\.tntp$`)
)

func ends(f *File, suffixes ...string) bool {
	lower := strings.ToLower(f.Name)
	for _, s := range suffixes {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	return false
}

func isGeoJSONNodes(f *File) bool {
	return !isGeoJSONNetwork(f) && ends(f, ".geojson") || ends(f, ".json") && bytes.Contains(f.Data[:min(len(f.Data), 4096)], []byte(`"FeatureCollection"`))
}

// Formats are the input formats, in the order their files are recognised
// (set in init: the readers name files by the formats' endings).
var Formats []Format

func init() {
	Formats = formats
}

var formats = []Format{
	{Name: "TNTP", Files: "a TNTP _net.tntp (with _node.tntp or nodes .geojson, and _flow.tntp)", Endings: []string{"_net.tntp", ".tntp"},
		Options: []string{"mean", "zones"}, Export: "tntp",
		slots: []slot{
			{"TNTP _net", func(f *File) bool { return tntpNetName.MatchString(f.Name) }, func(r *roles) **File { return &r.net }},
			{"node coordinate", func(f *File) bool { return tntpNodeName.MatchString(f.Name) || isGeoJSONNodes(f) }, func(r *roles) **File { return &r.nodes }},
			{"TNTP _flow", func(f *File) bool { return tntpFlowName.MatchString(f.Name) }, func(r *roles) **File { return &r.flow }},
			// demand: default OD pairs drawn by its trips
			{"TNTP _trips", func(f *File) bool { return ends(f, "_trips.tntp") }, func(r *roles) **File { return &r.trips }},
		},
		read: readTNTPNetwork, main: func(r *roles) **File { return &r.net }},
	{Name: "OpenStreetMap", Files: "an OpenStreetMap extract (.osm.pbf, .osm, .osm.bz2)", Endings: []string{".osm.pbf", ".osm.bz2", ".osm", ".pbf"},
		Options: []string{"highways"},
		slots:   []slot{{"OpenStreetMap", func(f *File) bool { return isOSM(f.Name) }, func(r *roles) **File { return &r.osm }}},
		read:    readOSMNetwork, main: func(r *roles) **File { return &r.osm }},
	{Name: "observed times", Files: "observed link times (a .csv with observation and time columns; fitted once the network is read)",
		Options: []string{"period"},
		slots:   []slot{{"observations", isObservations, nil}}},
	{Name: "GMNS", Files: "a GMNS node.csv and link.csv", Export: "gmns",
		slots: []slot{
			{"GMNS node.csv", func(f *File) bool { return ends(f, ".csv") && gmnsKind(f.Data) == "node" }, func(r *roles) **File { return &r.gmnsNode }},
			{"GMNS link.csv", func(f *File) bool { return ends(f, ".csv") && gmnsKind(f.Data) == "link" }, func(r *roles) **File { return &r.gmnsLink }},
			{"GMNS demand.csv", isGMNSDemand, func(r *roles) **File { return &r.demand }},
		},
		read: readGMNSNetwork, main: func(r *roles) **File { return &r.gmnsLink }},
	{Name: "GeoJSON", Files: "a GeoJSON network (.geojson: node Points and link LineStrings with from_node_id, to_node_id, " + GMNSMean + ")", Endings: []string{".geojson"}, Export: "geojson",
		slots: []slot{{"GeoJSON network", isGeoJSONNetwork, func(r *roles) **File { return &r.geojson }}},
		read:  readGeoJSONNetwork, main: func(r *roles) **File { return &r.geojson }},
	{Name: "link CSV", Files: "a link .csv (From,To,Cost,Var[,Volume])", Endings: []string{".csv"},
		slots: []slot{{"link CSV", func(f *File) bool { return ends(f, ".csv") }, func(r *roles) **File { return &r.csv }}},
		read:  readCSVNetwork, main: func(r *roles) **File { return &r.csv }},
	{Name: "ontime JSON", Files: "ontime's .json", Endings: []string{".json"}, Options: []string{"psd"}, Export: "json",
		slots: []slot{{"ontime JSON", func(f *File) bool { return ends(f, ".json") }, func(r *roles) **File { return &r.json }}},
		read:  readJSONNetwork, main: func(r *roles) **File { return &r.json }},
}

// networkFormats are the formats that are networks (not observed times).
func networkFormats() []Format {
	var out []Format
	for _, f := range Formats {
		if f.read != nil {
			out = append(out, f)
		}
	}
	return out
}

// FormatList lists how each network format is given ("a TNTP _net.tntp
// (…), …, or ontime's .json"), for help and errors.
func FormatList() string {
	var parts []string
	for _, f := range networkFormats() {
		parts = append(parts, f.Files)
	}
	return engine.JoinOr(parts)
}

// FormatEndings are every file ending a format knows.
func FormatEndings() []string {
	var out []string
	for _, f := range Formats {
		out = append(out, f.Endings...)
	}
	return out
}

// FormatsMarkdown is the formats as a Markdown table (docs/extending.md).
func FormatsMarkdown() string {
	var b strings.Builder
	b.WriteString("| format | files | settings only it reads | exported as |\n|---|---|---|---|\n")
	for _, f := range Formats {
		opts := "–"
		if len(f.Options) > 0 {
			opts = "`--" + strings.Join(f.Options, "`, `--") + "`"
		}
		export := "–"
		if f.Export != "" {
			export = "`" + f.Export + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Name, f.Files, opts, export)
	}
	return b.String()
}

// sortFiles puts each file in its slot: the first slot of the table that
// matches it.
func sortFiles(files []File) (roles, error) {
	var r roles
	var probs engine.Problems
	for i := range files {
		f := &files[i]
		s, ok := slotOf(f)
		switch {
		case !ok:
			probs = append(probs, engine.InputError(f.Name, 0, "", "unknown kind of file: give %s", FormatList()))
		case s.into == nil:
		case *s.into(&r) != nil:
			probs = append(probs, engine.InputError(f.Name, 0, "", "a second %s file (%s already given)", s.what, (*s.into(&r)).Name))
		default:
			*s.into(&r) = f
		}
	}
	given := givenFormats(&r)
	switch {
	case len(files) == 0:
		probs = append(probs, engine.Errorf(engine.EINVALID, "no file given"))
	case len(given) == 0 && len(probs) == 0 && r.gmnsNode == nil:
		probs = append(probs, engine.InputError(files[0].Name, 0, "", "no link file: give %s", FormatList()))
	case len(given) > 1:
		probs = append(probs, engine.Errorf(engine.EINVALID, "give one network, not %d (%s)", len(given), strings.Join(given, ", ")))
	}
	probs = append(probs, r.mismatched()...)
	return r, probs.Err()
}

func slotOf(f *File) (slot, bool) {
	for _, fm := range Formats {
		for _, s := range fm.slots {
			if s.match(f) {
				return s, true
			}
		}
	}
	return slot{}, false
}

// givenFormats names the network formats whose main file was given.
func givenFormats(r *roles) []string {
	var out []string
	for _, f := range networkFormats() {
		if *f.main(r) != nil {
			out = append(out, f.Name)
		}
	}
	return out
}

// mismatched lists files given with a format they do not go with.
func (r *roles) mismatched() engine.Problems {
	var probs engine.Problems
	if r.json != nil && (r.nodes != nil || r.flow != nil) {
		probs = append(probs, engine.InputError(r.json.Name, 0, "", "ontime's JSON holds the whole network: give it alone"))
	}
	if r.osm != nil && (r.nodes != nil || r.flow != nil) {
		probs = append(probs, engine.InputError(r.osm.Name, 0, "", "an OpenStreetMap extract holds its own coordinates: give it alone"))
	}
	if r.gmnsLink != nil && (r.gmnsNode == nil || r.nodes != nil || r.flow != nil) {
		probs = append(probs, engine.InputError(r.gmnsLink.Name, 0, "", "a GMNS link.csv goes with its node.csv, and with nothing else"))
	}
	if r.gmnsNode != nil && r.gmnsLink == nil {
		probs = append(probs, engine.InputError(r.gmnsNode.Name, 0, "", "a GMNS node.csv needs its link.csv (columns link_id, from_node_id, to_node_id, directed)"))
	}
	if r.csv != nil && r.flow != nil {
		probs = append(probs, engine.InputError(r.flow.Name, 0, "", "a _flow file goes with a TNTP _net file, not a CSV"))
	}
	return probs
}

// readFiles reads the network from the files with the format given.
func readFiles(files []File, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	r, err := sortFiles(files)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range networkFormats() {
		if *f.main(&r) != nil {
			rep.Format = f.Name
			net, src, err := f.read(r, o, rep)
			if err == nil {
				err = attachDemand(r, net, rep)
			}
			return net, src, err
		}
	}
	return nil, nil, engine.Errorf(engine.EINVALID, "no link file: give %s", FormatList())
}

// readJSONNetwork reads ontime's own format.
func readJSONNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	net, err := ReadJSON(bytes.NewReader(r.json.Data), r.json.Name)
	if err != nil {
		return nil, nil, err
	}
	src := &source{odFile: r.json.Name}
	for i := range net.Links {
		src.links = append(src.links, linkSource{file: r.json.Name, meanField: fmt.Sprintf("links[%d].mean", i), varField: fmt.Sprintf("links[%d].variance", i)})
	}
	net.Sources = []engine.SourceFile{{Path: r.json.Name, SHA256: Digest(r.json.Data)}}
	if o.CV == 0 {
		rep.note("means, variances and correlation as in %s", r.json.Name)
	}
	return net, src, nil
}
