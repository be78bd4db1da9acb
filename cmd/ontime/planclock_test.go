package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The clock's questions on Rushtown: the chances leaving at one time, the
// latest departure with its curve written, and what is refused: a static
// network's deadline, a departure after the deadline, a time that is not
// HH:MM, a method that does not know the clock.
func TestPlanArriveBy(t *testing.T) {
	out, stderr, err := runCLI(t, nil, "plan", "--network", "rushtown", "--arrive-by", "08:30", "--depart", "08:18", "--methods", "let,dot,clairvoyant", "--episodes", "200", "--format", "csv")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[1], "let,08:18,08:30,") {
		t.Fatalf("chances: %q", out)
	}
	curve := filepath.Join(t.TempDir(), "curve.csv")
	out, stderr, err = runCLI(t, nil, "plan", "--network", "rushtown", "--arrive-by", "08:30", "--window", "15", "--every", "1", "--reliability", "0.9", "--methods", "let,dot", "--episodes", "200", "--format", "json", "--curve-out", curve)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var got struct {
		Latest []struct {
			Method string
			Latest *string
			Rate   float64
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Latest) != 2 || got.Latest[1].Latest == nil || got.Latest[1].Rate < 0.9 {
		t.Fatalf("latest: %v %s", err, out)
	}
	b, err := os.ReadFile(curve)
	if err != nil || strings.Count(string(b), "\n") != 1+2*15 {
		t.Fatalf("curve: %v\n%s", err, b)
	}
	for _, c := range []struct{ args, want string }{
		{"--network ringtown --arrive-by 09:00", "no law over the day"},
		{"--network rushtown --arrive-by 09:00 --depart 09:10", "--depart: departure 09:10 is not before the deadline 09:00"},
		{"--network rushtown --arrive-by 9h", "want HH:MM"},
		{"--network rushtown --arrive-by 09:00 --methods fma", "method fma does not know the clock"},
		{"--network rushtown --depart 08:00", "give --arrive-by too"},
		{"--network rushtown --arrive-by 09:00 --every 1e-9", "--every 1e-09: give minutes between departures, from 1 to 60"},
		{"--network rushtown --arrive-by 09:00 --every NaN", "--every NaN"},
		{"--network rushtown --arrive-by 09:00 --window 1e308", "--window 1e+308"},
	} {
		_, stderr, err := runCLI(t, nil, append([]string{"plan", "--episodes", "20"}, strings.Fields(c.args)...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, c.want) {
			t.Errorf("%s: %v %s", c.args, err, stderr)
		}
	}
}

// plan --by-hour: the travel time to plan for at each hour of the day, by
// that hour's route; the rush hour plans for more than the night, every
// hour's planning time index is at least its travel time index, and a
// static network is refused.
func TestPlanByHour(t *testing.T) {
	out, stderr, err := runCLI(t, nil, "plan", "--network", "rushtown", "--by-hour", "--episodes", "300", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var got struct {
		Hours []struct {
			Depart string   `json:"depart"`
			Route  []string `json:"route"`
			Mean   float64  `json:"mean"`
			P95    float64  `json:"p95"`
			TTI    float64  `json:"travel_time_index"`
			PTI    float64  `json:"planning_time_index"`
		} `json:"hours"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Hours) != 24 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, h := range got.Hours {
		if !(h.PTI >= h.TTI && h.P95 >= h.Mean && len(h.Route) > 1) {
			t.Errorf("%s: %+v", h.Depart, h)
		}
	}
	if night, rush := got.Hours[3], got.Hours[8]; !(rush.Mean > night.Mean) {
		t.Errorf("08:00 plans for %.3f min on average, 03:00 for %.3f", rush.Mean, night.Mean)
	}
	if _, _, err := runCLI(t, nil, "plan", "--network", "ringtown", "--by-hour"); err == nil || !strings.Contains(err.Error(), "no law over the day") {
		t.Errorf("a static network: %v", err)
	}
}
