package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// observations writes days of skewed times for the four links of the
// two-route grid (node ids 1..4).
func observations(t *testing.T, path string, days int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("from,to,observation,time\n")
	for d := range days {
		for i, l := range [][2]int{{1, 2}, {2, 4}, {1, 3}, {3, 4}} {
			fmt.Fprintf(&b, "%d,%d,%d,%.4f\n", l[0], l[1], d, 9+3*math.Exp(math.Sin(float64(d*(i+2)+i))))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// networks add --observations imports under the fitted law; networks fit
// stores a new version and keeps the old; bad observations name file,
// line and field and store nothing; the fitted law cannot be named.
func TestNetworksFit(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}
	net := filepath.Join(dir, "grid.csv")
	os.WriteFile(net, []byte("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"), 0o644)
	obs := filepath.Join(dir, "obs.csv")
	observations(t, obs, 80)

	_, errOut, err := runCLI(t, env, "networks", "add", net, "--observations", obs, "--ods", "1-4")
	if err != nil || !strings.Contains(errOut, "fitted to obs.csv (320 rows, 80 observations): 4 links observed") {
		t.Fatalf("add with observations: %v\n%s", err, errOut)
	}
	out, _, err := runCLI(t, env, "networks", "show", "--network", "grid")
	if err != nil || !strings.Contains(out, "fitted") {
		t.Errorf("show: %v %s", err, out)
	}
	out, _, err = runCLI(t, env, "networks", "fit", "grid", obs)
	if err != nil || !strings.Contains(out, `stored as "grid-v2" (grid is kept as it was)`) {
		t.Fatalf("fit: %v %s", err, out)
	}
	out, _, _ = runCLI(t, env, "networks", "list")
	if !strings.Contains(out, "grid       stored") || !strings.Contains(out, "grid-v2") {
		t.Errorf("list after fit: %s", out)
	}
	os.WriteFile(obs, []byte("from,to,observation,time\n1,2,a,9\n1,2,b,0\n"), 0o644)
	if _, _, err := runCLI(t, env, "networks", "fit", "grid", obs, "--as", "grid-bad"); err == nil || !strings.Contains(err.Error(), "obs.csv:3: field time") {
		t.Errorf("bad observations: %v", err)
	}
	out, _, _ = runCLI(t, env, "networks", "list")
	if strings.Contains(out, "grid-bad") {
		t.Errorf("a failed fit stored a network: %s", out)
	}
	if _, _, err := runCLI(t, env, "networks", "add", net, "--name", "g2", "--law", "fitted"); err == nil || !strings.Contains(err.Error(), "comes from observed times") {
		t.Errorf("--law fitted: %v", err)
	}
	if _, _, err := runCLI(t, env, "networks", "add", net, "--name", "g3", "--period", "07:00-09:00"); err == nil || !strings.Contains(err.Error(), "observation file") {
		t.Errorf("--period without observations: %v", err)
	}
}
