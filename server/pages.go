package server

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

func render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	c.Render(r.Context(), w)
}

func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no page at %s", engine.Excerpt(r.URL.Path)))
}

// handleHome answers GET /.
func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	render(w, r, web.Home(s.page(r, "networks", "ontime: arrive on time"), s.Lab.Networks(), builtin.Ringtown))
}

// handleNetwork answers GET /networks/{name}.
func (s *server) handleNetwork(w http.ResponseWriter, r *http.Request) {
	net, build, err := s.networkFacts(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, "networks", "Network "+net.Name)
	p.Network, p.Preload = net.Name, web.MapURL(net.Name)
	v := web.NetworkView{Name: net.Name, Description: net.Description, Nodes: len(net.Nodes), Links: len(net.Links),
		Coords: string(net.Coords), Correlation: net.Correlation.Model, StepCap: net.StepCap, Building: build}
	s.storedInfo(r, net.Name, &v)
	for _, x := range lab.ExportFormats() {
		v.Exports = append(v.Exports, web.ExportView{Format: x.Name, Label: x.Label, Keeps: x.Keeps})
	}
	for _, od := range lab.ODRoutes(net) {
		v.ODs = append(v.ODs, web.ODView{Name: od.Name, LETTime: od.LETTime, Links: len(od.LETPath)})
	}
	render(w, r, web.Network(p, v))
}

// networkFacts reads the network a request names for its map and facts,
// which need no link-time model: the page does not wait for the model
// (a city's takes as long again as reading it; a dense one, minutes, whose
// progress it shows). Its map data starts being encoded at once, so that it
// is ready or under way when the page's preload asks for it.
func (s *server) networkFacts(r *http.Request) (*engine.Network, *lab.ModelBuild, error) {
	name := chi.URLParam(r, "name")
	net, err := s.Lab.Graph(name)
	if err != nil {
		return nil, nil, err
	}
	go s.maps.get(net, pagesLayout)
	if b, building := s.Lab.Building(name); building {
		return net, &b, nil
	}
	return net, nil, nil
}

// handleModelStatus says whether a network's link-time model is ready
// (200), or how far its build is (503 with its progress): the network
// page's notice follows it.
// Route: GET /api/networks/{name}/model.
func (s *server) handleModelStatus(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Open(chi.URLParam(r, "name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, map[string]any{"ready": true, "correlation": n.Model.Spec.Model})
}

// handleCompare answers GET /compare.
func (s *server) handleCompare(w http.ResponseWriter, r *http.Request) {
	s.runPage(w, r, "compare", "Compare routes on ", web.Compare)
}

// handleLive answers GET /live.
func (s *server) handleLive(w http.ResponseWriter, r *http.Request) {
	s.runPage(w, r, "live", "Live reliability on ", web.Live)
}

// runPage renders a page whose state is a run query (compare, live), with
// the request's out-of-range flags.
func (s *server) runPage(w http.ResponseWriter, r *http.Request, active, title string, view func(web.Page, web.RunForm) templ.Component) {
	rq, notes, err := s.parseRunForPage(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, active, title+rq.net.Net.Name)
	f, unavailable := s.form(rq)
	if r.URL.Query().Get("m") != "" { // named in the URL, not the defaults
		notes = append(notes, unavailable...)
	}
	p.Network, p.Flags, p.Notes, p.Preload = rq.net.Net.Name, flags(rq), notes, web.MapURL(rq.net.Net.Name)
	render(w, r, view(p, f))
}

// handleLessons lists the lessons.
// Route: GET /teach.
func (s *server) handleLessons(w http.ResponseWriter, r *http.Request) {
	var ls []web.LessonLink
	for _, l := range lab.Lessons {
		ls = append(ls, web.LessonLink(l))
	}
	render(w, r, web.Lessons(s.page(r, "teach", "Lessons in reliability routing"), ls))
}

// lessonView places a lesson among the lessons.
func lessonView(slug string, present bool) (web.LessonView, bool) {
	for i, l := range lab.Lessons {
		if l.Slug != slug {
			continue
		}
		v := web.LessonView{LessonLink: web.LessonLink(l), Index: i + 1, Count: len(lab.Lessons), Present: present, Methods: lab.LessonWords(l.Slug)}
		if i > 0 {
			prev := web.LessonLink(lab.Lessons[i-1])
			v.Prev = &prev
		}
		if i+1 < len(lab.Lessons) {
			next := web.LessonLink(lab.Lessons[i+1])
			v.Next = &next
		}
		return v, true
	}
	return web.LessonView{}, false
}

// handleLesson renders one lesson; "history" is the five-node page.
// Route: GET /teach/{lesson}.
func (s *server) handleLesson(w http.ResponseWriter, r *http.Request) {
	v, ok := lessonView(chi.URLParam(r, "lesson"), r.URL.Query().Get("present") != "")
	if !ok {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no lesson %q: see /teach", chi.URLParam(r, "lesson")))
		return
	}
	if v.Slug == "history" {
		s.teachHistory(w, r, &v)
		return
	}
	if v.Slug == learningLesson {
		v.Unavailable = s.learningUnavailable()
	}
	p := s.page(r, "teach", v.Title)
	p.Present = v.Present
	render(w, r, web.Lesson(p, v))
}

// learningLesson draws a trained model's validation curve.
const learningLesson = "learning"

// learningUnavailable says in one sentence why the learning lesson has no
// curve here ("" when it has one), so the page asks for nothing that fails.
func (s *server) learningUnavailable() string {
	n, err := s.lessonNetwork()
	if err != nil {
		return "This lesson draws a trained model's learning curve, and its network cannot be opened here: " + err.Error()
	}
	if _, err = n.Card(); err == nil {
		return ""
	}
	return "This lesson draws a trained model's learning curve. " + s.Lab.ModelUnavailable(n.Net.Name, err)
}

func (s *server) teachHistory(w http.ResponseWriter, r *http.Request, v *web.LessonView) {
	n, err := s.Lab.Teaching()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	nohist := r.URL.Query().Get("nohist") != ""
	title := v.Title // the lesson's one name, as the index lists it
	if nohist {
		title = v.Title + ": without history"
	}
	p := s.page(r, "teach", title)
	p.Network, p.Present = builtin.Example, v.Present
	t := n.TeachSetup()
	scored := lab.HistoryScoreMethods(!nohist)
	render(w, r, web.Teach(p, web.TeachForm{Observed: t.Observed, Lo: t.Lo, Hi: t.Hi, Mean: t.Mean, SD: t.SD, Budget: t.Budget,
		Optimum: t.Optimum, NoHistory: nohist, Lesson: v, Scored: scored, Words: lab.MethodWords(scored)}))
}

// handleBench answers GET /bench.
func (s *server) handleBench(w http.ResponseWriter, r *http.Request) {
	n, err := s.network(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, "bench", "Benchmark "+n.Net.Name)
	p.Network = n.Net.Name
	spec := n.DefaultBenchSpec()
	v := web.BenchView{Net: n.Net.Name, Methods: spec.Methods, Budgets: spec.BudgetText(), Pools: spec.Pools, PoolSize: spec.PoolSize}
	if st, rep, jspec, ok := s.Lab.LatestBench(n.Net.Name); ok {
		v.Job, v.Source = st.ID, st.Source
		if st.State == "done" && rep != nil {
			v.Report, v.Colors = rep, lab.Colors(rep.Methods)
			v.Methods, v.Budgets, v.Pools, v.PoolSize = jspec.Methods, jspec.BudgetText(), jspec.Pools, jspec.PoolSize
		}
	} else if rep, err := n.Published(); err != nil {
		s.Log.Warn("published results not shown", "network", n.Net.Name, "err", err)
	} else if rep != nil {
		v.Report, v.Colors, v.Published = rep, lab.Colors(rep.Methods), true
		// The form asks for the published run's budgets again, so that Run
		// reproduces the table shown (its methods may need learners or a
		// model this server lacks: those stay as the defaults say).
		v.Budgets = lab.BenchSpec{Budgets: rep.Budgets}.BudgetText()
	}
	render(w, r, web.Bench(p, v))
}

// handleModels answers GET /models.
func (s *server) handleModels(w http.ResponseWriter, r *http.Request) {
	var ms []web.ModelView
	for _, m := range s.Lab.Models() {
		ms = append(ms, web.ModelView{Network: m.Network, File: m.File, Card: m.Card, Err: m.Err, Controls: m.Controls,
			TrainWhy: s.Lab.TrainingAvailable(m.Network), TrainJobs: s.Lab.TrainingJobs(m.Network)})
		if n, err := s.Lab.Open(m.Network); err == nil && s.Lab.StateError() == nil {
			ms[len(ms)-1].User, ms[len(ms)-1].CanUpload = s.Lab.UserModels(n), true
		}
	}
	render(w, r, web.Models(s.page(r, "models", "Models"), ms))
}

// handleAbout answers GET /about.
func (s *server) handleAbout(w http.ResponseWriter, r *http.Request) {
	a := lab.AboutInfo()
	v := web.AboutView{Files: a.Files, Floor: a.Floor}
	for _, m := range a.Methods {
		v.Methods = append(v.Methods, web.MethodOption{Name: m.Name, Label: m.Label, Doc: m.Doc, Reference: m.Reference, Skewed: m.Skewed, Color: m.Color})
	}
	for _, kv := range a.Licences {
		v.Licences = append(v.Licences, web.Licence{Key: kv[0], Text: kv[1]})
	}
	render(w, r, web.About(s.page(r, "about", "About the numbers"), v))
}
