package server

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
)

// The hostile-upload probe (docs/security.md), replayed against a real
// server: each case is one of the findings it fixed, and says what must
// hold now. The browser half (user text shown as text) is in e2e/run.mjs;
// the never-ending model in engine/lab (TestUploadedModelThatNeverEndsIsStopped).

// probeServer serves with the host check on, as ontime serve does.
func probeServer(t *testing.T) (*httptest.Server, *lab.Lab) {
	t.Helper()
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS, Hosts: []string{"class.example"}}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	return ts, l
}

func alive(t *testing.T, ts *httptest.Server) {
	t.Helper()
	res, err := http.Get(ts.URL + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("the server is not answering: %v %v", err, res)
	}
	res.Body.Close()
}

const probeTNTP = "<END OF METADATA>\n~ init_node term_node capacity length free_flow_time b power speed toll link_type ;\n" +
	"1\t2\t1\t1\t3\t0\t0\t0\t0\t1\t;\n2\t3\t1\t1\t3\t0\t0\t0\t0\t1\t;\n1\t3\t1\t1\t7\t0\t0\t0\t0\t1\t;\n"

// Findings 1 and 5: header counts and magnitudes are refused with the file,
// line and field, never a crash, a 500 or a network no page opens.
func TestProbeBadCountsAndMagnitudes(t *testing.T) {
	ts, l := probeServer(t)
	for _, tc := range []struct{ name, file, data, want string }{
		{"hundred billion zones", "z_net.tntp", "<NUMBER OF ZONES> 100000000000\n" + probeTNTP, "z_net.tntp:1: field NUMBER OF ZONES"},
		{"negative zones", "z_net.tntp", "<NUMBER OF ZONES> -1\n" + probeTNTP, "z_net.tntp:1: field NUMBER OF ZONES"},
		{"more zones than nodes", "z_net.tntp", "<NUMBER OF ZONES> 4\n" + probeTNTP, "z_net.tntp:1: field NUMBER OF ZONES"},
		{"mean 1e308", "m.csv", "From,To,Cost,Var\n1,2,1e308,1e308\n2,3,1,1\n", "m.csv:2: field Cost"},
	} {
		res, doc := upload(t, ts.URL+"/networks/add", map[string]string{tc.file: tc.data}, nil)
		probs := doc.Find(`[data-testid="import-problems"] li`).Text() + doc.Find("main").Text()
		if res.StatusCode >= 500 || res.StatusCode < 400 || !strings.Contains(probs, tc.want) {
			t.Errorf("%s: %d, want a refusal naming %q: %.300s", tc.name, res.StatusCode, tc.want, probs)
		}
		alive(t, ts)
	}
	if got := len(l.Networks()); got != len(lab.New(lab.Options{}).Networks()) {
		t.Errorf("refused uploads were stored: %d networks", got)
	}
}

// Finding 6: a network name is never a file path, on any route.
func TestProbeNamesAreNotPaths(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	os.WriteFile(filepath.Join(dir, "secret.csv"), []byte("From,To,Cost,Var\nSECRET,2,3,1\n"), 0o600)
	ts, _ := probeServer(t)
	for _, p := range []string{"/networks/secret.csv/export", "/networks/secret.csv", "/api/networks/secret.csv", "/networks/missing.json/export"} {
		res, body := get(t, ts, p)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, "SECRET") || strings.Contains(body, "no such file") {
			t.Errorf("%s: %d %.200s", p, res.StatusCode, body)
		}
	}
	res, err := http.PostForm(ts.URL+"/networks/secret.csv/rename", map[string][]string{"name": {"stolen"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || strings.Contains(string(b), "SECRET") {
		t.Errorf("rename of a path: %d %.200s", res.StatusCode, b)
	}
}

// Finding 7: a request for another name (DNS rebinding) is refused, pages,
// POSTs and streams alike; the server's names and addresses are served.
func TestProbeHostAllowList(t *testing.T) {
	ts, _ := probeServer(t)
	do := func(method, path, host, origin string) int {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader("methods=let&budgets=1"))
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	port := ts.URL[strings.LastIndex(ts.URL, ":"):]
	for _, tc := range []struct {
		method, path, host, origin string
		want                       int
	}{
		{"POST", "/api/bench?net=twobranch", "evil.example" + port, "http://evil.example" + port, http.StatusForbidden},
		{"GET", "/", "evil.example" + port, "", http.StatusForbidden},
		{"GET", "/ws/compare?net=twobranch", "evil.example" + port, "http://evil.example" + port, http.StatusForbidden},
		{"GET", "/", "localhost" + port, "", http.StatusOK},
		{"GET", "/", "class.example", "", http.StatusOK},
		{"GET", "/", "127.0.0.1" + port, "", http.StatusOK},
		{"HEAD", "/", "127.0.0.1" + port, "", http.StatusOK}, // finding 12
		// a cross-site page is refused with the same error page as any error
		{"POST", "/api/bench?net=twobranch", "127.0.0.1" + port, "http://evil.example", http.StatusForbidden},
	} {
		if got := do(tc.method, tc.path, tc.host, tc.origin); got != tc.want {
			t.Errorf("%s %s Host %s Origin %q: %d, want %d", tc.method, tc.path, tc.host, tc.origin, got, tc.want)
		}
	}
	// The CSRF refusal speaks JSON to a script, like every other error.
	req, _ := http.NewRequest("POST", ts.URL+"/api/bench?net=twobranch", nil)
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 403 || !strings.HasPrefix(string(b), `{"error":`) {
		t.Errorf("CSRF refusal: %d %s", res.StatusCode, b)
	}
}

// Finding 3: one client sends at most MaxUploadsPerClient uploads at once;
// the next is answered 429 at once, before its body is read.
func TestProbeUploadsBoundedPerClient(t *testing.T) {
	ts, _ := probeServer(t)
	type slow struct {
		w    *io.PipeWriter
		done chan int
	}
	var held []slow
	for range MaxUploadsPerClient {
		pr, pw := io.Pipe()
		s := slow{w: pw, done: make(chan int, 1)}
		mw := multipart.NewWriter(pw)
		go func() {
			res, err := http.Post(ts.URL+"/networks/add", mw.FormDataContentType(), pr)
			if err != nil {
				s.done <- 0
				return
			}
			res.Body.Close()
			s.done <- res.StatusCode
		}()
		fw, _ := mw.CreateFormFile("files", "slow.csv")
		fw.Write([]byte("From,To,Cost,Var\n"))
		held = append(held, s)
	}
	time.Sleep(300 * time.Millisecond) // both are being received
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("files", "g.csv")
	fw.Write([]byte("From,To,Cost,Var\n1,2,1,1\n"))
	mw.Close()
	res, err := http.Post(ts.URL+"/networks/add", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a third upload at once: %d, want 429", res.StatusCode)
	}
	for _, s := range held {
		s.w.CloseWithError(io.ErrUnexpectedEOF)
		<-s.done
	}
}

// Finding 12: small ones.
func TestProbeSmallOnes(t *testing.T) {
	ts, _ := probeServer(t)
	// NaN is no time: refused, with a body.
	res, b := get(t, ts, "/api/teach?x=NaN")
	if res.StatusCode != http.StatusBadRequest || len(b) == 0 {
		t.Errorf("x=NaN: %d %q", res.StatusCode, b)
	}
	// A factor out of range is the f field's fault: the page resets f.
	res, body := get(t, ts, "/compare?net=twobranch&f=5.1")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "budget factor 5.1: give a factor in (0, 5] — reset to its default") {
		t.Errorf("f=5.1 was not reset: %d", res.StatusCode)
	}
	// A 100 kB name makes a small error page.
	res, body = get(t, ts, "/compare?net="+strings.Repeat("a", 100_000))
	if res.StatusCode != http.StatusNotFound || len(body) > 20_000 {
		t.Errorf("a 100 kB name: %d, %d bytes", res.StatusCode, len(body))
	}
	// A description past its bound is refused, naming the field.
	long := `{"format": "ontime-network", "version": 1, "name": "x", "description": "` + strings.Repeat("d", 5000) + `",
"nodes": [{"id": "a"}, {"id": "b"}], "links": [{"from": "a", "to": "b", "mean": 1, "variance": 1}], "correlation": {"model": "independent"}}`
	res, doc := upload(t, ts.URL+"/networks/add", map[string]string{"x.json": long}, nil)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid="import-problems"]`).Text(), "description") {
		t.Errorf("a 5000-character description: %d %.200s", res.StatusCode, doc.Find("main").Text())
	}
}
