package netfile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Fuzz targets for every file format. Each imports the fuzzed files the way
// `ontime networks add` does and, when the import accepts them, takes the
// network through what a benchmark does first (the link-time model, the LET
// trees, then two episodes of every method solved from the law): no parser may accept
// what a later stage panics on. Seeds are the formats' own examples; a
// crasher goes to testdata/fuzz and stays as a regression test.
//
//	go test -run '^$' -fuzz FuzzImportCSV -fuzztime 30s ./engine/netfile/

// maxFuzzLinks keeps a fuzzed network small enough to run episodes on.
const maxFuzzLinks = 200

// maxFuzzDOTCells bounds the DOT grid (nodes × budget steps, over the
// destinations) of a network whose planners a fuzz input exercises.
const maxFuzzDOTCells = 1 << 21

func exercise(t *testing.T, files []netfile.File) {
	net, _, err := netfile.Import(files, netfile.ImportOptions{})
	if err != nil {
		if engine.ErrorCode(err) == engine.EINTERNAL {
			t.Fatalf("internal error on bad input: %v", err)
		}
		return
	}
	if len(net.Links) > maxFuzzLinks {
		return
	}
	model, err := linktime.New(net)
	if err != nil {
		t.Fatalf("the import accepted a network its model refuses: %v", err)
	}
	tasks := sim.Tasks(net, net.ODs, []float64{1})
	env := &policy.Env{Net: net, Model: model, Tasks: tasks}
	// DOT's tables grow with the budget over its step: a link of 101,610
	// min beside links of 9 (a fuzzed input) made a 4-node network's table
	// take 6 s, and the fuzzer took a worker that slow for hung. The import
	// was exercised; the planners are, on networks whose tables are small.
	cells := 0.0
	for _, b := range env.MaxBudget() {
		cells += float64(len(net.Nodes)) * b / env.DefaultDOTDelta()
	}
	if cells > maxFuzzDOTCells {
		return
	}
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 2, 0, nil)
	r := &sim.Runner{Net: net}
	res := make([]sim.Result, pool.Size)
	for _, m := range policy.Methods {
		// Every method solved from the law (planners, bounds); learners and
		// models need training, which a fuzz input cannot wait for.
		if m.Kind != policy.Planner && m.Kind != policy.Bound {
			continue
		}
		if m.Name == "rollout" && len(net.Links) > 40 {
			continue // a few hundred continuations a decision
		}
		name := m.Name
		pol, _, err := m.New(env)
		if err != nil {
			t.Fatalf("%s on an accepted network: %v", name, err)
		}
		for _, task := range tasks {
			if err := r.Run(pol, task, pool, res); err != nil {
				t.Fatalf("%s on an accepted network: %v", name, err)
			}
		}
	}
}

func FuzzImportCSV(f *testing.F) {
	f.Add([]byte("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"))
	f.Add([]byte("From,To,Cost\n1,2,3\n2,3,4\n"))
	f.Add([]byte("From,To,Cost,Var\n1,2,Inf,1\n1,1,3,1\n1,2,NaN,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		exercise(t, []netfile.File{{Name: "f.csv", Data: data}})
	})
}

func FuzzImportTNTP(f *testing.F) {
	f.Add([]byte(tinyNet), []byte(tinyNodes), []byte(tinyFlow))
	f.Add([]byte(tinyNet), []byte(""), []byte("<NUMBER OF ZONES> -1\n<END OF METADATA>\n\nTail \tHead \tVolume \tCost \t;\n1\t2\t5\t0.5\t;\n"))
	f.Fuzz(func(t *testing.T, netData, nodeData, flowData []byte) {
		files := []netfile.File{{Name: "f_net.tntp", Data: netData}}
		if len(nodeData) > 0 {
			files = append(files, netfile.File{Name: "f_node.tntp", Data: nodeData})
		}
		if len(flowData) > 0 {
			files = append(files, netfile.File{Name: "f_flow.tntp", Data: flowData})
		}
		exercise(t, files)
	})
}

func FuzzImportJSON(f *testing.F) {
	f.Add([]byte(`{"format": "ontime-network", "version": 1, "name": "x",
"nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}, {"id": "c", "x": 2, "y": 0}],
"links": [{"from": "a", "to": "b", "mean": 1, "variance": 1}, {"from": "b", "to": "c", "mean": 1, "variance": 1}],
"correlation": {"model": "explicit", "covariance": [[1, 0.5], [0.5, 1]]}, "ods": ["a-c"]}`))
	f.Add([]byte(`{"format": "ontime-network", "version": 1, "name": "y", "coordinates": "planar",
"nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 100, "y": 0}, {"id": "c", "x": 200, "y": 50}],
"links": [{"from": "a", "to": "b", "mean": 2, "variance": 1}, {"from": "b", "to": "c", "mean": 3, "variance": 1}, {"from": "a", "to": "c", "mean": 6, "variance": 4}],
"correlation": {"model": "spatial-factor", "strength": 0.5, "length": 100, "factors": 4}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		exercise(t, []netfile.File{{Name: "f.json", Data: data}})
	})
}

func FuzzImportGeoJSONNodes(f *testing.F) {
	f.Add([]byte(`{"type": "FeatureCollection", "features": [
{"type": "Feature", "properties": {"id": 1}, "geometry": {"type": "Point", "coordinates": [-117.9, 33.8]}},
{"type": "Feature", "properties": {"id": 2}, "geometry": {"type": "Point", "coordinates": [-117.8, 33.8]}},
{"type": "Feature", "properties": {"id": 3}, "geometry": {"type": "Point", "coordinates": [-117.8, 33.9]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		exercise(t, []netfile.File{{Name: "f.csv", Data: []byte("From,To,Cost,Var\n1,2,3,1\n2,3,4,1\n1,3,8,2\n")}, {Name: "f_nodes.geojson", Data: data}})
	})
}

// TestImportRefusesWhatTheEngineCannotUse: magnitudes and header counts
// that once crashed the engine or the process are refused at import, each
// naming its file, line and field.
func TestImportRefusesWhatTheEngineCannotUse(t *testing.T) {
	tntp := func(meta string) []byte {
		return []byte(meta + "<END OF METADATA>\n~ init_node term_node capacity length free_flow_time b power speed toll link_type ;\n" +
			"1\t2\t1\t1\t3\t0\t0\t0\t0\t1\t;\n2\t3\t1\t1\t3\t0\t0\t0\t0\t1\t;\n1\t3\t1\t1\t7\t0\t0\t0\t0\t1\t;\n")
	}
	var many strings.Builder
	many.WriteString("From,To,Cost,Var\n")
	for i := range netfile.MaxLinks + 10 {
		fmt.Fprintf(&many, "%d,%d,1,1\n", i, i+1)
	}
	for _, tc := range []struct {
		name  string
		file  netfile.File
		field string
		line  int
	}{
		{"more links than the limit, refused while reading", netfile.File{Name: "many.csv", Data: []byte(many.String())}, "row", netfile.MaxLinks + 2},
		{"huge zone count", netfile.File{Name: "z_net.tntp", Data: tntp("<NUMBER OF ZONES> 100000000000\n")}, "NUMBER OF ZONES", 1},
		{"negative zones", netfile.File{Name: "z_net.tntp", Data: tntp("<NUMBER OF NODES> 3\n<NUMBER OF ZONES> -1\n")}, "NUMBER OF ZONES", 2},
		{"more zones than nodes", netfile.File{Name: "z_net.tntp", Data: tntp("<NUMBER OF ZONES> 4\n")}, "NUMBER OF ZONES", 1},
		{"first thru node not a number", netfile.File{Name: "z_net.tntp", Data: tntp("<FIRST THRU NODE> x\n")}, "FIRST THRU NODE", 1},
		{"mean 1e308", netfile.File{Name: "m.csv", Data: []byte("From,To,Cost,Var\n1,2,1e308,1\n2,3,1,1\n")}, "Cost", 2},
		{"variance 1e308", netfile.File{Name: "v.csv", Data: []byte("From,To,Cost,Var\n1,2,1,1\n2,3,1,1e308\n")}, "Var", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := netfile.Import([]netfile.File{tc.file}, netfile.ImportOptions{})
			if err == nil {
				t.Fatal("accepted")
			}
			var found bool
			for _, e := range problems(err) {
				found = found || (e.File == tc.file.Name && e.Line == tc.line && e.Field == tc.field)
			}
			if !found {
				t.Errorf("no problem at %s line %d field %s: %v", tc.file.Name, tc.line, tc.field, err)
			}
		})
	}
}

func problems(err error) []*engine.Error {
	var ps engine.Problems
	if errors.As(err, &ps) {
		return ps
	}
	var e *engine.Error
	if errors.As(err, &e) {
		return []*engine.Error{e}
	}
	return nil
}
