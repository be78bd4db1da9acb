package server

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// uploadParts posts the Add-a-network form with files under their own
// fields (files, observations) and settings.
func uploadParts(t *testing.T, url string, parts map[string]map[string]string, fields map[string]string) (*http.Response, *goquery.Document) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for field, files := range parts {
		for name, content := range files {
			w, _ := mw.CreateFormFile(field, name)
			io.WriteString(w, content)
		}
	}
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	mw.Close()
	res, err := http.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	doc, err := goquery.NewDocumentFromReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, doc
}

// observedTimes are 60 days of skewed, distinct times on links (from, to),
// with a time of day (07:00 to 07:59) when tod.
func observedTimes(links [][2]int, tod bool) *strings.Builder {
	var obs strings.Builder
	obs.WriteString("from,to,day,time")
	if tod {
		obs.WriteString(",time_of_day")
	}
	obs.WriteString("\n")
	for d := range 60 {
		for i, l := range links {
			fmt.Fprintf(&obs, "%d,%d,d%d,%.3f", l[0], l[1], d, 8+4*math.Exp(math.Sin(float64(d*(i+3)))))
			if tod {
				fmt.Fprintf(&obs, ",07:%02d", d%60)
			}
			obs.WriteString("\n")
		}
	}
	return &obs
}

// Observed times uploaded with a network are fitted at import: the report
// says so, the saved network has the fitted law; bad rows and a bad period
// are refused naming file, line and field, and nothing is stored.
func TestUploadWithObservations(t *testing.T) {
	ts := newTestServer(t)
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"
	obs := observedTimes([][2]int{{1, 2}, {2, 4}, {1, 3}, {3, 4}}, true)
	res, doc := uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": obs.String()}},
		map[string]string{"ods": "1-4", "period": "07:00-08:00"})
	notes := doc.Find(`[data-testid="import-report"]`).Text()
	if res.StatusCode != 200 || !strings.Contains(notes, "fitted to obs.csv (240 rows, 60 observations): 4 links observed") {
		t.Fatalf("preview with observations: %d\n%s", res.StatusCode, notes)
	}
	// Saved, it has a data page: figures and downloads from the fit.
	action, _ := doc.Find(`[data-testid="import-save-form"]`).Attr("action")
	if res, err := noRedirect.PostForm(ts.URL+action, url.Values{"name": {"probed"}}); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %v", err)
	}
	if _, body := get(t, ts, "/networks/probed"); !strings.Contains(body, `data-testid="data-page-link"`) {
		t.Error("the network page does not link its data page")
	}
	res, body := get(t, ts, "/networks/probed/data?link=3")
	if res.StatusCode != 200 || !strings.Contains(body, `data-testid="fit-histogram"`) || !strings.Contains(body, "rank") {
		t.Fatalf("data page: %d", res.StatusCode)
	}
	for _, u := range []string{"/networks/probed/data/histogram.svg?link=3", "/networks/probed/data/qq.svg?link=1", "/networks/probed/data/correlation.svg"} {
		if res, body := get(t, ts, u); res.StatusCode != 200 || !strings.Contains(body, "<svg") {
			t.Errorf("%s: %d", u, res.StatusCode)
		}
	}
	if res, body := get(t, ts, "/networks/probed/data/links.csv"); res.StatusCode != 200 || !strings.HasPrefix(body, "link,from_to,n,family,ks") || strings.Count(body, "\n") != 5 {
		t.Errorf("links.csv: %d %q", res.StatusCode, body)
	}
	if res, _ := get(t, ts, "/networks/probed/data?link=99"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("link 99: %d", res.StatusCode)
	}
	if res, _ := get(t, ts, "/networks/probed/data/other.csv"); res.StatusCode != http.StatusNotFound {
		t.Errorf("other.csv: %d", res.StatusCode)
	}
	bad := strings.Replace(obs.String(), "\n1,2,d1,", "\n1,2,d1,-", 1)
	res, doc = uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": bad}}, nil)
	if probs := doc.Find(`[data-testid="import-problems"]`).Text(); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(probs, "obs.csv:6: field time") {
		t.Errorf("a negative time: %d %s", res.StatusCode, probs)
	}
	// A bad setting is a problem of the report, beside the form as typed.
	res, doc = uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": obs.String()}},
		map[string]string{"period": "7-9", "cv": "0.25"})
	if probs := doc.Find(`[data-testid="import-problems"]`).Text(); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(probs, "period") {
		t.Errorf("a bad period: %d %q", res.StatusCode, probs)
	}
	if v, _ := doc.Find(`input[name="cv"]`).Attr("value"); v != "0.25" {
		t.Errorf("the typed settings were lost: cv %q", v)
	}
}

// An observations file whose header is wrong (semicolons; date,minutes)
// is reported in the import's report, quoting the header found, with the
// form kept; a truncated row says how many fields it has.
func TestObservationHeaderProblemsAreReported(t *testing.T) {
	ts := newTestServer(t)
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"
	for _, tc := range []struct {
		obs  string
		want []string
	}{
		{"from;to;day;time\n1;2;d1;9\n", []string{`obs.csv:1: field observation: the header names no observation column`, `is separated by semicolons`}},
		{"from,to,date,minutes\n1,2,d1,9\n", []string{`obs.csv:1: field time: the header names no time column (time, travel_time) (the header found: "from,to,date,minutes")`}},
		{"from,to,day,time,time_of_day\n1,2,d1,9,07:00\n2,6\n", []string{`obs.csv:3: field row: 2 fields, the header has 5`}},
	} {
		res, doc := uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": tc.obs}},
			map[string]string{"ods": "1-4", "cv": "0.25"})
		probs := doc.Find(`[data-testid="import-problems"]`).Text()
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%q: %d %q", tc.obs, res.StatusCode, probs)
		}
		for _, w := range tc.want {
			if !strings.Contains(probs, w) {
				t.Errorf("%q: the report does not say %q:\n%s", tc.obs, w, probs)
			}
		}
		if v, _ := doc.Find(`input[name="cv"]`).Attr("value"); v != "0.25" {
			t.Errorf("%q: the typed settings were lost: cv %q", tc.obs, v)
		}
	}
}

// A link never observed shows the default law it keeps, not broken
// figures; the map marks which links were observed; the words of the
// worst-fit table (KS distance, shrunk) are said on the page.
func TestDataPageOfAnUnobservedLink(t *testing.T) {
	ts := newTestServer(t)
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n2,3,5,1\n"
	obs := observedTimes([][2]int{{1, 2}, {2, 4}, {1, 3}}, false)
	_, doc := uploadParts(t, ts.URL+"/networks/add", map[string]map[string]string{"files": {"grid.csv": csv}, "observations": {"obs.csv": obs.String()}}, map[string]string{"ods": "1-4"})
	action, _ := doc.Find(`[data-testid="import-save-form"]`).Attr("action")
	if res, err := noRedirect.PostForm(ts.URL+action, url.Values{"name": {"part"}}); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %v", err)
	}
	res, body := get(t, ts, "/networks/part/data?link=5")
	page, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	said := page.Find(`[data-testid="fit-unobserved"]`).Text()
	if res.StatusCode != 200 || !strings.Contains(said, "Link 5 (2→3) was not observed: it keeps the default law") || page.Find(`[data-testid="fit-histogram"]`).Length() != 0 {
		t.Errorf("link 5: %d %q", res.StatusCode, said)
	}
	if got, _ := page.Find(`[data-testid="fit-map"]`).Attr("data-observed"); got != "1,2,3" {
		t.Errorf("observed links for the map: %q", got)
	}
	if w := page.Find(`[data-testid="fit-words"]`).Text(); !strings.Contains(w, "KS distance") || !strings.Contains(w, "Shrunk") {
		t.Errorf("the table's words are not explained: %q", w)
	}
	// A phone gets each figure drawn at about its width (its text was 5 px).
	if src, _ := page.Find(`[data-testid="fit-correlation"]`).Parent().Find("source").Attr("srcset"); !strings.HasSuffix(src, "narrow=1") {
		t.Errorf("no phone-sized correlation figure: %q", src)
	}
	_, wide := get(t, ts, "/networks/part/data/correlation.svg")
	_, narrow := get(t, ts, "/networks/part/data/correlation.svg?narrow=1")
	if !strings.Contains(wide, `width="648pt"`) || !strings.Contains(narrow, `width="273.6pt"`) {
		t.Errorf("figure widths: %.120s | %.120s", wide, narrow)
	}
}
