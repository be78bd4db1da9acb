package netfile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/netfile"
)

// badRowFormats are the readers with rows, each with a header and the kinds
// of row it may meet: good ones, and each way a row can be bad (too few or
// too many fields, a field that is not a number, an empty id, a link to an
// unknown node). A file is a header then rows of the kinds a fuzz input
// picks, in turn, past the problem bound.
var badRowFormats = []struct {
	name  string
	files func(rows []string) []netfile.File
	kinds []string
}{
	{"tntp net", func(rows []string) []netfile.File {
		return []netfile.File{{Name: "t_net.tntp", Data: []byte("<END OF METADATA>\n~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\n" + strings.Join(rows, "\n"))}}
	}, []string{
		"1\t2\t9\t1\t4\t0.15\t4\t0\t0\t1\t;", "1\t2;", "1\t2\t9\t1\t4\t0.15\t4\t0\t0\t1\t7\t8\t;", "1\t2\tx\t1\t4\t0.15\t4\t0\t0\t1\t;",
		"1\t2\t9\t1\t4\t0.15\t4\t0\t0\tz\t;", "1\t2\t9\tq\tq\tq\tq\tq\tq\tq\t;", "\t;",
	}},
	{"tntp nodes", func(rows []string) []netfile.File {
		return []netfile.File{{Name: "t_net.tntp", Data: []byte(tinyNet)}, {Name: "t_node.tntp", Data: []byte("Node\tX\tY\t;\n" + strings.Join(rows, "\n"))}}
	}, []string{"1\t0\t0\t;", "2\t1\t;", "3\tx\t0\t;", "1\t5\t5\t;", "9\t1\t1\t1\t1\t;"}},
	{"tntp flow", func(rows []string) []netfile.File {
		return []netfile.File{{Name: "t_net.tntp", Data: []byte(tinyNet)}, {Name: "t_flow.tntp", Data: []byte("From\tTo\tVolume\tCost\n" + strings.Join(rows, "\n"))}}
	}, []string{"1\t2\t5\t0.5", "1\t2", "2\t3\tx\t1", "7\t8\t1\t1", "1\t2\t5\t0.5\t9"}},
	{"csv", func(rows []string) []netfile.File {
		return []netfile.File{{Name: "l.csv", Data: []byte("From,To,Cost,Var\n" + strings.Join(rows, "\n"))}}
	}, []string{"1,2,10,4", "1,2", "1,2,x,4", ",2,1,1", "1,2,1,y", "1,2,3,4,5", "1,1,3,1"}},
	{"gmns", func(rows []string) []netfile.File {
		return []netfile.File{{Name: "node.csv", Data: []byte("node_id,x_coord,y_coord\n1,0,0\n2,1,0\n")},
			{Name: "link.csv", Data: []byte("link_id,from_node_id,to_node_id,directed,length,free_speed\n" + strings.Join(rows, "\n"))}}
	}, []string{"1,1,2,1,100,30", "2,1,9,1,100,30", "3,1,2,x,100,30", "4,1,2,1,a,b", "5,1,2", ",,,,,"}},
}

// FuzzBadRowsAreCapped: whatever mix of bad rows a file holds, in any
// reader, an import reports at most netfile.MaxProblems problems and a
// line saying it stopped.
func FuzzBadRowsAreCapped(f *testing.F) {
	for i := range badRowFormats {
		f.Add(uint8(i), []byte{1})
		f.Add(uint8(i), []byte{0, 1, 2, 3, 4, 5, 6})
		f.Add(uint8(i), []byte{3, 3, 1, 0})
	}
	f.Fuzz(func(t *testing.T, format uint8, kinds []byte) {
		if len(kinds) == 0 {
			return
		}
		fm := badRowFormats[int(format)%len(badRowFormats)]
		rows := make([]string, 0, 3*netfile.MaxProblems)
		for i := range cap(rows) {
			rows = append(rows, fm.kinds[int(kinds[i%len(kinds)])%len(fm.kinds)])
		}
		_, rep, err := netfile.Import(fm.files(rows), netfile.ImportOptions{})
		if rep == nil {
			return
		}
		if n := len(rep.Problems); n > netfile.MaxProblems+1 {
			t.Fatalf("%s, kinds %v: %d problems, the bound is %d (and a closing line); err %.200v", fm.name, kinds, n, netfile.MaxProblems, fmt.Sprint(err))
		}
	})
}
