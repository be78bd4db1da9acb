package server

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// newTestServer serves the built-in example (no data directory) with the
// committed models and no animation delay.
func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	return ts
}

func get(t *testing.T, ts *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestPagesRender(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		path    string
		status  int
		testids []string
	}{
		{"/", 200, []string{"network-list", "network-twobranch", "nav-compare"}},
		{"/networks/twobranch", 200, []string{"network-map", "color-by", "od-table", "compare-link"}},
		{"/compare?net=twobranch", 200, []string{"compare-form", "factor", "preset-1.00", "method-let", "method-condrule", "results"}},
		{"/live?net=twobranch", 200, []string{"live-form", "episodes", "rates", "progress"}},
		{"/teach", 200, []string{"lessons", "lesson-mean", "lesson-learning", "present-link"}},
		{"/teach/data", 200, []string{"lesson", "lesson-control", "lesson-figure", "lesson-predict", "exercises", "exercise-answer", "lesson-next"}},
		{"/teach/mean", 200, []string{"lesson", "lesson-control", "lesson-figure", "lesson-predict", "exercises", "exercise-answer", "lesson-next"}},
		{"/teach/learning?present=1", 200, []string{"lesson", "lesson-prev", "present-exit"}},
		{"/teach/adapt", 200, []string{"lesson", "method-words", "lesson-predict", "exercises"}},
		{"/teach/nowhere", 404, []string{"error"}},
		{"/teach/history", 200, []string{"observed", "five-node", "lesson-predict", "branches", "choice-optimum", "choice-learned", "choice-nohist", "method-words", "score-run", "nohist-link", "exercises", "lesson-nav"}},
		{"/teach/history?nohist=1", 200, []string{"observed", "branches", "choice-nohist", "score-run"}},
		{"/bench?net=twobranch", 200, []string{"bench-form", "bench-run", "bench-report"}},
		{"/models", 200, []string{"model-twobranch"}},
		{"/about", 200, []string{"about-ontime", "about-methods", "about-sources", "licence-tntp"}},
		{"/networks/draw", 200, []string{"sketchpad", "sketch-svg", "sketch-link", "sketch-corr", "sketch-trip", "sketch-run", "sketch-results", "sketch-save", "sketch-json", "sketch-csv"}},
		{"/networks/add", 200, []string{"import-form", "draw-link"}},
		{"/networks/nowhere", 404, []string{"error"}},
		{"/compare?net=twobranch&o=Z", 200, []string{"input-notes", "compare-form"}},
		{"/compare?net=twobranch&m=nope", 200, []string{"input-notes", "compare-form"}},
		{"/nothing-here", 404, []string{"error"}},
	} {
		res, body := get(t, ts, tc.path)
		if res.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.path, res.StatusCode, tc.status)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range tc.testids {
			if doc.Find(`[data-testid="`+id+`"]`).Length() == 0 {
				t.Errorf("%s: no element with data-testid %q", tc.path, id)
			}
		}
		if res.StatusCode == 200 && res.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no Content-Security-Policy", tc.path)
		}
	}
}

// Nothing on any page is loaded from another origin.
func TestPagesMakeNoExternalRequests(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/", "/networks/twobranch", "/compare", "/live", "/teach", "/teach/mean", "/teach/history", "/bench", "/models", "/about"} {
		_, body := get(t, ts, path)
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
		doc.Find("script[src], link[href], img[src]").Each(func(_ int, s *goquery.Selection) {
			u := s.AttrOr("src", s.AttrOr("href", ""))
			if strings.Contains(u, "//") {
				t.Errorf("%s loads %s", path, u)
			}
		})
	}
	res, body := get(t, ts, "/assets/app.js")
	if res.StatusCode != 200 || len(body) < 10000 {
		t.Errorf("bundle: %d, %d bytes", res.StatusCode, len(body))
	}
}

// A change asked by another site's page is refused (a visitor's browser
// could otherwise start jobs on a dashboard it reaches); the same origin, and
// clients that send no Origin (the CLI, curl), are not.
func TestCrossOriginChangesRefused(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		name    string
		headers map[string]string
		refused bool
	}{
		{"another site", map[string]string{"Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site"}, true},
		{"another origin, no fetch metadata", map[string]string{"Origin": "https://elsewhere.example"}, true},
		{"same origin", map[string]string{"Origin": ts.URL, "Sec-Fetch-Site": "same-origin"}, false},
		{"no origin (CLI)", nil, false},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/bench", strings.NewReader("net=twobranch&methods=let&pools=1&size=100"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if (res.StatusCode == http.StatusForbidden) != tc.refused {
			t.Errorf("%s: status %d, refused want %v", tc.name, res.StatusCode, tc.refused)
		}
	}
}

// Errors answer in the form the request's Accept header asks for, on any
// route: JSON for the front end's fetches, HTML for a browser's navigation.
func TestErrorsFollowAccept(t *testing.T) {
	ts := newTestServer(t)
	for path, status := range map[string]int{"/api/networks/nowhere": 404, "/api/teach?x=abc": 400, "/api/teach?x=-1": 400,
		"/api/bench/000000": 404, "/networks/nowhere": 404, "/ws/compare?f=abc": 400,
		"/ws/compare?f=NaN": 400, "/ws/compare?f=-1": 400, "/ws/compare?f=Inf": 400, "/ws/live?f=NaN": 400} {
		for _, accept := range []string{"application/json", "text/html,application/xhtml+xml,*/*;q=0.8"} {
			req, _ := http.NewRequest("GET", ts.URL+path, nil)
			req.Header.Set("Accept", accept)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var e struct{ Error string }
			isJSON := json.Unmarshal(b, &e) == nil && e.Error != ""
			if res.StatusCode != status || isJSON != (accept == "application/json") {
				t.Errorf("%s (Accept %s): %d, JSON %v: %.200s", path, accept, res.StatusCode, isJSON, b)
			}
		}
	}
}

func TestNetworkJSON(t *testing.T) {
	ts := newTestServer(t)
	res, body := get(t, ts, "/api/networks/twobranch")
	// The map JSON is cached gzipped: served so to a client that takes gzip
	// (Go's transport asks and decompresses), and plain to one that does not.
	if !res.Uncompressed || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("gzip: uncompressed by the transport %v, headers %v", res.Uncompressed, res.Header)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/networks/twobranch", nil)
	req.Header.Set("Accept-Encoding", "identity")
	plain, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := io.ReadAll(plain.Body)
	plain.Body.Close()
	if plain.Header.Get("Content-Encoding") != "" || string(pb) != body {
		t.Errorf("plain: encoding %q, body differs: %.100s", plain.Header.Get("Content-Encoding"), pb)
	}
	var n networkJSON
	if err := json.Unmarshal([]byte(body), &n); err != nil {
		t.Fatal(err)
	}
	if len(n.Nodes) != 5 || len(n.Links) != 5 || len(n.ODs) != 1 || n.ODs[0].Name != "A-E" || n.ODs[0].LETTime != 106 {
		t.Errorf("%+v", n)
	}
}

// The teaching view flips at the mean A→B time: faster than average, the
// correlated branch B→C; slower, B→D.
func TestTeachFlips(t *testing.T) {
	ts := newTestServer(t)
	for x, want := range map[string]string{"4.2": "B→C", "5.8": "B→D"} {
		_, body := get(t, ts, "/api/teach?x="+x)
		var v teachJSON
		json.Unmarshal([]byte(body), &v)
		if v.Optimum != want || v.NoHistory != "B→C" || len(v.Branches) != 2 {
			t.Errorf("x=%s: %+v", x, v)
		}
		if math.Abs(v.Branches[0].Without-v.Branches[1].Without) > 1e-12 {
			t.Errorf("x=%s: without history the branches differ: %+v", x, v.Branches)
		}
	}
}

func dial(t *testing.T, ts *httptest.Server, path string, q url.Values) *websocket.Conn {
	t.Helper()
	c, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+path+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", path, err, res)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A whole comparison stream: start, steps in order, one result per method,
// done, then a normal close; outcomes equal the simulator's on the same
// realization.
func TestCompareStream(t *testing.T) {
	ts := newTestServer(t)
	methods := []string{"let", "condrule", "clairvoyant"}
	q := url.Values{"net": {"twobranch"}, "f": {"1"}, "r": {"3"}, "m": {strings.Join(methods, ",")}}
	c := dial(t, ts, "/ws/compare", q)
	var types []string
	results := map[string]resultJSON{}
	steps := map[string]int{}
	for {
		var msg map[string]any
		if err := c.ReadJSON(&msg); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Fatalf("stream ended with %v after %v", err, types)
			}
			break
		}
		typ := msg["type"].(string)
		types = append(types, typ)
		raw, _ := json.Marshal(msg)
		switch typ {
		case "step":
			var s stepJSON
			json.Unmarshal(raw, &s)
			if s.Step != steps[s.Method] {
				t.Errorf("%s: step %d after %d steps", s.Method, s.Step, steps[s.Method])
			}
			steps[s.Method]++
		case "result":
			var r resultJSON
			json.Unmarshal(raw, &r)
			results[r.Method] = r
		case "error":
			t.Fatalf("error: %v", msg)
		}
	}
	if types[0] == "preparing" { // first use of the methods in this lab
		types = types[1:]
	}
	if types[0] != "start" || types[len(types)-1] != "done" || len(results) != len(methods) {
		t.Fatalf("messages %v, results %v", types, results)
	}
	// The same realization through the simulator, as ontime bench runs it.
	l := lab.New(lab.Options{})
	n, _ := l.Open("twobranch")
	x := n.Realization(3)
	for _, m := range methods {
		p, err := n.Policy(m)
		if err != nil {
			t.Fatal(err)
		}
		pool := &sim.Pool{Size: 1, Dim: len(x), X: x}
		out := make([]sim.Result, 1)
		(&sim.Runner{Net: n.Net}).Run(p, sim.Task{OD: n.Net.ODs[0], Budget: 106, Cap: n.Net.StepCap}, pool, out)
		got := results[m]
		if m == "clairvoyant" { // an oracle: the simulator scores its time, not its links
			got.Links = out[0].Links
		}
		if got.OnTime != out[0].OnTime || got.Time != out[0].Time || got.Links != out[0].Links {
			t.Errorf("%s: stream %+v, simulator %+v", m, got, out[0])
		}
		if m != "clairvoyant" && steps[m] != out[0].Links {
			t.Errorf("%s: %d steps streamed, %d links driven", m, steps[m], out[0].Links)
		}
	}
}

func TestCompareStreamRejectsBadRequestsBeforeUpgrading(t *testing.T) {
	ts := newTestServer(t)
	_, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/compare?net=twobranch&f=-1", nil)
	if err == nil || res == nil || res.StatusCode != 400 {
		t.Fatalf("err %v, response %v", err, res)
	}
	var e struct{ Error string }
	if b, _ := io.ReadAll(res.Body); json.Unmarshal(b, &e) != nil || e.Error == "" {
		t.Errorf("the refusal is not JSON: %.200s", b)
	}
	h := http.Header{"Origin": {"http://evil.example"}}
	_, res, err = websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/compare?net=twobranch", h)
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign origin: err %v, response %v", err, res)
	}
}

func TestLiveStream(t *testing.T) {
	ts := newTestServer(t)
	q := url.Values{"net": {"twobranch"}, "f": {"1"}, "n": {"4000"}, "m": {"let,condrule"}}
	c := dial(t, ts, "/ws/live", q)
	var progress int
	var plots map[string]any
	var final []rateJSON
	for {
		var msg map[string]any
		if err := c.ReadJSON(&msg); err != nil {
			break
		}
		switch msg["type"] {
		case "progress":
			progress++
		case "plots":
			plots = msg
		case "done":
			raw, _ := json.Marshal(msg["rates"])
			json.Unmarshal(raw, &final)
		case "error":
			t.Fatal(msg)
		}
	}
	if progress < 2 || plots == nil || len(final) != 2 {
		t.Fatalf("progress %d, plots %v, final %v", progress, plots != nil, final)
	}
	for _, k := range []string{"histogram", "cdf", "curve"} {
		if s, _ := plots[k].(string); !strings.HasPrefix(s, "<?xml") && !strings.Contains(s, "<svg") {
			t.Errorf("%s is not an SVG: %.60q", k, s)
		}
	}
	// condrule beats let on 4000 episodes of the five-node example.
	if final[0].N != 4000 || final[1].Rate <= final[0].Rate || final[1].Lo > 0.537 || final[1].Hi < 0.5 {
		t.Errorf("rates %+v", final)
	}
}

func TestBenchJob(t *testing.T) {
	ts := newTestServer(t)
	res, err := http.PostForm(ts.URL+"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,condrule"}, "pools": {"2"}, "size": {"500"}})
	if err != nil {
		t.Fatal(err)
	}
	var st lab.JobStatus
	json.NewDecoder(res.Body).Decode(&st)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || st.ID == "" || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s %+v", res.StatusCode, res.Header.Get("Content-Type"), st)
	}
	waitBenchDone(t, ts, st)
	_, csv := get(t, ts, "/api/bench/"+st.ID+".csv")
	if !strings.Contains(csv, "condrule") {
		t.Errorf("csv: %.200s", csv)
	}
	_, js := get(t, ts, "/api/bench/"+st.ID+".json")
	if !strings.Contains(js, `"provenance"`) {
		t.Errorf("json: %.200s", js)
	}
	_, page := get(t, ts, "/bench?net=twobranch")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(page))
	if doc.Find(`[data-testid="summary-table"]`).Length() != 1 || doc.Find(`[data-testid="download-csv"]`).Length() != 1 {
		t.Error("the bench page does not show the finished job")
	}
	// The same request is the cached job.
	res, _ = http.PostForm(ts.URL+"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,condrule"}, "pools": {"2"}, "size": {"500"}})
	var again lab.JobStatus
	json.NewDecoder(res.Body).Decode(&again)
	if again.ID != st.ID || again.State != "done" {
		t.Errorf("not cached: %+v", again)
	}
	res, _ = http.PostForm(ts.URL+"/api/bench", url.Values{"net": {"twobranch"}, "pools": {"99"}})
	if res.StatusCode != 400 {
		t.Errorf("pools=99: %d", res.StatusCode)
	}
	// One pool is a quick look the form accepts, as the command line does:
	// means, and a word on why there are no intervals.
	res, _ = http.PostForm(ts.URL+"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,condrule"}, "pools": {"1"}, "size": {"200"}})
	var one lab.JobStatus
	json.NewDecoder(res.Body).Decode(&one)
	res.Body.Close()
	waitBenchDone(t, ts, one)
	if r, html := get(t, ts, "/api/bench/"+one.ID+".html"); r.StatusCode != 200 || !strings.Contains(html, "One pool") {
		t.Errorf("one-pool report: %d %.300s", r.StatusCode, html)
	}
}

// waitBenchDone polls a benchmark job until it is done (a failure ends
// the test).
func waitBenchDone(t *testing.T, ts *httptest.Server, st lab.JobStatus) {
	t.Helper()
	testenv.WaitFor(t, "benchmark "+st.ID+" done", func() bool {
		if st.State == "failed" {
			t.Fatalf("job %+v", st)
		}
		if st.State == "done" {
			return true
		}
		_, body := get(t, ts, "/api/bench/"+st.ID)
		json.Unmarshal([]byte(body), &st)
		return st.State == "done"
	})
}

// logRecorder keeps the messages the server logs.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }
func (l *logRecorder) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.msgs, msg)
}

// A live run stops when the browser leaves (here: closes the socket) and
// when it says stop. The run must outlast the test's first read: 200,000
// days of cgr on ringtown take about 25 s on an idle machine (twobranch's
// 1.5 s ended, on a busy one, before the test had read its first progress,
// and the wait for the stop never ended).
func TestLiveStreamStopsWhenTheBrowserLeaves(t *testing.T) {
	for _, how := range []string{"close", "stop"} {
		rec := &logRecorder{}
		ts := httptest.NewServer(NewServer(Deps{Lab: lab.New(lab.Options{}), Log: slog.New(rec), Assets: assets.FS}))
		c := dial(t, ts, "/ws/live", url.Values{"net": {"ringtown"}, "n": {"200000"}, "m": {"let,cgr"}})
		var msg map[string]any
		for msg["type"] != "progress" {
			if err := c.ReadJSON(&msg); err != nil {
				t.Fatal(err)
			}
		}
		if how == "close" {
			c.Close()
		} else {
			c.WriteJSON(map[string]string{"type": "stop"})
		}
		testenv.WaitFor(t, how+": the run stopped by the browser", func() bool {
			return rec.has("live stream stopped by the browser") || rec.has("live stream played all its days")
		})
		if !rec.has("live stream stopped by the browser") {
			t.Fatalf("%s: the run played all its days before the browser left", how)
		}
		ts.Close()
	}
}

// Streams are bounded per client address: past the bound a new one gets an
// error message and is closed, and a slot frees when a stream ends.
func TestStreamLimitPerClient(t *testing.T) {
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS, StepDelay: time.Second, MaxStreamsPerClient: 1}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	q := url.Values{"net": {"twobranch"}, "m": {"let"}}
	first := dial(t, ts, "/ws/compare", q)
	var msg map[string]any
	if err := first.ReadJSON(&msg); err != nil { // the stream is open
		t.Fatalf("first stream: %v %v", msg, err)
	}
	second := dial(t, ts, "/ws/compare", q)
	msg = nil
	if err := second.ReadJSON(&msg); err != nil || msg["type"] != "error" || !strings.Contains(msg["message"].(string), "limit for one address") {
		t.Fatalf("second stream: %v %v", msg, err)
	}
	first.Close()
	testenv.WaitFor(t, "the slot to free after the first stream closed", func() bool {
		c := dial(t, ts, "/ws/compare", q)
		msg = nil
		c.ReadJSON(&msg)
		c.Close()
		return msg["type"] != "error"
	})
}

// With a class token, changes need it (bearer or the cookie its link
// sets) and viewing does not.
func TestClassToken(t *testing.T) {
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS, Token: "s3cret"}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	post := func(c *http.Client, auth string) int {
		req, _ := http.NewRequest("POST", ts.URL+"/api/bench", strings.NewReader("net=twobranch&m=let&pools=2&size=100"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if res, _ := get(t, ts, "/compare?net=twobranch"); res.StatusCode != 200 {
		t.Errorf("viewing without the token: %d", res.StatusCode)
	}
	if s := post(http.DefaultClient, ""); s != http.StatusForbidden {
		t.Errorf("change without the token: %d", s)
	}
	if s := post(http.DefaultClient, "Bearer wrong"); s != http.StatusForbidden {
		t.Errorf("change with a wrong token: %d", s)
	}
	if s := post(http.DefaultClient, "Bearer s3cret"); s == http.StatusForbidden {
		t.Errorf("change with the token: %d", s)
	}
	// The link sets the cookie and drops the token from the address.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	res, err := browser.Get(ts.URL + "/bench?net=twobranch&token=s3cret")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || strings.Contains(res.Request.URL.RawQuery, "token") {
		t.Errorf("link: %d at %s", res.StatusCode, res.Request.URL)
	}
	if s := post(browser, ""); s == http.StatusForbidden {
		t.Errorf("change with the cookie: %d", s)
	}
}

// Names in paths never reach outside their directory: encoded "../" in a
// model, plot, job or network name is refused.
func TestPathTraversalRefused(t *testing.T) {
	ts := newTestServer(t)
	for _, p := range []string{"/models/user/twobranch/..%2F..%2Fstate.db", "/models/user/twobranch/%2E%2E%2Fx.onnx",
		"/plots/model/..%2F..%2Fetc%2Fpasswd", "/plots/job/..%2Fx.svg", "/api/bench/..%2F..%2Fx.json", "/networks/..%2F..%2Fetc/export",
		"/api/networks/..%2Fsfn"} {
		res, body := get(t, ts, p)
		if res.StatusCode < 400 || res.StatusCode >= 500 || strings.Contains(body, "SQLite") || strings.Contains(body, "root:") {
			t.Errorf("%s: %d %.100s", p, res.StatusCode, body)
		}
	}
}

// A client past its jobs bound gets 429 with the reason; canceling one of
// its jobs gives the slot back.
func TestJobBoundPerClient(t *testing.T) {
	l := lab.New(lab.Options{StateDir: t.TempDir(), MaxJobsPerClient: 1})
	ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	start := func(size string) (*http.Response, string) {
		res, err := http.PostForm(ts.URL+"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,condrule,dot"}, "pools": {"10"}, "size": {size}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := start("20000") // seconds of work: still active when the next arrives
	var st lab.JobStatus
	json.Unmarshal([]byte(body), &st)
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("first job: %d %s", res.StatusCode, body)
	}
	res, body = start("19999")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "limit for one address") {
		t.Fatalf("second job: %d %s", res.StatusCode, body)
	}
	res, err := http.PostForm(ts.URL+"/api/jobs/"+st.ID+"/cancel", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// (A job that ended before the cancel came says so, not waits.)
	testenv.WaitFor(t, "the canceled job to stop", func() bool {
		_, b := get(t, ts, "/api/bench/"+st.ID)
		json.Unmarshal([]byte(b), &st)
		return jobs.Finished(st.State)
	})
	if st.State != jobs.Canceled {
		t.Fatalf("the job ended %s, not canceled", st.State)
	}
	if res, body = start("19999"); res.StatusCode != http.StatusAccepted {
		t.Fatalf("after cancel: %d %s", res.StatusCode, body)
	}
}

// The home page's story answers on ringtown by default and on any pair
// asked; a bad pair is a 400 naming it.
func TestStoryJSON(t *testing.T) {
	ts := newTestServer(t)
	res, body := get(t, ts, "/api/story")
	var st lab.Story
	if err := json.Unmarshal([]byte(body), &st); err != nil || res.StatusCode != 200 || st.Network != "ringtown" || len(st.Routes) < 2 || !strings.Contains(body, `"on_time"`) {
		t.Fatalf("%d %v %.300s", res.StatusCode, err, body)
	}
	if res, body := get(t, ts, "/api/story?net=twobranch&o=A&d=E"); res.StatusCode != 200 || !strings.Contains(body, `"od":"A-E"`) {
		t.Errorf("twobranch: %d %.200s", res.StatusCode, body)
	}
	if res, body := get(t, ts, "/api/story?o=1&d=999"); res.StatusCode != 400 || !strings.Contains(body, "999") {
		t.Errorf("bad pair: %d %.200s", res.StatusCode, body)
	}
}

// A page never dead-ends on a bad or empty parameter: each is reset to its
// default, said in a note, and the rest of the form is kept; the streams
// behind the pages stay strict (TestErrorsFollowAccept).
func TestPagesResetBadInput(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		path  string
		notes []string
		keep  string // a kept field's value on the page
	}{
		{"/compare?net=ringtown&f=NaN&r=x&o=22&d=28", []string{"f=\"NaN\"", "r=\"x\""}, `value="22"`},
		{"/compare?net=ringtown&m=&f=1.1", []string{"no method chosen"}, `value="1.10"`},
		{"/live?net=ringtown&m=", []string{"no method chosen"}, ""},
		{"/live?net=ringtown&n=0&m=let", []string{"episodes n=\"0\""}, ""},
		{"/compare?net=ringtown&o=22&d=22", []string{"same node"}, ""},
	} {
		res, body := get(t, ts, tc.path)
		if res.StatusCode != 200 {
			t.Errorf("%s: %d", tc.path, res.StatusCode)
			continue
		}
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
		notes := doc.Find(`[data-testid="input-notes"]`).Text()
		for _, want := range tc.notes {
			if !strings.Contains(notes, want) {
				t.Errorf("%s: notes %q lack %q", tc.path, notes, want)
			}
		}
		if tc.keep != "" && !strings.Contains(body, tc.keep) {
			t.Errorf("%s: the good fields were not kept (%s)", tc.path, tc.keep)
		}
	}
}

// A model's training curve downloads as SVG, PNG and its data as CSV; the
// CSV has one row per checkpoint and validation factor.
func TestModelFigureDownloads(t *testing.T) {
	ts := newTestServer(t)
	for ext, ctype := range map[string]string{"svg": "image/svg+xml", "png": "image/png", "csv": "text/csv; charset=utf-8"} {
		res, body := get(t, ts, "/plots/model/twobranch."+ext)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != ctype || len(body) < 50 {
			t.Errorf("%s: %d %s %d bytes", ext, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if ext == "png" && !strings.HasPrefix(body, "\x89PNG") {
			t.Error("not a PNG")
		}
		if ext == "csv" {
			rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
			if err != nil || len(rows) < 2 || rows[0][0] != "checkpoint" {
				t.Errorf("csv: %v %v", err, rows)
			}
		}
	}
	if res, _ := get(t, ts, "/plots/model/twobranch.gif"); res.StatusCode != 404 {
		t.Errorf("gif: %d", res.StatusCode)
	}
}

// The front-end bundle is served compressed to a browser that accepts it.
func TestAssetsCompressed(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/assets/app.js", "/assets/app.css"} {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: %d, encoding %q, %d bytes", path, res.StatusCode, res.Header.Get("Content-Encoding"), n)
		}
	}
}

// With no run of its own, the benchmarks page opens on the committed
// results, and their downloads parse.
func TestBenchShowsPublishedResultsOnArrival(t *testing.T) {
	ts := newTestServer(t)
	_, page := get(t, ts, "/bench?net=twobranch")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(page))
	if doc.Find(`[data-testid="published-note"]`).Length() != 1 || doc.Find(`[data-testid="summary-table"] td`).Length() == 0 {
		t.Fatal("the bench page does not open on the published results")
	}
	href, _ := doc.Find(`[data-testid="download-summary-csv"]`).Attr("href")
	res, body := get(t, ts, href)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if res.StatusCode != 200 || err != nil || len(rows) < 2 || !strings.Contains(res.Header.Get("Content-Disposition"), "published") {
		t.Errorf("%s: %d %v %d rows", href, res.StatusCode, err, len(rows))
	}
	href, _ = doc.Find(`[data-testid="download-json"]`).Attr("href")
	var rep struct{ Network string }
	if _, body := get(t, ts, href); json.Unmarshal([]byte(body), &rep) != nil || rep.Network != "twobranch" {
		t.Errorf("%s: %.100s", href, body)
	}
	if res, _ := get(t, ts, "/api/bench/published/nowhere.csv"); res.StatusCode != 404 {
		t.Errorf("unknown network: %d", res.StatusCode)
	}
}

// Each lesson has one name: its page's heading is the title the index lists,
// and the index's summaries end in one mark of punctuation ("?." was a typo
// a visitor saw).
func TestLessonsHaveOneName(t *testing.T) {
	ts := newTestServer(t)
	_, index := get(t, ts, "/teach")
	for _, l := range lab.Lessons {
		_, body := get(t, ts, "/teach/"+l.Slug)
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
		if h := strings.TrimSpace(doc.Find("h1").First().Text()); h != l.Title {
			t.Errorf("/teach/%s is headed %q, listed as %q", l.Slug, h, l.Title)
		}
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(index))
	doc.Find("li").Each(func(_ int, s *goquery.Selection) {
		if text := s.Text(); strings.Contains(text, "?.") || strings.Contains(text, "..") {
			t.Errorf("index entry %q", text)
		}
	})
}

// The benchmarks page draws its table: the chart is an SVG of the shown
// report with one legend entry per method, its PNG a PNG; the page states
// the report's own size, and the form's budgets are the report's.
func TestBenchChartAndSize(t *testing.T) {
	ts := newTestServer(t)
	_, page := get(t, ts, "/bench?net=ringtown")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(page))
	src, ok := doc.Find(`[data-testid="bench-chart"]`).Attr("src")
	if !ok {
		t.Fatal("no chart on the benchmarks page")
	}
	res, svg := get(t, ts, src)
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "svg") {
		t.Fatalf("%s: %d %s", src, res.StatusCode, res.Header.Get("Content-Type"))
	}
	alt := doc.Find(`[data-testid="bench-chart"]`).AttrOr("alt", "")
	for _, m := range []string{"let", "dot", "cdot"} {
		if !strings.Contains(svg, ">"+m+"<") || !strings.Contains(alt, " "+m+" from ") {
			t.Errorf("method %s missing from the chart's legend or its alt text", m)
		}
	}
	if res, png := get(t, ts, strings.Replace(src, ".svg", ".png", 1)); res.StatusCode != 200 || !strings.HasPrefix(png, "\x89PNG") {
		t.Errorf("PNG: %d", res.StatusCode)
	}
	size := strings.Join(strings.Fields(doc.Find(`[data-testid="report-size"]`).Text()), " ")
	budgets := doc.Find(`[data-testid="bench-budgets"]`).AttrOr("value", "")
	var rep struct {
		Budgets    []float64
		Provenance struct{ Pools []struct{ Size int } }
	}
	href, _ := doc.Find(`[data-testid="download-json"]`).Attr("href")
	if _, body := get(t, ts, href); json.Unmarshal([]byte(body), &rep) != nil || len(rep.Provenance.Pools) == 0 {
		t.Fatalf("%s: %.100s", href, body)
	}
	if want := fmt.Sprintf("%d test pools of %d joint realizations", len(rep.Provenance.Pools), rep.Provenance.Pools[0].Size); !strings.HasPrefix(size, want) {
		t.Errorf("size line %q, want it to start %q", size, want)
	}
	if got := strings.Count(budgets, ",") + 1; got != len(rep.Budgets) {
		t.Errorf("form budgets %q, the report's %v", budgets, rep.Budgets)
	}
}

// A request whose client left (the plan box's Stop, a closed tab) ends its
// work and is logged as stopped, not as a failed request. The plan must
// outlast the client's 200 ms: cgr's on ringtown takes tens of seconds
// (twobranch's took about 1.5 s, little more than a busy machine's delay
// in seeing the client leave).
func TestAPlanStoppedByTheClientIsNoFailure(t *testing.T) {
	rec := &logRecorder{}
	ts := httptest.NewServer(NewServer(Deps{Lab: lab.New(lab.Options{}), Log: slog.New(rec), Assets: assets.FS}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/plan?net=ringtown&m=let,cgr&n=200000&routes=3", nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the plan answered %s before the client left", res.Status)
	}
	testenv.WaitFor(t, "the plan stopped by the client", func() bool {
		return rec.has("request stopped by the client") || rec.has("plan answered")
	})
	if !rec.has("request stopped by the client") {
		t.Fatal("the plan ran to its answer after the client left")
	}
	if rec.has("request failed") {
		t.Error("a stopped plan was logged as a failed request")
	}
}

// /networks, a path people type, leads to the networks' list on the home
// page (it answered "no page at /networks").
func TestNetworksPathLeadsToTheList(t *testing.T) {
	ts := newTestServer(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(ts.URL + "/networks")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/#networks" {
		t.Fatalf("/networks: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if _, body := get(t, ts, "/"); !strings.Contains(body, `id="networks"`) || !strings.Contains(body, `data-testid="story-add-network"`) {
		t.Error("the home page has no #networks list or no way to add a network near the top")
	}
}
