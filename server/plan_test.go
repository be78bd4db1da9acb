package server

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
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

// The API's doors say when a trained model is asked outside its card (the
// five-node model: A-E at 0.98–1.02 × LET): the plan keeps its search to
// the trained range and says so, a pair it never saw is refused with the
// reason, and a comparison's drive carries the warning.
func TestAPISaysAModelIsOutsideItsTraining(t *testing.T) {
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	ts := newTestServer(t)
	var p struct {
		Methods []struct {
			Method string    `json:"method"`
			Range  []float64 `json:"trained_range"`
			Note   string    `json:"note"`
			Error  string    `json:"error"`
		} `json:"methods"`
	}
	for _, tc := range []struct{ o, want string }{{"A", "searched within gpght's training range only"}, {"B", "B-E is not one of them"}} {
		_, body := get(t, ts, "/api/plan?net=twobranch&o="+tc.o+"&d=E&reliability=0.5&m=gpght&n=200")
		if err := json.Unmarshal([]byte(body), &p); err != nil || len(p.Methods) != 1 {
			t.Fatalf("%s-E: %v %.300s", tc.o, err, body)
		}
		if g := p.Methods[0]; !strings.Contains(g.Note+g.Error, tc.want) {
			t.Errorf("plan %s-E: %+v, want %q", tc.o, g, tc.want)
		}
	}
	_, body := get(t, ts, "/api/compare?net=twobranch&o=A&d=E&f=1.5&m=gpght&m=let")
	var c struct {
		Drives []struct {
			Method  string `json:"method"`
			Warning string `json:"warning"`
		} `json:"drives"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || len(c.Drives) != 2 || !strings.Contains(c.Drives[0].Warning, "outside gpght's training range") || c.Drives[1].Warning != "" {
		t.Errorf("compare at 1.5 × LET: %v %+v", err, c.Drives)
	}
}

// A method list longer than the registry is refused at once, naming m (120,000
// names were checked against each other for 22.8 CPU-s before their 400);
// repeats of one name are one method (issue 71: 4).
func TestMethodListsAreBoundedAndLinear(t *testing.T) {
	ts := newTestServer(t)
	var names []string
	for i := range 120000 {
		names = append(names, "m"+strconv.Itoa(i))
	}
	res, body := get(t, ts, "/api/compare?net=twobranch&o=A&d=E&f=1&m="+strings.Join(names, ","))
	if res.StatusCode != 400 || !strings.Contains(body, "distinct methods") || len(body) > 4096 {
		t.Errorf("120,000 names: %d %.200s", res.StatusCode, body)
	}
	res, body = get(t, ts, "/api/compare?net=twobranch&o=A&d=E&f=1&m="+strings.Repeat("let,", 50000)+"let")
	if res.StatusCode != 200 || strings.Count(body, `"method":"let"`) != 1 {
		t.Errorf("let 50,001 times: %d %.200s", res.StatusCode, body)
	}
}
