package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"gonum.org/v1/plot"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/train"
	"github.com/ontime-routing/ontime/web"
)

// handleTrainStart queues a training job from the models page's form (a
// browser is sent to the job's page) or an API client (202 and the job).
func (s *server) handleTrainStart(w http.ResponseWriter, r *http.Request) {
	n, ok := s.formNetwork(w, r)
	if !ok {
		return
	}
	q, err := parseTrainRequest(r.Form)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.Lab.StartTraining(n, q, clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.jobAccepted(w, r, st)
}

// formNetwork parses a posted form and opens the network it names,
// answering the error itself when it cannot.
func (s *server) formNetwork(w http.ResponseWriter, r *http.Request) (*lab.Net, bool) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "bad form: %v", err))
		return nil, false
	}
	n, err := s.network(r.Form)
	if err != nil {
		s.fail(w, r, err)
		return nil, false
	}
	return n, true
}

// jobAccepted answers a started job: JSON for the front end and API
// clients, a redirect to the job's page for a plain form.
func (s *server) jobAccepted(w http.ResponseWriter, r *http.Request, st jobs.Status) {
	if wantsJSON(r) {
		writeJSONStatus(w, http.StatusAccepted, st)
		return
	}
	http.Redirect(w, r, "/jobs/"+st.ID, http.StatusSeeOther)
}

// parseTrainRequest reads the form's fields over train.DefaultRequest.
func parseTrainRequest(f map[string][]string) (train.Request, error) {
	q := train.DefaultRequest()
	get := func(k string) string { return formValue(f, k) }
	if v := get("teachers"); v != "" {
		q.Teachers = nil
		for _, t := range strings.Split(v, ",") {
			q.Teachers = append(q.Teachers, strings.TrimSpace(t))
		}
	}
	if v := get("budgets"); v != "" {
		lo, hi, ok := strings.Cut(v, ",")
		a, err1 := engine.ParseNumber(strings.TrimSpace(lo))
		b, err2 := engine.ParseNumber(strings.TrimSpace(hi))
		if !ok || err1 != nil || err2 != nil {
			return q, engine.Errorf(engine.EINVALID, "budgets=%q: give LO,HI factors, e.g. 0.9,1.1", v)
		}
		q.Budgets = [2]float64{a, b}
	}
	if v := get("size"); v != "" {
		parts := strings.Split(v, ",")
		for i := range q.Size {
			q.Size[i] = 0
			if len(parts) == 4 {
				q.Size[i], _ = strconv.Atoi(strings.TrimSpace(parts[i]))
			}
		}
	}
	var fields []intField
	for _, st := range train.Settings {
		fields = append(fields, intField{st.FormField(), st.Of(&q), st.Min, st.Max})
	}
	if err := parseInts(f, fields...); err != nil {
		return q, err
	}
	return q, q.Check()
}

func (s *server) handleJobs(w http.ResponseWriter, r *http.Request) {
	render(w, r, web.Jobs(s.page(r, "jobs", "Jobs"), s.Lab.Jobs().List("", "")))
}

func (s *server) handleJobPage(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	st, err := s.Lab.Jobs().Get(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	kind, _ := lab.KindOf(st.Kind)
	v := web.JobView{Status: st, Curve: kind.Curve, Report: kind.Report}
	v.Log, _ = s.Lab.Jobs().Log(id)
	var spec lab.TrainJob
	if kind.Curve && s.Lab.Jobs().Spec(id, &spec) == nil {
		v.Command = spec.Command
	}
	p := s.page(r, "jobs", fmt.Sprintf("Job %s", id))
	p.Network = st.Network
	render(w, r, web.Job(p, v))
}

// handleJobJSON answers a job's status with its events from ?from= on.
func (s *server) handleJobJSON(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	st, err := s.Lab.Jobs().Get(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	events, _ := s.Lab.Jobs().Events(id, from)
	writeJSON(w, map[string]any{"status": st, "events": events})
}

func (s *server) handleJobLog(w http.ResponseWriter, r *http.Request) {
	log, err := s.Lab.Jobs().Log(chi.URLParam(r, "id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(log))
}

func (s *server) handleJobCancel(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	st, err := s.Lab.Jobs().Cancel(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, st)
		return
	}
	http.Redirect(w, r, "/jobs/"+id, http.StatusSeeOther)
}

// handleJobPlot draws a training job's learning curve so far.
func (s *server) handleJobPlot(w http.ResponseWriter, r *http.Request) {
	file := chi.URLParam(r, "file")
	id := strings.TrimSuffix(file, path.Ext(file))
	var spec lab.TrainJob
	if err := s.Lab.Jobs().Spec(id, &spec); err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.Lab.Jobs().Get(id)
	if kind, _ := lab.KindOf(st.Kind); err != nil || !kind.Curve {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no training job %s", id))
		return
	}
	raw, _ := s.Lab.Jobs().Events(id, 0)
	w.Header().Set("Cache-Control", "no-store")
	s.figure(w, r, file, figureSize, func() (*plot.Plot, error) { return jobCurve(raw) }, func(w io.Writer) error { return jobCSV(raw, w) })
}

func (s *server) handleJobRestart(w http.ResponseWriter, r *http.Request) {
	st, err := s.Lab.Restart(chi.URLParam(r, "id"), clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.jobAccepted(w, r, st)
}

// maxModelUpload bounds an uploaded ONNX file.
const maxModelUpload = 64 << 20

// handleUploadModel accepts an ONNX policy for a network after checking it
// (lab.AddUserModel) and returns to the models page.
func (s *server) handleUploadModel(w http.ResponseWriter, r *http.Request) {
	up, release, err := s.receiveUpload(w, r, maxModelUpload+1<<20)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	n, err := s.network(up.values)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	models := up.files["model"]
	if len(models) == 0 {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "choose an ONNX file to upload (field model)"))
		return
	}
	file, data := models[0].Name, models[0].Data
	name := strings.TrimSpace(up.values.Get("name"))
	if name == "" {
		name = netfileName(file)
	}
	m, err := s.Lab.AddUserModel(r.Context(), n, name, file, data)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wantsJSON(r) {
		writeJSONStatus(w, http.StatusCreated, m)
		return
	}
	http.Redirect(w, r, "/models?net="+url.QueryEscape(n.Net.Name)+"#user-"+n.Net.Name, http.StatusSeeOther)
}

// netfileName makes a model name from a file name ("My Policy.onnx" → my-policy).
func netfileName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return netfile.SanitizeName(strings.ReplaceAll(base, " ", "-"))
}

func (s *server) userModelNet(w http.ResponseWriter, r *http.Request) (*lab.Net, string, bool) {
	n, err := s.Lab.Open(chi.URLParam(r, "net"))
	if err != nil {
		s.fail(w, r, err)
		return nil, "", false
	}
	return n, chi.URLParam(r, "name"), true
}

func (s *server) handleRenameUserModel(w http.ResponseWriter, r *http.Request) {
	n, name, ok := s.userModelNet(w, r)
	if !ok {
		return
	}
	if err := s.Lab.RenameUserModel(n, name, strings.TrimSpace(r.FormValue("name"))); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/models?net="+url.QueryEscape(n.Net.Name)+"#user-"+n.Net.Name, http.StatusSeeOther)
}

func (s *server) handleDeleteUserModel(w http.ResponseWriter, r *http.Request) {
	n, name, ok := s.userModelNet(w, r)
	if !ok {
		return
	}
	if err := s.Lab.DeleteUserModel(n, name); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/models?net="+url.QueryEscape(n.Net.Name)+"#user-"+n.Net.Name, http.StatusSeeOther)
}

// handleDownloadUserModel serves an uploaded model (NAME.onnx) or its card
// (NAME.json).
func (s *server) handleDownloadUserModel(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Open(chi.URLParam(r, "net"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	file := chi.URLParam(r, "file")
	name, ext := strings.TrimSuffix(file, filepath.Ext(file)), filepath.Ext(file)
	model, card, err := s.Lab.UserModelFile(n, name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	path := map[string]string{".onnx": model, ".json": card}[ext]
	if path == "" {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "download NAME.onnx or NAME.json"))
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s%s"`, n.Net.Name, name, ext))
	http.ServeFile(w, r, path)
}

// handleLearnersStart trains a network's learners as a background job.
func (s *server) handleLearnersStart(w http.ResponseWriter, r *http.Request) {
	n, ok := s.formNetwork(w, r)
	if !ok {
		return
	}
	st, err := s.Lab.StartLearners(n, clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.jobAccepted(w, r, st)
}
