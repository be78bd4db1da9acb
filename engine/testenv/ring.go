package testenv

import (
	"fmt"
	"strings"
)

// Ring is a network file pair of n nodes in a ring, both ways (2n links):
// a link CSV (From,To,Cost,Var) and a TNTP node file with coordinates, so
// that an import needs no automatic layout. Over 500 nodes it has more
// than a thousand links: a dense correlation on it is a slow model.
func Ring(n int) (linkCSV, nodeTNTP string) {
	var links, nodes strings.Builder
	links.WriteString("From,To,Cost,Var\n")
	nodes.WriteString("Node\tX\tY\t;\n")
	for i := 1; i <= n; i++ {
		j := i%n + 1
		fmt.Fprintf(&links, "%d,%d,%d,1\n%d,%d,%d,1\n", i, j, 1+i%5, j, i, 1+j%3)
		fmt.Fprintf(&nodes, "%d\t%d\t%d\t;\n", i, 1000+i, 2000+i%7)
	}
	return links.String(), nodes.String()
}
