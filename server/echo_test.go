package server

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Issue 71, cause 1: an error answer quotes what it was sent as an
// excerpt, and is never larger than a few kB whatever was sent. Every
// query value and path id the probe sent 5,000 bytes of is tried here on
// the routes that read it.
func TestErrorAnswersQuoteExcerpts(t *testing.T) {
	ts := newTestServer(t)
	long := strings.Repeat("Z", 5000)
	const maxAnswer = 8 << 10 // an HTML error page's frame included
	base := "net=twobranch&o=1&d=4"
	var paths []string
	for _, q := range []string{"o", "d", "layout", "f", "m", "pools", "size", "x", "n", "r", "reliability", "routes", "net", "format", "link"} {
		for _, route := range []string{"/api/compare", "/api/plan", "/api/plan/routes", "/api/routes", "/compare", "/live", "/api/networks/twobranch", "/api/story", "/api/lessons/adapt", "/networks/twobranch/data"} {
			v, _ := url.ParseQuery(base)
			v.Set(q, long)
			paths = append(paths, route+"?"+v.Encode())
		}
	}
	longID := strings.Repeat("n", 500)
	paths = append(paths, "/networks/"+longID, "/api/networks/"+longID, "/networks/"+longID+"/data", "/jobs/"+longID, "/api/jobs/"+longID,
		"/teach/"+longID, "/networks/twobranch/data/"+longID+".svg", "/networks/twobranch/data/"+longID+".csv", "/api/bench/"+longID, "/api/imports/"+longID,
		"/"+strings.Repeat("Z", 5000))
	for _, p := range paths {
		for _, accept := range []string{"application/json", "text/html"} {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+p, nil)
			req.Header.Set("Accept", accept)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
			res.Body.Close()
			if res.StatusCode < 400 {
				continue // a page may reset a bad field and say so in a note: checked below for size too
			}
			name := p[:min(len(p), 60)]
			if len(b) > maxAnswer {
				t.Errorf("%s (%s): a %d error answer of %d bytes", name, accept, res.StatusCode, len(b))
			}
			if strings.Contains(string(b), strings.Repeat("Z", 200)) || strings.Contains(string(b), strings.Repeat("n", 200)) {
				t.Errorf("%s (%s): the answer echoes the value whole: %.300s", name, accept, b)
			}
		}
	}
}

// Issue 71, cause 1: 101 observation rows whose fields are 100 kB of
// control characters (10 MB here; the probe sent 60 MB and got a 303 MB
// answer) are refused with an answer of a few kB, on the page and the API,
// each problem quoting an excerpt; nothing is stored.
func TestObservationRowErrorsAreExcerpts(t *testing.T) {
	ts := newTestServer(t)
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"
	field := strings.Repeat("\x01\x02\x7f", 100_000/3)
	var obs strings.Builder
	obs.WriteString("from,to,day,time\n")
	for i := range 101 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&obs, "%s,2,d%d,9\n", field, i)
		case 1:
			fmt.Fprintf(&obs, "1,2,d%d,%s\n", i, field)
		default:
			fmt.Fprintf(&obs, "1,2,%s,9\n1,2,%s,9\n", field, field) // observed twice
		}
	}
	for _, route := range []string{"/networks/add", "/api/networks"} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		w, _ := mw.CreateFormFile("files", "grid.csv")
		io.WriteString(w, csv)
		w, _ = mw.CreateFormFile("observations", "obs.csv")
		io.WriteString(w, obs.String())
		mw.WriteField("name", "bombed")
		mw.Close()
		res, err := http.Post(ts.URL+route, mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d, want 422: %.300s", route, res.StatusCode, b)
		}
		t.Logf("%s: a %d answer of %d bytes to a %d-byte upload", route, res.StatusCode, len(b), obs.Len())
		if len(b) > 32<<10 {
			t.Errorf("%s: the answer is %d bytes (the page's frame is about 10 kB of it)", route, len(b))
		}
		if !strings.Contains(string(b), `obs.csv:2: field from`) && !strings.Contains(string(b), `"line":2`) {
			t.Errorf("%s: the first problem is not named: %.600s", route, b)
		}
		if strings.Contains(string(b), strings.Repeat(`\x01\x02\x7f`, 100)) || strings.Contains(string(b), strings.Repeat(`\u0001\u0002\u007f`, 100)) {
			t.Errorf("%s: a field is quoted whole", route)
		}
	}
	if res, _ := get(t, ts, "/networks/bombed"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the refused upload was stored: %d", res.StatusCode)
	}
}
