package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// tinyTraining are form fields for a training run of seconds.
var tinyTraining = url.Values{"teachers": {"cgr"}, "budgets": {"0.98,1.02"}, "demos": {"100"}, "rounds": {"1"},
	"round_episodes": {"40"}, "round_steps": {"2"}, "imitation_epochs": {"1"}, "validation_size": {"100"}, "size": {"16,1,1,2"}}

// storeGrid uploads and saves the four-link grid as network "grid".
func storeGrid(t *testing.T, url0 string) {
	t.Helper()
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"
	_, doc := upload(t, url0+"/networks/add", map[string]string{"grid.csv": csv}, map[string]string{"ods": "1-4"})
	action, _ := doc.Find(`[data-testid="import-save-form"]`).Attr("action")
	if res, err := noRedirect.PostForm(url0+action, url.Values{"name": {"grid"}}); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %v", err)
	}
}

// Training from the dashboard: refused on a built-in and for a bad field
// with the reason; on a stored network the form leads to the job's page,
// whose status, curve and log follow the run; the model then appears on
// the models page and runs in a comparison.
func TestTrainFromDashboard(t *testing.T) {
	testenv.Large(t)
	t.Setenv("ONTIME_TRAINER", testenv.Trainer(t))
	ts := newTestServer(t)
	storeGrid(t, ts.URL)
	form := func(net string, extra url.Values) url.Values {
		v := url.Values{"net": {net}}
		for k, x := range tinyTraining {
			v[k] = x
		}
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	if res, _ := noRedirect.PostForm(ts.URL+"/api/train", form("twobranch", nil)); res.StatusCode != http.StatusBadRequest {
		t.Errorf("training a built-in: %d", res.StatusCode)
	}
	if res, _ := noRedirect.PostForm(ts.URL+"/api/train", form("grid", url.Values{"rounds": {"99"}})); res.StatusCode != http.StatusBadRequest {
		t.Errorf("rounds=99: %d", res.StatusCode)
	}
	if _, body := get(t, ts, "/models"); !strings.Contains(body, `data-testid="train-form-grid"`) || !strings.Contains(body, `data-testid="train-why"`) {
		t.Error("the models page offers no training form for grid, or no reason for the built-ins")
	}
	if res, _ := get(t, ts, "/api/jobs/nope"); res.StatusCode != 404 {
		t.Errorf("unknown job: %d", res.StatusCode)
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, onnx").Run(); err != nil {
		testenv.Missing(t, "PyTorch and onnx for /usr/bin/python3 (make setup installs python3-torch python3-onnx)")
	}
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	// The Models page's form post (a browser asks for HTML) is sent to the
	// job's page; a script (no Accept) gets the job's status as JSON.
	req, _ := http.NewRequest("POST", ts.URL+"/api/train", strings.NewReader(form("grid", nil).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	res, err := noRedirect.Do(req)
	if err != nil || res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/jobs/") {
		t.Fatalf("train: %v %v", res.StatusCode, err)
	}
	if again, err := noRedirect.PostForm(ts.URL+"/api/train", form("grid", nil)); err != nil || again.StatusCode != http.StatusAccepted || again.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a script's train request: %v %v", again.StatusCode, err)
	}
	id := strings.TrimPrefix(res.Header.Get("Location"), "/jobs/")
	if res, body := get(t, ts, "/jobs/"+id); res.StatusCode != 200 || !strings.Contains(body, `data-testid="job-curve"`) {
		t.Errorf("job page: %d", res.StatusCode)
	}
	var ans struct {
		Status struct {
			State, Error string
		}
		Events []json.RawMessage
	}
	testenv.WaitFor(t, "training job "+id+" done", func() bool {
		if ans.Status.State == "failed" {
			_, log := get(t, ts, "/api/jobs/"+id+"/log")
			t.Fatalf("job %+v\n%s", ans.Status, log)
		}
		_, body := get(t, ts, "/api/jobs/"+id)
		json.Unmarshal([]byte(body), &ans)
		return ans.Status.State == "done"
	})
	if len(ans.Events) < 3 {
		t.Errorf("curve points: %s", ans.Events)
	}
	if res, body := get(t, ts, "/plots/job/"+id+".svg"); res.StatusCode != 200 || !strings.Contains(body, "<svg") {
		t.Errorf("curve plot: %d", res.StatusCode)
	}
	if _, body := get(t, ts, "/models"); !strings.Contains(body, `data-testid="model-grid"`) || !strings.Contains(body, "training job "+id) {
		t.Error("the models page lacks the new model or its job")
	}
	if _, body := get(t, ts, "/jobs"); !strings.Contains(body, `data-testid="job-`+id+`"`) {
		t.Error("the jobs page lacks the job")
	}
	if res, _ := noRedirect.PostForm(ts.URL+"/api/jobs/"+id+"/cancel", nil); res.StatusCode != http.StatusConflict {
		t.Errorf("canceling a finished job: %d", res.StatusCode)
	}
}

// Upload a policy from the models page: refused with the reason when it
// does not fit, then listed, offered on the compare page, downloadable,
// and deleted.
func TestUploadModel(t *testing.T) {
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	tiny, err := os.ReadFile(filepath.Join("..", "models", "testdata", "tiny.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t)
	post := func(name string, data []byte) *http.Response {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		w, _ := mw.CreateFormFile("model", name)
		w.Write(data)
		mw.WriteField("net", "twobranch")
		mw.Close()
		res, err := noRedirect.Post(ts.URL+"/models/upload", mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post("broken.onnx", []byte("nope")); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a broken upload: %d", res.StatusCode)
	}
	if res := post("My Policy.onnx", tiny); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	if _, body := get(t, ts, "/models?net=twobranch"); !strings.Contains(body, `data-testid="user-model-my-policy"`) {
		t.Error("the models page does not list the upload")
	}
	if _, body := get(t, ts, "/compare?net=twobranch"); !strings.Contains(body, "user:my-policy") {
		t.Error("the compare page does not offer user:my-policy")
	}
	if res, body := get(t, ts, "/models/user/twobranch/my-policy.onnx"); res.StatusCode != 200 || len(body) != len(tiny) {
		t.Errorf("download: %d, %d bytes", res.StatusCode, len(body))
	}
	if res, _ := noRedirect.PostForm(ts.URL+"/models/user/twobranch/my-policy/delete", nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("delete: %d", res.StatusCode)
	}
	if _, body := get(t, ts, "/compare?net=twobranch"); strings.Contains(body, "user:my-policy") {
		t.Error("a deleted model is still offered")
	}
}
