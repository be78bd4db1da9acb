package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Issue 71, cause 6: whatever observed times are accepted make a network
// every page, figure, table, export and API route serves: times at both
// ends of the bounds (0.001 and 1,000,000 minutes) on different links, and
// a spread of a thousand on one, are walked here. Times past the bounds are refused naming the
// field, in minutes and in hours (1e307 h was refused for the wrong
// reason: it overflowed to +Inf).
func TestAcceptedObservationsServeEveryPage(t *testing.T) {
	ts := newTestServer(t)
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"
	var obs strings.Builder
	obs.WriteString("from,to,day,time\n")
	for d := range 40 {
		spread := []string{"1", "1000"}[d%2] // a wide spread on one link
		fmt.Fprintf(&obs, "1,2,d%d,%s\n2,4,d%d,%g\n1,3,d%d,%g\n3,4,d%d,%g\n", d, spread, d, 999000+float64(d), d, 0.001+float64(d)*1e-5, d, 8+float64(d%7))
	}
	res, doc := uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": obs.String()}},
		map[string]string{"ods": "1-4"})
	if res.StatusCode != 200 {
		t.Fatalf("the upload: %d %s", res.StatusCode, doc.Find(`[data-testid="import-report"]`).Text())
	}
	action, _ := doc.Find(`[data-testid="import-save-form"]`).Attr("action")
	if res, err := noRedirect.PostForm(ts.URL+action, url.Values{"name": {"extremes"}}); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %v %v", res, err)
	}
	paths := []string{"/networks/extremes", "/networks/extremes/data", "/networks/extremes/data/correlation.svg",
		"/networks/extremes/data/links.csv", "/networks/extremes/data/pairs.csv", "/api/networks/extremes", "/api/networks/extremes?layout=columns",
		"/compare?net=extremes", "/live?net=extremes", "/api/compare?net=extremes&m=let&m=dot", "/api/plan?net=extremes&n=200&routes=2",
		"/api/plan/routes?net=extremes&n=200&format=geojson", "/api/routes?net=extremes&format=csv", "/api/story?net=extremes", "/bench?net=extremes"}
	for link := 1; link <= 4; link++ {
		paths = append(paths, fmt.Sprintf("/networks/extremes/data?link=%d", link), fmt.Sprintf("/networks/extremes/data/histogram.svg?link=%d", link),
			fmt.Sprintf("/networks/extremes/data/qq.svg?link=%d", link))
	}
	for _, f := range []string{"json", "gmns", "geojson", "tntp"} {
		paths = append(paths, "/networks/extremes/export?format="+f)
	}
	for _, p := range paths {
		if res, body := get(t, ts, p); res.StatusCode != 200 {
			t.Errorf("%s: %d %.300s", p, res.StatusCode, body)
		}
	}
	for _, tc := range []struct{ time, unit, says string }{
		{"1e308", "", `"1e308": a time must be at most 1e+06 minutes`},
		{"5e-324", "", `"5e-324": a time must be at least 0.001 minutes`},
		{"1e307", "h", `"1e307": a time must be at most 1e+06 minutes (1.667e+04 in the file's time unit)`},
		{"NaN", "", `"NaN": a time must be a positive finite number`},
	} {
		bad := strings.Replace(obs.String(), "\n2,4,d1,", "\n2,4,d1,"+tc.time+"#", 1)
		bad = bad[:strings.Index(bad, "#")] + bad[strings.Index(bad, "#")+strings.IndexByte(bad[strings.Index(bad, "#"):], '\n'):]
		res, doc := uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": bad}},
			map[string]string{"ods": "1-4", "time_unit": tc.unit})
		probs := doc.Find(`[data-testid="import-problems"]`).Text()
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(probs, "obs.csv:7: field time: "+tc.says) {
			t.Errorf("a time of %s %s: %d %q", tc.time, tc.unit, res.StatusCode, probs)
		}
	}
}

// Issue 71, cause 6: a number that is no finite number (NaN, Inf, one too
// large for a float64) is a 400 on every route that reads one, never a 500
// or a job.
func TestNonFiniteNumbersAreRefused(t *testing.T) {
	ts := newTestServer(t)
	for _, v := range []string{"NaN", "Inf", "-Inf", "1e999"} {
		for _, tc := range []struct {
			route string
			form  url.Values
		}{
			{"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,dot"}, "b": {v}, "pools": {"2"}, "size": {"100"}}},
			{"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,dot"}, "b": {"1," + v}, "pools": {"2"}, "size": {"100"}}},
			{"/api/train", url.Values{"net": {"twobranch"}, "budgets": {"0.9," + v}}},
			{"/api/sketch", url.Values{"f": {v}}},
		} {
			res, err := http.PostForm(ts.URL+tc.route, tc.form)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("%s %v: %d %.200s", tc.route, tc.form, res.StatusCode, b)
			}
		}
		for _, p := range []string{"/api/teach?x=" + v, "/api/lessons/adapt?f=" + v, "/api/compare?net=twobranch&f=" + v, "/api/plan?net=twobranch&reliability=" + v} {
			if res, body := get(t, ts, p); res.StatusCode != http.StatusBadRequest {
				t.Errorf("%s: %d %.200s", p, res.StatusCode, body)
			}
		}
	}
}
