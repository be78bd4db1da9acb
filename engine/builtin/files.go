// Package builtin assembles ontime's built-in networks: the paper's
// five-node example (embedded) and the Sioux Falls and Anaheim benchmarks,
// read from a data directory laid out like the public sources (tntp/,
// segac/).
package builtin

// DataFile is a public source file a built-in network reads, pinned by
// content so that `ontime networks fetch` can verify what it downloads.
type DataFile struct {
	Path   string // relative to the data directory
	URL    string
	SHA256 string
	Source string // the licence key below
}

const (
	tntpBase  = "https://raw.githubusercontent.com/bstabler/TransportationNetworks/d1639b4ef218c17928ba573e806ddf8ba5e7ae6d/"
	segacBase = "https://raw.githubusercontent.com/YoZo-X/SEGAC/8f4b0f2414076a493bbe0a5e4ffd79c9957bb4eb/"
)

// DataFiles lists every file the built-in networks read.
var DataFiles = []DataFile{
	{"tntp/SiouxFalls_net.tntp", tntpBase + "SiouxFalls/SiouxFalls_net.tntp", "ace99b24cec69c273ff0cf3d6d074110177f0cc0ae24b0c7a9f4f4cb5e27635c", "tntp"},
	{"tntp/SiouxFalls_node.tntp", tntpBase + "SiouxFalls/SiouxFalls_node.tntp", "91c0b954dcfc6f6f08f48de1ce9d245261f5188a33aef76acf3ce1fff0809969", "tntp"},
	{"tntp/SiouxFalls_flow.tntp", tntpBase + "SiouxFalls/SiouxFalls_flow.tntp", "5d0b83a22ecc3ce79dabb2b2972162b78c5eda571dcb5b3687429d8397654fee", "tntp"},
	{"tntp/Anaheim_net.tntp", tntpBase + "Anaheim/Anaheim_net.tntp", "99933b415e9500b13907829c37a43cfa9141714fad5af279081e28e5f9356f9a", "tntp"},
	{"tntp/Anaheim_flow.tntp", tntpBase + "Anaheim/Anaheim_flow.tntp", "eecd21c2a908b6a1c6729045ea260e96df1de026f05281d341fc281f2552cebe", "tntp"},
	{"tntp/anaheim_nodes.geojson", tntpBase + "Anaheim/anaheim_nodes.geojson", "09467725693e40b1aad64dbb27520c78967271cf0000bce01eb607b0dda63161", "tntp"},
	{"segac/SiouxFalls_network.csv", segacBase + "maps/SiouxFalls_network.csv", "8116c964ae6ca53aac8e0f106f42665ee220d575527e33dabee806f7b9149b14", "segac"},
}

// Licences states the terms of each source, as its repository states them.
// `ontime networks fetch` prints them and writes them beside the files.
var Licences = map[string]string{
	"tntp": "Transportation Networks for Research (github.com/bstabler/TransportationNetworks): " +
		"the data sets are for academic research purposes only; users are responsible for their results, " +
		"and any publication relying on a data set must cite the source: Transportation Networks for Research Core Team, " +
		"Transportation Networks for Research, https://github.com/bstabler/TransportationNetworks, accessed (date). " +
		"Sioux Falls: LeBlanc, Morlok & Pierskalla (1975), Transportation Research 9, 309-318. " +
		"Anaheim: provided by Jeff Ban and Ray Jayakrishnan, via Hillel Bar-Gera's TNTP site.",
	"segac": "SE-GAC benchmark settings (github.com/YoZo-X/SEGAC): the repository states no licence, so no licence is granted; " +
		"the link mean/variance file is used as research reference data, with attribution to its authors.",
}
