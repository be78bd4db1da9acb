package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// BenchmarkPageWeight reports what a first visit to each page downloads:
// the HTML, the scripts, styles and images it references, and the network
// JSON the map pages fetch; bytes raw and gzipped (as served with
// Accept-Encoding: gzip).
func BenchmarkPageWeight(b *testing.B) {
	ts := httptest.NewServer(NewServer(Deps{Lab: lab.New(lab.Options{DataDir: testenv.DataDir(b)}), Assets: assets.FS}))
	defer ts.Close()
	for _, pg := range []struct{ name, path, data string }{
		{"home", "/", ""},
		{"network-sfn", "/networks/sfn", "/api/networks/sfn"},
		{"network-anaheim", "/networks/anaheim", "/api/networks/anaheim"},
		{"compare-sfn", "/compare?net=sfn", "/api/networks/sfn"},
		{"live-sfn", "/live?net=sfn", ""},
		{"teach", "/teach/history", ""},
		{"bench", "/bench?net=sfn", ""},
		{"models", "/models", ""},
		{"about", "/about", ""},
	} {
		b.Run(pg.name, func(b *testing.B) {
			var raw, gz int
			for b.Loop() {
				raw, gz = 0, 0
				html := fetch(b, ts.URL+pg.path)
				urls := []string{pg.path}
				doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(html))
				doc.Find("script[src], link[rel=stylesheet][href], img[src]").Each(func(_ int, s *goquery.Selection) {
					urls = append(urls, s.AttrOr("src", s.AttrOr("href", "")))
				})
				if pg.data != "" {
					urls = append(urls, pg.data)
				}
				for _, u := range urls {
					body := fetch(b, ts.URL+u)
					raw += len(body)
					gz += gzipped(body)
				}
			}
			b.ReportMetric(float64(raw), "bytes")
			b.ReportMetric(float64(gz), "gzip_bytes")
		})
	}
}

func fetch(b *testing.B, u string) []byte {
	res, err := http.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 && !strings.Contains(u, "/plots/") {
		b.Fatalf("%s: %d", u, res.StatusCode)
	}
	return body
}

func gzipped(p []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, 5)
	w.Write(p)
	w.Close()
	return buf.Len()
}
