package main

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"
)

// `ontime live` prints the Live page's figures' data; on the same episodes
// each histogram's shares sum to 1, each CDF ends at 1, and the curve at
// the run's own factor is the run's rate.
func TestLiveFiguresAsCSV(t *testing.T) {
	args := []string{"live", "--network", "ringtown", "--methods", "let,dot", "--episodes", "300", "--factor", "1.05"}
	read := func(extra ...string) [][]string {
		t.Helper()
		out, errOut, err := runCLI(t, nil, append(args, extra...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) < 2 {
			t.Fatalf("not CSV with rows (%v): %q", err, out)
		}
		return rows[1:]
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	rate := map[string]float64{}
	for _, r := range read("--format", "csv") {
		rate[r[0]] = num(r[3])
	}
	if len(rate) != 2 {
		t.Fatalf("rates of %d methods, want 2: %v", len(rate), rate)
	}
	sum := map[string]float64{}
	for _, r := range read("--figure", "histogram", "--format", "csv") {
		sum[r[0]] += num(r[3])
	}
	last := map[string]float64{}
	for _, r := range read("--figure", "cdf", "--format", "csv") {
		last[r[0]] = num(r[2])
	}
	at := map[string]float64{}
	for _, r := range read("--figure", "curve", "--format", "csv") {
		if num(r[1]) == 1.05 {
			at[r[0]] = num(r[2])
		}
	}
	for m, p := range rate {
		if math.Abs(sum[m]-1) > 1e-9 || last[m] != 1 {
			t.Errorf("%s: histogram shares sum to %v, CDF ends at %v; want 1 and 1", m, sum[m], last[m])
		}
		if math.Abs(at[m]-p) > 1e-4 {
			t.Errorf("%s: curve at 1.05 is %v, the run's rate %v", m, at[m], p)
		}
	}
	if _, _, err := runCLI(t, nil, append(args, "--figure", "cdf")...); err == nil || !strings.Contains(err.Error(), "--format csv") {
		t.Errorf("a figure without --format csv: %v", err)
	}
}
