package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
)

// Issue 71, cause 3: plans are bounded per client and in total, as streams
// and uploads are: past a bound /api/plan and /api/plan/routes answer 429
// with Retry-After and the reason, before any work; a slot is freed when
// its plan ends.
func TestPlansAreBounded(t *testing.T) {
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	s, h := newServer(Deps{Lab: l, Version: "test", Assets: assets.FS})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); l.Close() })
	hold := func(addr string) func() {
		r := httptest.NewRequest(http.MethodGet, "/api/plan", nil)
		r.RemoteAddr = addr + ":1"
		release, err := s.plans.acquire(r)
		if err != nil {
			t.Fatal(err)
		}
		return release
	}
	plan := func(path string) (*http.Response, string) {
		res, body := get(t, ts, path)
		return res, body
	}
	const q = "?net=ringtown&m=let&n=200"
	if res, body := plan("/api/plan" + q); res.StatusCode != 200 {
		t.Fatalf("a plan: %d %s", res.StatusCode, body)
	}
	// This client (the test's, 127.0.0.1) holds its share.
	var mine []func()
	for range MaxPlansPerClient {
		mine = append(mine, hold("127.0.0.1"))
	}
	for _, p := range []string{"/api/plan" + q, "/api/plan/routes" + q} {
		res, body := plan(p)
		if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "you are sending 2 plans at once") {
			t.Errorf("%s past the client's bound: %d %q %s", p, res.StatusCode, res.Header.Get("Retry-After"), body)
		}
	}
	for _, release := range mine {
		release()
	}
	// Others hold every slot.
	var others []func()
	for i := range MaxPlans {
		others = append(others, hold("10.0.0."+string(rune('1'+i))))
	}
	if res, body := plan("/api/plan" + q); res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "computing 4 plans, its limit") {
		t.Errorf("past the total bound: %d %s", res.StatusCode, body)
	}
	others[0]()
	if res, body := plan("/api/plan" + q); res.StatusCode != 200 {
		t.Errorf("a slot freed: %d %s", res.StatusCode, body)
	}
	if s.plans.held() != MaxPlans-1 {
		t.Errorf("a finished plan kept its slot: %d held", s.plans.held())
	}
}
