package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
)

// described are the routes the document covers: the API and the probes.
func described(pattern string) bool {
	return strings.HasPrefix(pattern, "/api/") || pattern == "/readyz" || pattern == "/healthz"
}

type openAPIDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
}

type operation struct {
	OperationID string                     `json:"operationId"`
	Summary     string                     `json:"summary"`
	Description string                     `json:"description"`
	Responses   map[string]json.RawMessage `json:"responses"`
}

func readOpenAPI(t *testing.T) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	return doc
}

// Every API route has an operation in the document with a summary and a
// description, and every operation has a route: a route without a
// description fails, and so does a description without a route.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	doc := readOpenAPI(t)
	_, h := newServer(Deps{Lab: lab.New(lab.Options{StateDir: t.TempDir()})})
	routed := map[string]bool{}
	err := chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if described(route) {
			routed[strings.ToLower(method)+" "+route] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(routed) < 20 {
		t.Fatalf("only %d API routes walked: %v", len(routed), routed)
	}
	ids := map[string]string{}
	documented := map[string]bool{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			key := method + " " + path
			documented[key] = true
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			if op.Summary == "" || len(op.Description) < 20 || len(op.Responses) == 0 || op.OperationID == "" {
				t.Errorf("%s: summary %q, description %q, %d responses, id %q: each operation says what it does and answers", key, op.Summary, op.Description, len(op.Responses), op.OperationID)
			}
			if other, dup := ids[op.OperationID]; dup {
				t.Errorf("operationId %s on %s and %s", op.OperationID, key, other)
			}
			ids[op.OperationID] = key
			if !routed[key] {
				t.Errorf("%s is documented but not routed", key)
			}
		}
	}
	for key := range routed {
		if !documented[key] {
			t.Errorf("%s is routed but not documented in server/openapi.json", key)
		}
	}
}

// apiSchemas compiles the document's response schemas, resolving its $refs.
type apiSchemas struct {
	c    *jsonschema.Compiler
	doc  openAPIDoc
	seen map[string]*jsonschema.Schema
}

func newAPISchemas(t *testing.T) *apiSchemas {
	t.Helper()
	root, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPI))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("openapi.json", root); err != nil {
		t.Fatal(err)
	}
	return &apiSchemas{c: c, doc: readOpenAPI(t), seen: map[string]*jsonschema.Schema{}}
}

func pointer(parts ...string) string {
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return "/" + strings.Join(parts, "/")
}

// schema is the response schema of an operation for a status and media
// type; nil with the reason when the document has none.
func (a *apiSchemas) schema(method, path string, status int, media string) (*jsonschema.Schema, error) {
	var op operation
	if err := json.Unmarshal(a.doc.Paths[path][method], &op); err != nil {
		return nil, fmt.Errorf("no operation %s %s", method, path)
	}
	code := fmt.Sprint(status)
	if _, ok := op.Responses[code]; !ok {
		return nil, fmt.Errorf("%s %s documents no %d response (it has %v)", method, path, status, keys(op.Responses))
	}
	loc := "openapi.json#" + pointer("paths", path, method, "responses", code, "content", media, "schema")
	if s, ok := a.seen[loc]; ok {
		return s, nil
	}
	s, err := a.c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("%s %s %d %s: %v", method, path, status, media, err)
	}
	a.seen[loc] = s
	return s, nil
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// check validates a response against the document: its status is
// documented, and a JSON body matches its schema.
func (a *apiSchemas) check(t *testing.T, method, path string, res *http.Response, body []byte) {
	t.Helper()
	media, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	if res.StatusCode == http.StatusNoContent {
		media = ""
	}
	var op operation
	json.Unmarshal(a.doc.Paths[path][method], &op)
	if _, ok := op.Responses[fmt.Sprint(res.StatusCode)]; !ok {
		t.Errorf("%s %s answered %d, which it does not document (%v): %.300s", method, path, res.StatusCode, keys(op.Responses), body)
		return
	}
	if media != "application/json" && media != "application/geo+json" {
		return
	}
	s, err := a.schema(method, path, res.StatusCode, media)
	if err != nil {
		t.Error(err)
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Errorf("%s %s: not JSON: %v", method, path, err)
		return
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s %s %d: the body does not match the document: %v\n%.400s", method, path, res.StatusCode, err, body)
	}
}

// Every schema in the document compiles (its $refs resolve).
func TestOpenAPISchemasCompile(t *testing.T) {
	a := newAPISchemas(t)
	for path, item := range a.doc.Paths {
		for method, raw := range item {
			var op struct {
				Responses map[string]struct {
					Content map[string]json.RawMessage `json:"content"`
				} `json:"responses"`
			}
			if method == "parameters" || json.Unmarshal(raw, &op) != nil {
				continue
			}
			for code, r := range op.Responses {
				for media := range r.Content {
					var status int
					fmt.Sscan(code, &status)
					if _, err := a.schema(method, path, status, media); err != nil {
						t.Error(err)
					}
				}
			}
		}
	}
}

// The API's answers match the document: a network added from a file, the
// map, a comparison and its routes, a plan, a benchmark followed to its
// report, errors, the probes and the lessons.
func TestOpenAPIResponses(t *testing.T) {
	a := newAPISchemas(t)
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	do := func(method, path, template string, body io.Reader, ctype string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, body)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		a.check(t, strings.ToLower(method), template, res, b)
		return res, b
	}
	get := func(path, template string, want int) []byte {
		t.Helper()
		res, b := do("GET", path, template, nil, "")
		if want != 0 && res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d: %.300s", path, res.StatusCode, want, b)
		}
		return b
	}
	get("/healthz", "/healthz", 200)
	get("/readyz", "/readyz", 0)
	get("/api/openapi.json", "/api/openapi.json", 200)
	get("/api/networks", "/api/networks", 200)
	get("/api/networks/ringtown", "/api/networks/{name}", 200)
	get("/api/networks/ringtown?layout=columns", "/api/networks/{name}", 200)
	get("/api/networks/ringtown?layout=rows", "/api/networks/{name}", 400)
	get("/api/networks/nowhere", "/api/networks/{name}", 404)
	get("/api/networks/ringtown/model", "/api/networks/{name}/model", 200)
	get("/api/imports/nothing", "/api/imports/{token}", 404)
	cmp := get("/api/compare?net=ringtown&m=let&m=fma&f=1.1&r=2", "/api/compare", 200) // not dot: its tables take 30 s under -race
	if e := get("/api/compare?net=ringtown&f=abc", "/api/compare", 400); !strings.Contains(string(e), `"field":"f"`) {
		t.Errorf("a bad factor names its field: %s", e)
	}
	get("/api/routes?net=ringtown&m=let&f=1.1&r=2", "/api/routes", 200)
	get("/api/routes?net=ringtown&format=gpx", "/api/routes", 400)
	if !testing.Short() { // minutes under the race detector; the plain pass validates it
		get("/api/plan?net=ringtown&m=let&n=100&routes=1", "/api/plan", 200)
	}
	get("/api/plan?net=ringtown&reliability=1.5", "/api/plan", 400)
	get("/api/depart?net=rushtown&m=let&m=clairvoyant&n=50&arrive_by=08:00&window=30&every=10", "/api/depart", 200)
	get("/api/depart?net=rushtown&m=let&n=50&arrive_by=08:00&depart=07:45", "/api/depart", 200)
	if e := get("/api/depart?net=rushtown&arrive_by=25:00", "/api/depart", 400); !strings.Contains(string(e), `"field":"arrive_by"`) {
		t.Errorf("a bad deadline names its field: %s", e)
	}
	get("/api/depart?net=rushtown&arrive_by=08:00&depart=08:30", "/api/depart", 400)
	get("/api/depart?net=rushtown&arrive_by=08:00&m=fma", "/api/depart", 400)
	get("/api/depart?net=ringtown&arrive_by=08:00", "/api/depart", 400)
	get("/api/teach?x=5", "/api/teach", 200)
	get("/api/story", "/api/story", 200)
	get("/api/lessons/adapt?f=1", "/api/lessons/adapt", 200)
	get("/api/lessons/learning", "/api/lessons/learning", 0)
	var c struct {
		Drives []struct {
			Links []int     `json:"links"`
			Times []float64 `json:"times"`
		} `json:"drives"`
	}
	if json.Unmarshal(cmp, &c); len(c.Drives) != 2 || len(c.Drives[0].Links) == 0 || len(c.Drives[0].Links) != len(c.Drives[0].Times) {
		t.Errorf("comparison: %s", cmp)
	}

	// A network added in one request, listed, then deleted; a bad file is
	// a 422 whose report names the line.
	upload := func(name, csv string) (*http.Response, []byte) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("files", name+".csv")
		fw.Write([]byte(csv))
		mw.WriteField("name", name)
		mw.Close()
		return do("POST", "/api/networks", "/api/networks", &body, mw.FormDataContentType())
	}
	res, b := upload("square", "From,To,Cost,Var\n1,2,10,4\n2,3,10,4\n3,4,10,4\n1,4,31,1\n")
	if res.StatusCode != 201 || res.Header.Get("Location") != "/api/networks/square" {
		t.Fatalf("add: %d %s", res.StatusCode, b)
	}
	if !strings.Contains(string(get("/api/networks", "/api/networks", 200)), `"square"`) {
		t.Error("the added network is not listed")
	}
	res, b = upload("broken", "From,To,Cost,Var\n1,2,ten,4\n")
	if res.StatusCode != 422 || !strings.Contains(string(b), `"line":2`) {
		t.Errorf("bad file: %d %s", res.StatusCode, b)
	}
	if res, b := do("DELETE", "/api/networks/square", "/api/networks/{name}", nil, ""); res.StatusCode != 204 {
		t.Errorf("delete: %d %s", res.StatusCode, b)
	}
	if res, _ := do("DELETE", "/api/networks/square", "/api/networks/{name}", nil, ""); res.StatusCode != 404 {
		t.Errorf("delete twice: %d", res.StatusCode)
	}

	// A benchmark followed to its report.
	if testing.Short() {
		return
	}
	form := url.Values{"net": {"twobranch"}, "m": {"let,dot"}, "pools": {"2"}, "size": {"100"}}
	res, b = do("POST", "/api/bench", "/api/bench", strings.NewReader(form.Encode()), "application/x-www-form-urlencoded")
	var st struct {
		ID    string `json:"id"`
		State string `json:"state"`
	}
	if json.Unmarshal(b, &st); res.StatusCode != 202 || st.ID == "" {
		t.Fatalf("bench: %d %s", res.StatusCode, b)
	}
	for st.State != "done" && st.State != "failed" {
		time.Sleep(100 * time.Millisecond)
		json.Unmarshal(get("/api/bench/"+st.ID, "/api/bench/{file}", 200), &st)
	}
	if st.State != "done" {
		t.Fatalf("bench %s", st.State)
	}
	get("/api/jobs/"+st.ID, "/api/jobs/{id}", 200)
	get("/api/bench/"+st.ID+".json", "/api/bench/{file}", 200)
	get("/api/jobs/nojob", "/api/jobs/{id}", 404)
}
