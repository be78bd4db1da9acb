package main

import (
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// `ontime plan` prints each method's least budget for a target rate: a
// larger target asks more time of every method, each budget lies in its
// interval, and dot's row carries its table's answer.
func TestPlanCLI(t *testing.T) {
	budgets := func(alpha string) map[string][]float64 {
		t.Helper()
		out, errOut, err := runCLI(t, nil, "plan", "--network", "ringtown", "--methods", "let,dot", "--episodes", "400", "--reliability", alpha, "--format", "csv")
		if err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) != 3 || rows[0][1] != "budget_min" {
			t.Fatalf("want a header and two rows (%v): %q", err, out)
		}
		got := map[string][]float64{}
		for _, r := range rows[1:] {
			for _, c := range []int{1, 3, 4, 7} {
				v, err := strconv.ParseFloat(r[c], 64)
				if err != nil && !(c == 7 && r[0] != "dot") {
					t.Fatalf("%s: column %s: %q", r[0], rows[0][c], r[c])
				}
				got[r[0]] = append(got[r[0]], v)
			}
		}
		return got
	}
	lo, hi := budgets("0.8"), budgets("0.95")
	for _, m := range []string{"let", "dot"} {
		b := hi[m]
		if !(b[1] <= b[0] && b[0] <= b[2]) || hi[m][0] <= lo[m][0] {
			t.Errorf("%s: at 0.95 %v (budget, lo, hi), at 0.8 %v", m, hi[m], lo[m])
		}
	}
	if hi["dot"][3] <= 0 {
		t.Errorf("dot's table budget: %v", hi["dot"])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--reliability", "1.2"}, "between 0 and 1"},
		{[]string{"--od", "1-999"}, "999"},
		{[]string{"--format", "xml"}, "use md, csv or json"},
	} {
		_, _, err := runCLI(t, nil, append([]string{"plan", "--network", "ringtown", "--episodes", "200"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// Every verb that prints a table prints it as JSON too (issue 72): plan
// as /api/plan answers, live its rates.
func TestPlanAndLivePrintJSON(t *testing.T) {
	out, _, err := runCLI(t, nil, "plan", "--network", "twobranch", "--episodes", "200", "--methods", "let", "--format", "json")
	var plan struct {
		OD      string `json:"od"`
		Methods []struct {
			Method string  `json:"method"`
			Budget float64 `json:"budget"`
		} `json:"methods"`
	}
	if err != nil || json.Unmarshal([]byte(out), &plan) != nil || plan.OD != "A-E" || len(plan.Methods) != 1 || !(plan.Methods[0].Budget > 0) {
		t.Errorf("plan --format json: %v %+v\n%s", err, plan, out)
	}
	out, _, err = runCLI(t, nil, "live", "--network", "twobranch", "--episodes", "200", "--format", "json")
	var live struct {
		Rates []struct {
			Method   string  `json:"method"`
			Episodes int     `json:"episodes"`
			Rate     float64 `json:"rate"`
		} `json:"rates"`
	}
	if err != nil || json.Unmarshal([]byte(out), &live) != nil || len(live.Rates) != 2 || live.Rates[0].Episodes != 200 {
		t.Errorf("live --format json: %v %+v\n%s", err, live, out)
	}
}

// The listings print their tables as md, csv and json too; text (their
// lines) stays the default.
func TestListingsPrintTheirTables(t *testing.T) {
	env := map[string]string{"ONTIME_STATE": t.TempDir()}
	out, _, err := runCLI(t, env, "networks", "list", "--format", "json")
	var nets []struct {
		Name  string `json:"name"`
		Kind  string `json:"kind"`
		Links any    `json:"links"`
	}
	if err != nil || json.Unmarshal([]byte(out), &nets) != nil || len(nets) < 2 || nets[0].Name != "twobranch" || nets[0].Links != float64(5) {
		t.Errorf("networks list --format json: %v %+v\n%s", err, nets, out)
	}
	if out, _, err := runCLI(t, env, "networks", "list", "--format", "csv"); err != nil || !strings.HasPrefix(out, "name,kind,description,state,nodes,links\ntwobranch,built-in,") {
		t.Errorf("networks list --format csv: %v %s", err, out)
	}
	if out, _, err := runCLI(t, env, "jobs", "list", "--format", "md"); err != nil || !strings.HasPrefix(out, "| id | kind | network | state | started | seconds | error |") {
		t.Errorf("jobs list --format md: %v %s", err, out)
	}
	if _, _, err := runCLI(t, env, "jobs", "list", "--format", "xml"); err == nil || !strings.Contains(err.Error(), "use text, md, csv or json") {
		t.Errorf("jobs list --format xml: %v", err)
	}
}
