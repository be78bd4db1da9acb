package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
)

// /metrics: its numbers move with what the dashboard does (requests by
// route pattern, what is stored), it names no network a user stored, and
// on a class server it needs the token.
func TestMetricsMoveAndLeakNoName(t *testing.T) {
	ts := newTestServer(t)
	scrape := func() string {
		res, body := get(t, ts, "/metrics")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("/metrics: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		return body
	}
	value := func(body, series string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	const networkGets = `ontime_http_requests_total{method="GET",route="/api/networks/{name}",status="200"}`
	before := scrape()
	for range 3 {
		get(t, ts, "/api/networks/twobranch")
	}
	get(t, ts, "/api/networks/nosuchnetwork")
	_, doc := upload(t, ts.URL+"/networks/add", map[string]string{"secretgrid.csv": "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"}, map[string]string{"ods": "1-4"})
	action, _ := doc.Find(`[data-testid="import-save-form"]`).Attr("action")
	if res, err := noRedirect.PostForm(ts.URL+action, url.Values{"name": {"secretgrid"}}); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %v %v", res, err)
	}
	get(t, ts, "/networks/secretgrid")
	after := scrape()
	if d := value(after, networkGets) - value(before, networkGets); d != 3 {
		t.Errorf("%s moved by %v, want 3:\n%s", networkGets, d, after)
	}
	if value(after, `ontime_http_requests_total{method="GET",route="/api/networks/{name}",status="404"}`) != 1 {
		t.Error("the 404 is not counted")
	}
	if value(after, `ontime_stored{what="networks"}`) != value(before, `ontime_stored{what="networks"}`)+1 {
		t.Errorf("the stored network is not counted: %v then %v", value(before, `ontime_stored{what="networks"}`), value(after, `ontime_stored{what="networks"}`))
	}
	for _, series := range []string{`ontime_quota{what="networks"} 200`, `ontime_under_way{what="websocket_sessions"} 0`, "ontime_store_file_bytes ", "go_goroutines ", `ontime_http_request_duration_seconds_count{method="GET",route="/networks/{name}"} 1`} {
		if !strings.Contains(after, series) {
			t.Errorf("no %s", series)
		}
	}
	if strings.Contains(after, "secretgrid") || strings.Contains(after, "nosuchnetwork") || strings.Contains(after, "/tmp/") {
		t.Errorf("the metrics name a user's network or a path:\n%s", after)
	}

	// A class server: the token or nothing.
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	class := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS, Token: "s3cret"}))
	t.Cleanup(func() { class.Close(); l.Close() })
	if res, _ := get(t, class, "/metrics"); res.StatusCode != http.StatusForbidden {
		t.Errorf("metrics without the token: %d", res.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, class.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
		t.Errorf("metrics with the token: %v %v", res, err)
	}
}
