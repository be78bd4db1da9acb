package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/ontime-routing/ontime/engine/lab"
)

// The sketch API runs every method on a posted drawing; bad drawings get
// a 400 that names the sketch and the field, and nothing is stored.
func TestSketchAPI(t *testing.T) {
	ts := newTestServer(t)
	post := func(form url.Values) (*http.Response, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/sketch", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		json.NewDecoder(res.Body).Decode(&body)
		return res, body
	}
	const triangle = `{"format":"ontime-network","version":1,"coordinates":"planar",
		"nodes":[{"id":"A","x":0,"y":0},{"id":"B","x":1,"y":1},{"id":"C","x":2,"y":0}],
		"links":[{"from":"A","to":"C","mean":10,"variance":16},{"from":"A","to":"B","mean":5,"variance":1},{"from":"B","to":"C","mean":5.5,"variance":1}],
		"correlation":{"model":"independent"}}`
	// Every method, or (-short) those named: segac trains 2,500 iterations
	// whatever the network (53 s of a triangle under the race detector).
	form := url.Values{"network": {triangle}, "od": {"A-C"}, "f": {"1.1"}}
	want := len(lab.Methods())
	if testing.Short() {
		form.Set("m", "let,dot,cdot,pql")
		want = 4
	}
	res, body := post(form)
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %v", res.StatusCode, body)
	}
	rates, _ := body["rates"].([]any)
	if body["let_time"] != 10.0 || len(rates) != want {
		t.Fatalf("%d rates, want %d: %v", len(rates), want, body)
	}
	for _, c := range []struct{ network, od, f, m, want string }{
		{triangle, "A-C", "soon", "", `budget factor "soon"`},
		{triangle, "A-Q", "1.1", "", `trip "A-Q"`},
		{strings.Replace(triangle, `"mean":10`, `"mean":-1`, 1), "A-C", "1.1", "", "links[0].mean"},
		{triangle, "A-C", "9", "", "budget factor 9"},
		{triangle, "A-C", "1.1", "let,fastest", `method "fastest" is not offered`},
	} {
		res, body := post(url.Values{"network": {c.network}, "od": {c.od}, "f": {c.f}, "m": {c.m}})
		msg, _ := body["error"].(string)
		if res.StatusCode != 400 || !strings.Contains(msg, c.want) {
			t.Errorf("od %s f %s: status %d, error %q, want %q", c.od, c.f, res.StatusCode, msg, c.want)
		}
	}
}

// A method named in the URL that cannot run is listed with its reason in
// one sentence (no command line, no path), not dropped without a word.
func TestUnrunnableMethodIsListedWithItsReason(t *testing.T) {
	ts := newTestServer(t)
	for _, page := range []string{"/compare", "/live"} {
		_, body := get(t, ts, page+"?net=ringtown&m=let,gpght")
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		notes := doc.Find(`[data-testid="input-notes"]`).Text()
		if !strings.Contains(notes, "gpght was asked for but cannot run: No trained model for this built-in network was found here") {
			t.Errorf("%s: notes %q", page, notes)
		}
		picker := doc.Find(`[data-testid="method-gpght"]`).Parent().Text()
		if strings.Contains(picker+notes, "`") || strings.Contains(picker+notes, ".onnx") {
			t.Errorf("%s: command line or path on the page: %q %q", page, picker, notes)
		}
	}
}
