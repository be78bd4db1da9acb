package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
)

// FuzzPageQuery sends fuzzed query strings to the pages and the JSON routes
// that decode them (the same run-query decoder serves the websocket
// streams): whatever comes in, the answer is a page or a 4xx, never a
// panic or a 5xx.
//
//	go test -run '^$' -fuzz FuzzPageQuery -fuzztime 30s ./server/
func FuzzPageQuery(f *testing.F) {
	for _, q := range []string{"net=twobranch&o=A&d=E&f=1.05&r=4&m=let,condrule", "f=NaN", "f=1e308&r=-1", "net=../../etc&o=%00",
		"m=let&m=nope&n=200001", "x=4.2", "net=twobranch&o=E&d=A"} {
		f.Add(q)
	}
	l := lab.New(lab.Options{StateDir: f.TempDir()})
	f.Cleanup(func() { l.Close() })
	h := NewServer(Deps{Lab: l, Version: "fuzz", Assets: assets.FS})
	f.Fuzz(func(t *testing.T, q string) {
		for _, path := range []string{"/compare", "/live", "/bench", "/api/teach"} {
			req, err := http.NewRequest("GET", path, nil)
			if err != nil {
				return
			}
			req.URL.RawQuery = q
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s?%s: %d %.200s", path, q, rec.Code, rec.Body.String())
			}
		}
	})
}
