package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// Without a working GPG-HT — no model, a corrupt model file, no ONNX
// Runtime library — every page still renders, GPG-HT is shown unavailable
// with the reason, a comparison with it runs the other methods, and a
// benchmark without it runs.
func TestGPGHTFaults(t *testing.T) {
	corrupt := t.TempDir()
	card, err := os.ReadFile(filepath.Join("..", "models", "twobranch.card.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(corrupt, "twobranch.card.json"), card, 0o644)
	os.WriteFile(filepath.Join(corrupt, "twobranch.onnx"), []byte("\x08\x07not a model, cut short"), 0o644)
	for _, tc := range []struct {
		name   string
		opts   lab.Options
		reason string // in the unavailability text
		ort    bool   // the reason is ONNX Runtime's own, so it needs the library
	}{
		{"no model", lab.Options{ModelsDir: t.TempDir()}, "the Models page says how to get one", false},
		{"corrupt model", lab.Options{ModelsDir: corrupt}, "twobranch.onnx", true},
		{"no ONNX Runtime", lab.Options{ORTLib: filepath.Join(t.TempDir(), "libonnxruntime.so.1")}, "ONNX Runtime library", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ort.FindLibrary(); err != nil && tc.ort {
				testenv.Missing(t, err.Error())
			}
			l := lab.New(tc.opts)
			ts := httptest.NewServer(NewServer(Deps{Lab: l, Assets: assets.FS}))
			t.Cleanup(func() { ts.Close(); l.Close() })
			for _, p := range []string{"/", "/compare?net=twobranch", "/live?net=twobranch", "/teach?net=twobranch",
				"/bench?net=twobranch", "/models", "/about", "/networks/twobranch", "/api/networks/twobranch"} {
				if res, body := get(t, ts, p); res.StatusCode != http.StatusOK {
					t.Errorf("%s: %d %.200s", p, res.StatusCode, body)
				}
			}
			_, body := get(t, ts, "/compare?net=twobranch")
			doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
			if u := doc.Find(`[data-testid="unavailable-gpght"]`).Text(); !strings.Contains(u, tc.reason) {
				t.Errorf("gpght unavailability %q lacks %q", u, tc.reason)
			}
			c := dial(t, ts, "/ws/compare", url.Values{"net": {"twobranch"}, "m": {"let,gpght"}})
			var errs, results int
			for {
				var msg map[string]any
				if c.ReadJSON(&msg) != nil {
					break
				}
				if msg["type"] == "start" {
					for _, m := range msg["methods"].([]any) {
						if e, ok := m.(map[string]any)["error"].(string); ok && e != "" {
							errs++
						}
					}
				}
				if msg["type"] == "result" {
					results++
				}
			}
			if errs != 1 || results != 1 {
				t.Errorf("comparison: %d methods failed, %d results; want gpght failed, let's result", errs, results)
			}
			res, err := http.PostForm(ts.URL+"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,dot"}, "pools": {"2"}, "size": {"100"}})
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusAccepted {
				t.Errorf("benchmark without gpght: %d", res.StatusCode)
			}
		})
	}
}
