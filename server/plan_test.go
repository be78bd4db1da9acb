package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// /api/plan answers each method's least budget for a target rate as `ontime
// plan` does: budgets inside their intervals at rates reaching the target,
// dot's table answer beside its own; a target outside (0, 1) or an unknown
// node is a 400 naming the field.
func TestPlanJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("one request on one goroutine: the plain pass checks it")
	}
	ts := newTestServer(t)
	res, body := get(t, ts, "/api/plan?net=ringtown&reliability=0.9&m=let&m=dot&n=300&routes=2")
	var p struct {
		OD      string  `json:"od"`
		Alpha   float64 `json:"alpha"`
		Methods []struct {
			Method string   `json:"method"`
			Budget float64  `json:"budget"`
			Lo     float64  `json:"lo"`
			Hi     *float64 `json:"hi"`
			Rate   float64  `json:"rate"`
			N      int      `json:"n"`
			Table  *struct {
				Budget float64 `json:"budget"`
			} `json:"table"`
		} `json:"methods"`
		Routes []struct {
			Nodes []string `json:"nodes"`
			P95   float64  `json:"p95"`
			PTI   float64  `json:"planning_time_index"`
			BI    float64  `json:"buffer_index"`
		} `json:"routes"`
	}
	if err := json.Unmarshal([]byte(body), &p); err != nil || res.StatusCode != 200 || p.Alpha != 0.9 || len(p.Methods) != 2 || p.OD == "" {
		t.Fatalf("%d %v %.400s", res.StatusCode, err, body)
	}
	if len(p.Routes) != 2 || len(p.Routes[0].Nodes) < 2 || !(p.Routes[0].PTI >= 1 && p.Routes[0].BI >= 0) {
		t.Errorf("routes: %+v", p.Routes)
	}
	for _, m := range p.Methods {
		if m.Hi == nil || !(m.Lo <= m.Budget && m.Budget <= *m.Hi) || m.Rate < 0.9 || m.N != 300 {
			t.Errorf("%s: %+v", m.Method, m)
		}
	}
	if p.Methods[1].Table == nil || p.Methods[1].Table.Budget <= 0 || p.Methods[0].Table != nil {
		t.Errorf("tables: let %+v, dot %+v", p.Methods[0].Table, p.Methods[1].Table)
	}
	for q, want := range map[string]string{
		"reliability=1":        "reliability",
		"reliability=abc":      "reliability",
		"o=1&d=999":            "999",
		"reliability=0.95&n=0": "episodes",
		"routes=-1":            "routes",
	} {
		if res, body := get(t, ts, "/api/plan?net=ringtown&"+q); res.StatusCode != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %.200s", q, res.StatusCode, body)
		}
	}
}
