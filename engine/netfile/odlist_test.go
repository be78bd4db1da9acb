package netfile_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// Issue 71, cause 2: the OD pairs however given (the import's ods field,
// a network file's list, the pairs picked before saving) are at most
// netfile.MaxODPairs, each once, with problems under the one bound.
func TestODListIsBoundedAndUnique(t *testing.T) {
	many := func(n int, s string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		ods   []string
		field string
		says  string
		most  int
	}{
		{"a million bad pairs", many(1_000_000, "x-y"), "ods", "1000000 OD pairs given: a network takes at most 100", 1},
		{"20,000 copies of one pair", many(20_000, "1-4"), "ods", "20000 OD pairs given", 1},
		{"a pair twice", []string{"1-4", "3-2", "1-4"}, "ods[2]", "OD 1-4 is given twice (first as ods[0])", 1},
		{"bad pairs under the bound", many(100, "x-y"), "ods[0]", "no such node pair", 100},
	} {
		_, rep, err := netfile.Import(tiny(), netfile.ImportOptions{ODs: tc.ods})
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if len(rep.Problems) > tc.most || rep.Problems[0].Field != tc.field || !strings.Contains(rep.Problems[0].Message, tc.says) {
			t.Errorf("%s: %d problems, the first %v", tc.name, len(rep.Problems), rep.Problems[0])
		}
		net, rep := mustImport(t, tiny(), netfile.ImportOptions{ODs: []string{"1-4"}})
		if err := netfile.ReplaceODs(net, tc.ods, false, rep); err == nil || len(err.(engine.Problems)) > tc.most {
			t.Errorf("%s: picked before saving: %.200v", tc.name, err)
		}
	}
	// A network file's own list: a pair twice, and too many.
	net, _ := mustImport(t, tiny(), netfile.ImportOptions{ODs: []string{"1-4"}})
	for _, ods := range [][]string{{"1-4", "1-4"}, many(101, "1-4")} {
		var doc map[string]any
		var buf bytes.Buffer
		netfile.WriteJSON(&buf, net)
		json.Unmarshal(buf.Bytes(), &doc)
		doc["ods"] = ods
		b, _ := json.Marshal(doc)
		if _, _, err := netfile.Import([]netfile.File{{Name: "n.json", Data: b}}, netfile.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "ods") {
			t.Errorf("a network file with %d pairs %v…: %v", len(ods), ods[0], err)
		}
	}
}
