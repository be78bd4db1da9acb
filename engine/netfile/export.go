package netfile

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Export is one format a stored network can be written in.
type Export struct {
	Name  string // what --format and ?format= take
	Label string // what the page's link says
	// Keeps says what the files carry, and what they leave out.
	Keeps string
	Write func(net *engine.Network) ([]File, error)
}

// Exports are the formats, ontime's own first (it keeps everything).
var Exports = []Export{
	{Name: "json", Label: "ontime JSON", Keeps: "everything: means, variances, correlation, link-time law, OD pairs, coordinates and link shapes",
		Write: func(net *engine.Network) ([]File, error) {
			var b bytes.Buffer
			err := WriteJSON(&b, net)
			return []File{{Name: net.Name + ".json", Data: b.Bytes()}}, err
		}},
	{Name: "gmns", Label: "GMNS (node.csv, link.csv)", Keeps: "coordinates, link shapes (geometry), means and spreads (" + GMNSMean + ", " + GMNSSD + ", " + GMNSVar + ", minutes); not the correlation, law or OD pairs: an import takes the default rules for them",
		Write: func(net *engine.Network) ([]File, error) {
			node, link, err := WriteGMNS(net)
			return []File{{Name: "node.csv", Data: node}, {Name: "link.csv", Data: link}}, err
		}},
	{Name: "geojson", Label: "GeoJSON (node Points, link LineStrings)", Keeps: "coordinates, link courses, means and spreads (" + GMNSMean + ", " + GMNSSD + ", " + GMNSVar + ", minutes), as GMNS; not the correlation, law or OD pairs",
		Write: func(net *engine.Network) ([]File, error) {
			data, err := WriteGeoJSON(net)
			return []File{{Name: net.Name + ".geojson", Data: data}}, err
		}},
	{Name: "tntp", Label: "TNTP (_net.tntp, _node.tntp)", Keeps: "coordinates and means as free_flow_time (minutes); not σ (an import takes σ = 0.3 × mean), shapes, correlation, law or OD pairs",
		Write: func(net *engine.Network) ([]File, error) {
			nf, nodes, err := WriteTNTP(net)
			return []File{{Name: net.Name + "_net.tntp", Data: nf}, {Name: net.Name + "_node.tntp", Data: nodes}}, err
		}},
}

// ExportByName finds a format, naming the choices when there is none.
func ExportByName(name string) (Export, error) {
	var names []string
	for _, x := range Exports {
		if x.Name == name {
			return x, nil
		}
		names = append(names, x.Name)
	}
	return Export{}, engine.InputError("", 0, "format", "unknown export format %q: choose %s", name, strings.Join(names, ", "))
}

// Zip packs files into one archive under the folder dir (a download holds
// a GMNS pair or a TNTP folder in one file).
func Zip(w io.Writer, dir string, files []File) error {
	z := zip.NewWriter(w)
	for _, f := range files {
		fw, err := z.Create(dir + "/" + f.Name)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return z.Close()
}

// WriteTNTP writes net as a TNTP _net file (one row per link, its mean as
// free_flow_time in minutes, no zones) and a _node file of coordinates. The
// columns TNTP has and ontime does not keep are written as TNTP's neutral
// values (capacity 0, b 0, power 4, toll 0, link_type 1) and length 0.
func WriteTNTP(net *engine.Network) (netFile, nodeFile []byte, err error) {
	for _, nd := range net.Nodes {
		if nd.ID == "" || strings.ContainsAny(nd.ID, " \t;~<>") {
			return nil, nil, engine.InputError("", 0, "node", "node id %q cannot be written in TNTP (spaces, tabs, ; ~ < > separate its fields): export as GMNS or ontime JSON", nd.ID)
		}
	}
	ff := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var b bytes.Buffer
	fmt.Fprintf(&b, "<NUMBER OF ZONES> 0\n<NUMBER OF NODES> %d\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> %d\n<ORIGINAL HEADER>~ written by ontime from network %q: free_flow_time is the mean link time in minutes\n<END OF METADATA>\n\n\n",
		len(net.Nodes), len(net.Links), net.Name)
	b.WriteString("~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\n")
	for _, l := range net.Links {
		fmt.Fprintf(&b, "\t%s\t%s\t0\t0\t%s\t0\t4\t0\t0\t1\t;\n", net.Nodes[l.From].ID, net.Nodes[l.To].ID, ff(l.Mean))
	}
	var nb bytes.Buffer
	nb.WriteString("Node\tX\tY\t;\n")
	for _, nd := range net.Nodes {
		c := nodeCoord(net, nd)
		fmt.Fprintf(&nb, "%s\t%s\t%s\t;\n", nd.ID, ff(c[0]), ff(c[1]))
	}
	return b.Bytes(), nb.Bytes(), nil
}
