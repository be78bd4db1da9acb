package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func runCLI(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	state := t.TempDir() // never the user's own state directory
	err := run(context.Background(), args, func(k string) string {
		if v, ok := env[k]; ok || k != "ONTIME_STATE" {
			return v
		}
		return state
	}, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestBenchJSON(t *testing.T) {
	out, _, err := runCLI(t, nil, "bench", "--network", "twobranch", "--methods", "let,condrule", "--budgets", "1",
		"--pools", "3", "--pool-size", "200", "--format", "json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Network string
		Summary []struct {
			Method string
			Budget float64
		}
		Provenance struct{ Commit, Version string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Network != "twobranch" || len(rep.Summary) != 2 || rep.Summary[1].Method != "condrule" || rep.Provenance.Version == "" {
		t.Errorf("report %+v", rep)
	}
}

// --cpuprofile and --memprofile write profiles that go tool pprof reads
// (gzip-compressed protocol buffers holding at least the profile's header)
// from each command that runs long; a path that cannot be written fails
// the command before it runs.
func TestCommandsWriteProfiles(t *testing.T) {
	for _, cmd := range [][]string{
		{"bench", "--network", "twobranch", "--methods", "let,dot", "--pools", "2", "--pool-size", "100", "--quiet"},
		{"plan", "--network", "twobranch", "--methods", "let", "--episodes", "100", "--routes", "0"},
		{"live", "--network", "twobranch", "--methods", "let", "--episodes", "100"},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			dir := t.TempDir()
			cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
			if _, _, err := runCLI(t, nil, append(slices.Clone(cmd), "--cpuprofile", cpu, "--memprofile", mem)...); err != nil {
				t.Fatal(err)
			}
			for _, prof := range []string{cpu, mem} {
				data, err := os.ReadFile(prof)
				if err != nil || len(data) < 20 || data[0] != 0x1f || data[1] != 0x8b {
					t.Fatalf("profile %s %v: %d bytes, % x", prof, err, len(data), data[:min(len(data), 4)])
				}
			}
			for _, flag := range []string{"--cpuprofile", "--memprofile"} {
				if _, _, err := runCLI(t, nil, append(slices.Clone(cmd), flag, filepath.Join(dir, "no", "such", "dir", "p"))...); err == nil || !strings.Contains(err.Error(), flag) {
					t.Errorf("%s that cannot be written: %v, want an error naming the flag", flag, err)
				}
			}
		})
	}
}

func TestBenchFormatsAndHistory(t *testing.T) {
	// Without --budgets, the network's own factors: twobranch states one
	// (T = 106, its closed form's budget), as its Benchmarks page asks.
	out, _, err := runCLI(t, nil, "bench", "--pools", "2", "--pool-size", "100", "--format", "csv", "--quiet")
	if err != nil || !strings.HasPrefix(out, "network,method,od,budget,pool,on_time_rate\n") || strings.Count(out, "\n") != 1+2*1*2 {
		t.Errorf("csv (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, nil, "bench", "--budgets", "0.95,1,1.05", "--pools", "2", "--pool-size", "100", "--format", "csv", "--quiet")
	if err != nil || strings.Count(out, "\n") != 1+2*3*2 {
		t.Errorf("csv (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, nil, "bench", "--history-control", "--budgets", "1", "--pools", "2", "--pool-size", "100", "--quiet")
	if err != nil || !strings.Contains(out, "| 1.00 | shuffled history |") || !strings.Contains(out, "0.5370") {
		t.Errorf("history control (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, nil, "bench", "--corr", "independent", "--pools", "2", "--pool-size", "50", "--quiet")
	if err != nil || !strings.Contains(out, "Correlation independent") {
		t.Errorf("--corr independent (%v):\n%s", err, out)
	}
}

func TestBenchErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--methods", "nope"}, `unknown method "nope"`},
		{[]string{"bench", "--budgets", "1,x"}, `--budgets: "x" is not a positive factor`},
		{[]string{"bench", "--ods", "A-Z"}, `OD "A-Z"`},
		{[]string{"bench", "--network", "nowhere"}, `no network "nowhere"`},
		{[]string{"bench", "--corr", "weird"}, `--corr "weird"`},
		{[]string{"bench", "--corr-seed", "3"}, "--corr-seed applies to random-psd"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		_, _, err := runCLI(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	_, _, err := runCLI(t, nil, "bench", "--no-such-flag")
	if !errors.Is(err, errUsage) {
		t.Errorf("bad flag: %v", err)
	}
}

func TestMissingDataSaysHowToFetch(t *testing.T) {
	_, _, err := runCLI(t, map[string]string{"ONTIME_DATA": t.TempDir()}, "bench", "--network", "sfn")
	if err == nil || !strings.Contains(err.Error(), "ontime networks fetch") || !strings.Contains(err.Error(), "SiouxFalls_net.tntp") {
		t.Errorf("err = %v", err)
	}
}

func TestNetworksExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tb.json")
	if _, _, err := runCLI(t, nil, "networks", "export", "--network", "twobranch", "--out", file); err != nil {
		t.Fatal(err)
	}
	// The network may be named by flag or as the one argument.
	for _, args := range [][]string{{"--network", file}, {file}} {
		out, _, err := runCLI(t, nil, append([]string{"networks", "show"}, args...)...)
		if err != nil || !strings.Contains(out, "OD A-E: LET 106.0000 min, 3 links: A-B-C-E") {
			t.Fatalf("show %v (%v):\n%s", args, err, out)
		}
	}
	if _, _, err := runCLI(t, nil, "networks", "show", "--network", file, "sfn"); err == nil || !strings.Contains(err.Error(), `unexpected argument "sfn"`) {
		t.Errorf("stray argument: %v", err)
	}
	again := filepath.Join(dir, "again.json")
	runCLI(t, nil, "networks", "export", "--network", file, "--out", again)
	a, _ := os.ReadFile(file)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("export of an exported network differs")
	}
}

func TestNetworksShowBenchmarks(t *testing.T) {
	env := map[string]string{"ONTIME_DATA": testenv.DataDir(t)}
	out, _, err := runCLI(t, env, "networks", "show", "--network", "sfn")
	if err != nil || !strings.Contains(out, "24 nodes, 76 links, coordinates lonlat, step cap 12") || !strings.Contains(out, "OD 2-15: LET 45.6505") {
		t.Errorf("show sfn (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, env, "networks", "list")
	if err != nil || strings.Contains(out, "missing data") {
		t.Errorf("list (%v):\n%s", err, out)
	}
}

func TestNetworksFetchFromMirror(t *testing.T) {
	// Serve the real files when we have them, else check the refusal of bad content.
	dataDir := os.Getenv("ONTIME_DATA")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, f := range builtin.DataFiles {
			if strings.HasSuffix(f.URL, r.URL.Path) {
				b, err := os.ReadFile(filepath.Join(dataDir, f.Path))
				if err != nil {
					b = []byte("not the file")
				}
				w.Write(b)
				return
			}
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dest := t.TempDir()
	out, progress, err := runCLI(t, nil, "networks", "fetch", "--dest", dest, "--mirror", srv.URL)
	if dataDir == "" {
		if err == nil || !strings.Contains(err.Error(), "SHA-256") {
			t.Fatalf("fetch of wrong content: %v", err)
		}
		testenv.DataDir(t) // skips, or fails under CI
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "benchmark data ready in "+dest) || !strings.Contains(progress, "[7/7]") || !strings.Contains(progress, "academic research purposes only") {
		t.Errorf("out %q\nprogress %q", out, progress)
	}
	for _, f := range builtin.DataFiles {
		b, err := os.ReadFile(filepath.Join(dest, f.Path))
		h := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(h[:]) != f.SHA256 {
			t.Errorf("%s: %v", f.Path, err)
		}
	}
	// The fetched directory serves the benchmarks.
	if _, _, err := runCLI(t, nil, "networks", "show", "--network", "sfn", "--data", dest); err != nil {
		t.Error(err)
	}
}

// networks add/list/show/rm and bench --network NAME share one state
// directory; bad input names file, line and field and stores nothing.
func TestNetworksAddAndBenchStored(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}
	good := filepath.Join(dir, "Grid_net.tntp")
	os.WriteFile(good, []byte("<NUMBER OF NODES> 4\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 4\n<END OF METADATA>\n"+
		"~ init_node term_node capacity length free_flow_time b power speed toll link_type ;\n"+
		"1 2 1 1 10 0 4 0 0 1 ;\n2 4 1 1 10 0 4 0 0 1 ;\n1 3 1 1 9 0 4 0 0 1 ;\n3 4 1 1 11 0 4 0 0 1 ;\n"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("From,To,Cost,Var\n1,2,NaN,1\n2,2,1,1\n"), 0o644)

	_, _, err := runCLI(t, env, "networks", "add", bad)
	if err == nil || !strings.Contains(err.Error(), "bad.csv:2: field Cost") || !strings.Contains(err.Error(), "bad.csv:3: field From/To: link 2→2 is a self-loop") {
		t.Fatalf("bad file: %v", err)
	}
	out, _, err := runCLI(t, env, "networks", "add", good, "--name", "grid", "--ods", "1-4", "--cv", "0.2")
	if err != nil || !strings.Contains(out, `stored as "grid"`) {
		t.Fatalf("add: %v %s", err, out)
	}
	if _, _, err := runCLI(t, env, "networks", "add", good, "--name", "grid"); err == nil || !strings.Contains(err.Error(), "already stored") {
		t.Errorf("second add under the same name: %v", err)
	}
	out, _, _ = runCLI(t, env, "networks", "list")
	if !strings.Contains(out, "grid       stored: 4 nodes, 4 links") {
		t.Errorf("list: %s", out)
	}
	out, _, err = runCLI(t, env, "bench", "--network", "grid", "--methods", "let,dot", "--budgets", "1", "--pools", "2", "--pool-size", "100", "--format", "csv", "--quiet")
	if err != nil || !strings.Contains(out, "dot") {
		t.Errorf("bench on the stored network: %v %s", err, out)
	}
	// It ran as a job of the state directory's jobs service: listed as the
	// dashboard's jobs are (issue 27).
	out, _, err = runCLI(t, env, "jobs", "list")
	if err != nil || !regexp.MustCompile(`bench\s+grid\s+done`).MatchString(out) {
		t.Errorf("jobs list after a stored network's bench: %v\n%s", err, out)
	}
	// Its model is looked for where `ontime train` writes it and the
	// dashboard reads it: the state directory's models/ (issue 27).
	// Messages name the model, never a path (issue 71): a file put there
	// changes the answer from "no trained model" to its missing card.
	models := filepath.Join(dir, "state", "models")
	bench := func() error {
		_, _, err := runCLI(t, env, "bench", "--network", "grid", "--methods", "gpght", "--budgets", "1", "--pools", "1", "--pool-size", "10", "--quiet")
		return err
	}
	if err := bench(); err == nil || !strings.Contains(err.Error(), "no trained model grid.onnx for network grid") || strings.Contains(err.Error(), dir) {
		t.Errorf("gpght on the stored network without a model: %v", err)
	}
	os.MkdirAll(models, 0o755)
	os.WriteFile(filepath.Join(models, "grid.onnx"), []byte("not yet a model"), 0o644)
	if err := bench(); err == nil || !strings.Contains(err.Error(), "model card grid.card.json: not found") || strings.Contains(err.Error(), dir) {
		t.Errorf("gpght with a model file in %s but no card: %v", models, err)
	}
	// A TNTP path works directly, without storing.
	out, _, err = runCLI(t, env, "networks", "show", "--network", good)
	if err != nil || !strings.Contains(out, "4 nodes, 4 links") {
		t.Errorf("show a TNTP path: %v %s", err, out)
	}
	if _, _, err := runCLI(t, env, "networks", "rm", "grid"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, env, "bench", "--network", "grid"); err == nil {
		t.Error("bench on a removed network")
	}
}

// loadtest starts its own dashboard, drives it, and reports every figure
// with no errors and the server's goroutines back to where they were.
func TestLoadtest(t *testing.T) {
	out, stderr, err := runCLI(t, nil, "loadtest", "--sessions", "5", "--comparisons", "2", "--network", "twobranch", "--methods", "let,condrule")
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	for _, want := range []string{"sessions 5, comparisons 10", "errors 0", "time to first frame: p50", "gap between frames", "server: goroutines"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var before, after int
	if i := strings.Index(out, "server: goroutines "); i >= 0 {
		fmt.Sscanf(out[i:], "server: goroutines %d before, %d after", &before, &after)
	}
	if before == 0 || after > before+2 {
		t.Errorf("goroutines %d before, %d after", before, after)
	}
}

// Every verb and every group's subcommand answers -h and --help with its
// usage and no error (issue 27: `sweep --help` was an error).
func TestEveryVerbAnswersHelp(t *testing.T) {
	for _, c := range commands() {
		calls := [][]string{{c.name, "-h"}, {c.name, "--help"}}
		for _, v := range c.verbs {
			calls = append(calls, []string{c.name, v, "-h"}, []string{c.name, v, "--help"})
		}
		for _, args := range calls {
			out, errOut, err := runCLI(t, nil, args...)
			text := out + errOut
			if err != nil || !strings.Contains(strings.ToLower(text), "usage") && c.name != "version" || text == "" {
				t.Errorf("ontime %s: %v\n%s", strings.Join(args, " "), err, text)
			}
		}
	}
	if out, _, err := runCLI(t, nil, "--help"); err != nil || !strings.Contains(out, "verify") {
		t.Errorf("ontime --help: %v\n%s", err, out)
	}
}

// GMNS and TNTP exports from the CLI read back as the same links: into a
// directory, into a zip, and the GMNS directory given as the network.
func TestNetworksExportFormats(t *testing.T) {
	dir := t.TempDir()
	gmns := filepath.Join(dir, "tb-gmns")
	if out, _, err := runCLI(t, nil, "networks", "export", "--network", "twobranch", "--format", "gmns", "--out", gmns); err != nil || !strings.Contains(out, "link.csv") {
		t.Fatalf("%v: %s", err, out)
	}
	for _, args := range [][]string{{"--network", gmns}, {"--network", filepath.Join(gmns, "link.csv")}} {
		out, _, err := runCLI(t, nil, append([]string{"networks", "show"}, args...)...)
		if err != nil || !strings.Contains(out, "OD A-E: LET 106.0000 min, 3 links: A-B-C-E") {
			t.Fatalf("show %v (%v):\n%s", args, err, out)
		}
	}
	zipped := filepath.Join(dir, "tb.zip")
	if _, _, err := runCLI(t, nil, "networks", "export", "--network", "twobranch", "--format", "tntp", "--out", zipped); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(zipped)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "twobranch-tntp/twobranch_net.tntp twobranch-tntp/twobranch_node.tntp" {
		t.Errorf("zip holds %v", names)
	}
	if _, _, err := runCLI(t, nil, "networks", "export", "--network", "twobranch", "--format", "gmns"); err == nil || !strings.Contains(err.Error(), "--out DIR") {
		t.Errorf("two files to stdout: %v", err)
	}
	if _, _, err := runCLI(t, nil, "networks", "export", "--network", "twobranch", "--format", "shp"); err == nil || !strings.Contains(err.Error(), "json, gmns, geojson, tntp") {
		t.Errorf("unknown format: %v", err)
	}
}

// `ontime --version` says the version and commit, as `ontime version` does.
func TestVersionFlag(t *testing.T) {
	out, _, err := runCLI(t, nil, "--version")
	want, _, _ := runCLI(t, nil, "version")
	if err != nil || !strings.HasPrefix(out, "ontime ") || out != want {
		t.Errorf("--version: %q (%v), version: %q", out, err, want)
	}
}
