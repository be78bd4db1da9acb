package netfile_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/netfile"
)

// An import fitted to observed times says what the stored network has: the
// default law's and spread's notes are for the links never observed, and
// the correlation note is the fitted one, not the default it replaced.
func TestFittedImportSaysWhatIsStored(t *testing.T) {
	var obs strings.Builder
	obs.WriteString("from,to,day,time\n")
	for d := range 60 {
		for i, l := range [][2]int{{1, 2}, {2, 4}, {1, 3}} {
			fmt.Fprintf(&obs, "%d,%d,d%d,%.3f\n", l[0], l[1], d, 8+4*math.Exp(math.Sin(float64(d*(i+3)))))
		}
	}
	files := []netfile.File{{Name: "grid.csv", Data: []byte("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n2,3,5,1\n")},
		{Name: "obs.csv", Data: []byte(obs.String())}}
	_, rep := mustImport(t, files, netfile.ImportOptions{ODs: []string{"1-4"}})
	notes := strings.Join(rep.Notes, "\n")
	for _, want := range []string{"for the 2 of 5 links never observed: link-time law:", "correlation stored: "} {
		if !strings.Contains(notes, want) {
			t.Errorf("the report does not say %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "correlation: random-psd") {
		t.Errorf("the report names the default correlation the fit replaced:\n%s", notes)
	}
}
