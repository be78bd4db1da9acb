package fit_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
)

func twoLinks() *engine.Network {
	net := &engine.Network{Name: "pair", Nodes: []engine.Node{{ID: "a"}, {ID: "b"}, {ID: "c"}},
		Links:       []engine.Link{{From: 0, To: 1, Mean: 5, Var: 1}, {From: 1, To: 2, Mean: 7, Var: 2}},
		Correlation: engine.Correlation{Model: linktime.Independent}}
	net.Index()
	return net
}

// Every kind of bad row is refused naming the file, line and field.
func TestBadObservations(t *testing.T) {
	cases := []struct {
		name, csv string
		line      int
		field     string
		says      string
	}{
		{"no time column", "from,to,day\na,b,1\n", 1, "time", "no time column"},
		{"no link", "observation,time\n1,3\n", 1, "link", "names no link"},
		{"zero time", "from,to,day,time\na,b,1,4\na,b,2,0\n", 3, "time", "positive"},
		{"negative", "from,to,day,time\na,b,1,-4\n", 2, "time", "positive"},
		{"NaN", "from,to,day,time\na,b,1,NaN\n", 2, "time", "positive finite"},
		{"infinite", "from,to,day,time\na,b,1,+Inf\n", 2, "time", "positive finite"},
		{"unknown node", "from,to,day,time\na,z,1,4\n", 2, "to", "not a node"},
		{"no such link", "from,to,day,time\nb,a,1,4\n", 2, "to", "has no link b→a"},
		{"link id out of range", "link,day,time\n3,1,4\n", 2, "link", "give 1 to 2"},
		{"duplicate", "from,to,day,time\na,b,1,4\na,b,2,5\na,b,1,6\n", 4, "day", "observed twice"},
		{"bad time of day", "from,to,day,time,time_of_day\na,b,1,4,25:00\n", 2, "time_of_day", "HH:MM"},
	}
	for _, c := range cases {
		var p *fit.Period
		if strings.Contains(c.csv, "time_of_day") {
			p, _ = fit.ParsePeriod("07:00-09:00")
		}
		_, err := fit.ReadObservations("obs.csv", strings.NewReader(c.csv), twoLinks(), 1, p)
		checkInputError(t, c.name, err, c.line, c.field, c.says)
	}
	// A link seen once and a constant link are refused by the fit.
	for _, c := range []struct {
		name, csv string
		line      int
		says      string
	}{
		{"seen once", "link,day,time\n1,1,4\n1,2,5\n2,1,6\n", 4, "observed only once"},
		{"constant", "link,day,time\n1,1,4\n1,2,5\n2,1,6\n2,2,6\n", 4, "constant time"},
	} {
		o, err := fit.ReadObservations("obs.csv", strings.NewReader(c.csv), twoLinks(), 1, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, _, err = fit.Fit(twoLinks(), o)
		checkInputError(t, c.name, err, c.line, "time", c.says)
	}
}

func checkInputError(t *testing.T, name string, err error, line int, field, says string) {
	t.Helper()
	var ps engine.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		t.Errorf("%s: got %v, want problems", name, err)
		return
	}
	p := ps[0]
	if p.File != "obs.csv" || p.Line != line || p.Field != field || !strings.Contains(p.Error(), says) {
		t.Errorf("%s: got %s (file %q line %d field %q), want line %d field %q saying %q", name, p.Error(), p.File, p.Line, p.Field, line, field, says)
	}
}

// A period keeps the rows whose time of day is in it, past midnight too.
func TestPeriod(t *testing.T) {
	csv := "link,day,time,time_of_day\n1,1,4,06:59\n1,2,5,07:00\n1,3,6,08:59\n1,4,7,09:00\n1,5,8,23:30\n"
	for _, c := range []struct {
		period string
		rows   int
	}{{"07:00-09:00", 2}, {"23:00-07:00", 2}, {"", 5}} {
		p, err := fit.ParsePeriod(c.period)
		if err != nil {
			t.Fatal(err)
		}
		o, err := fit.ReadObservations("obs.csv", strings.NewReader(csv), twoLinks(), 1, p)
		if err != nil {
			t.Fatal(err)
		}
		if o.Rows != c.rows {
			t.Errorf("period %q kept %d rows, want %d", c.period, o.Rows, c.rows)
		}
	}
	for _, bad := range []string{"7-9", "07:00", "07:00-07:00", "24:00-01:00"} {
		if _, err := fit.ParsePeriod(bad); err == nil {
			t.Errorf("period %q accepted", bad)
		}
	}
}

// Held-out likelihood picks the family the times were drawn from when they
// are many and the families differ (a strongly skewed gamma, a symmetric
// normal of CV 0.3; at CV 0.07 a gamma and a normal are the same law), and falls back to a shrunk log-normal with few observations.
func TestFamilyChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	src := distuv.Gamma{Alpha: 1.5, Beta: 0.3, Src: rng}
	nrm := distuv.Normal{Mu: 30, Sigma: 9, Src: rng}
	net := twoLinks()
	o := &fit.Observations{File: "obs.csv", Links: make([][]fit.Obs, 2)}
	for d := range 1000 {
		o.Days = append(o.Days, "d")
		o.Links[0] = append(o.Links[0], fit.Obs{Day: d, Time: src.Rand()})
		o.Links[1] = append(o.Links[1], fit.Obs{Day: d, Time: nrm.Rand()})
		o.Rows += 2
	}
	_, rep, err := fit.Fit(net, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Links[0].Family != "gamma" || rep.Links[1].Family != "normal" {
		t.Errorf("families %s, %s; want gamma, normal", rep.Links[0].Family, rep.Links[1].Family)
	}
	o.Links[1] = o.Links[1][:8]
	got, rep, err := fit.Fit(net, o)
	if err != nil {
		t.Fatal(err)
	}
	if l := rep.Links[1]; l.Family != "lognormal" || !(l.Shrink > 0.5) || got.Links[1].Fit == nil {
		t.Errorf("8 observations: %+v, want a shrunk log-normal", l)
	}
}

// Issue 71, cause 13: a field is trimmed of ASCII spaces and tabs only, so
// a node id that begins or ends with another space (a Unicode line
// separator, a no-break space) is named as it is.
func TestObservationNodeIDsKeepUnicodeSpaces(t *testing.T) {
	net := &engine.Network{Name: "odd", Nodes: []engine.Node{{ID: "\u2028a"}, {ID: "b\u00a0"}, {ID: "c"}},
		Links:       []engine.Link{{From: 0, To: 1, Mean: 5, Var: 1}, {From: 1, To: 2, Mean: 7, Var: 2}},
		Correlation: engine.Correlation{Model: linktime.Independent}}
	net.Index()
	csv := "from,to,day,time\n \u2028a ,b\u00a0,d1,4\n\tb\u00a0,c,d1,6\n\u2028a,b\u00a0,d2,5\n"
	o, err := fit.ReadObservations("obs.csv", strings.NewReader(csv), net, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Links[0]) != 2 || len(o.Links[1]) != 1 {
		t.Errorf("rows per link: %d and %d, want 2 and 1", len(o.Links[0]), len(o.Links[1]))
	}
}
