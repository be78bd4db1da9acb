package netfile

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// LooksLikePath tells a file path from a network name: it has a directory
// or a network file's ending.
func LooksLikePath(s string) bool {
	if strings.ContainsRune(s, os.PathSeparator) || strings.ContainsRune(s, '/') {
		return true
	}
	lower := strings.ToLower(s)
	for _, ext := range append(FormatEndings(), ".geojson") {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// OpenFile imports the network in the file at path. For a TNTP _net file
// the files beside it with the same stem are read too: _node.tntp (or a
// GeoJSON of nodes) and _flow.tntp.
func OpenFile(path string, o ImportOptions) (*engine.Network, error) {
	files, err := ReadFiles(path)
	if err != nil {
		return nil, err
	}
	net, _, err := Import(files, o)
	return net, err
}

// ReadFiles reads the files named (each a path), adding the siblings of a
// TNTP _net file and the node.csv beside a GMNS link.csv that are not named
// already; a directory stands for the GMNS node.csv and link.csv in it.
func ReadFiles(paths ...string) ([]File, error) {
	var files []File
	paths = gmnsPaths(paths)
	named := map[string]bool{}
	for _, p := range paths {
		named[filepath.Clean(p)] = true
	}
	all := append([]string(nil), paths...)
	for _, p := range paths {
		if !tntpNetName.MatchString(p) {
			continue
		}
		for _, s := range Siblings(p) {
			if !named[filepath.Clean(s)] && !hasRole(all, s) {
				all = append(all, s)
				named[filepath.Clean(s)] = true
			}
		}
	}
	for _, p := range all {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, engine.Errorf(engine.ENOTFOUND, "cannot read network file %s: %v", p, err)
		}
		files = append(files, File{Name: filepath.Base(p), Data: data})
	}
	return files, nil
}

// gmnsPaths replaces a directory by its node.csv and link.csv and adds the
// node.csv beside a link.csv ("Xlink.csv" goes with "Xnode.csv").
func gmnsPaths(paths []string) []string {
	var out []string
	hasNode := false
	for _, p := range paths {
		hasNode = hasNode || strings.HasSuffix(strings.ToLower(p), "node.csv")
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, filepath.Join(p, "node.csv"), filepath.Join(p, "link.csv"))
			continue
		}
		out = append(out, p)
		lower := strings.ToLower(p)
		if !hasNode && strings.HasSuffix(lower, "link.csv") {
			node := p[:len(p)-len("link.csv")] + "node.csv"
			if _, err := os.Stat(node); err == nil {
				out = append(out, node)
			}
		}
	}
	return out
}

// hasRole reports whether a file of s's kind (nodes or flow) is named.
func hasRole(paths []string, s string) bool {
	node := tntpNodeName.MatchString(s) || strings.HasSuffix(strings.ToLower(s), ".geojson")
	for _, p := range paths {
		if node && (tntpNodeName.MatchString(p) || strings.HasSuffix(strings.ToLower(p), ".geojson")) {
			return true
		}
		if !node && tntpFlowName.MatchString(p) {
			return true
		}
	}
	return false
}

// Siblings lists the node and flow files beside a TNTP _net file: STEM_node.tntp
// (else a .geojson whose name starts with the stem, any case) and
// STEM_flow.tntp.
func Siblings(netPath string) []string {
	dir := filepath.Dir(netPath)
	base := filepath.Base(netPath)
	stem := strings.ToLower(base[:len(base)-len("_net.tntp")])
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var node, geo, flow string
	for _, e := range entries {
		n := e.Name()
		lower := strings.ToLower(n)
		switch {
		case lower == stem+"_node.tntp":
			node = n
		case lower == stem+"_flow.tntp":
			flow = n
		case strings.HasPrefix(lower, stem) && strings.HasSuffix(lower, ".geojson"):
			geo = n
		}
	}
	var out []string
	if node == "" {
		node = geo
	}
	for _, n := range []string{node, flow} {
		if n != "" {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}
