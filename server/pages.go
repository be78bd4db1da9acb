package server

import (
	"net/http"
	"slices"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/web"
)

func render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	c.Render(r.Context(), w)
}

func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no page at %s", r.URL.Path))
}

func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	render(w, r, web.Home(s.page(r, "networks", "Networks"), s.Lab.Networks()))
}

func (s *server) handleNetwork(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Open(chi.URLParam(r, "name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, "networks", "Network "+n.Net.Name)
	p.Network = n.Net.Name
	v := web.NetworkView{Name: n.Net.Name, Description: n.Net.Description, Nodes: len(n.Net.Nodes), Links: len(n.Net.Links),
		Coords: string(n.Net.Coords), Correlation: n.Model.Spec.Model, StepCap: n.Net.StepCap}
	s.storedInfo(r, n, &v)
	for _, od := range n.Net.ODs {
		tree := n.Net.LET(od.Destination)
		v.ODs = append(v.ODs, web.ODView{Name: n.Net.ODString(od), LETTime: tree.Time[od.Origin], Links: len(tree.Path(od.Origin, n.Net))})
	}
	render(w, r, web.Network(p, v))
}

func (s *server) handleCompare(w http.ResponseWriter, r *http.Request) {
	s.runPage(w, r, "compare", "Compare routes on ", web.Compare)
}

func (s *server) handleLive(w http.ResponseWriter, r *http.Request) {
	s.runPage(w, r, "live", "Live reliability on ", web.Live)
}

// runPage renders a page whose state is a run query (compare, live), with
// the request's out-of-range flags.
func (s *server) runPage(w http.ResponseWriter, r *http.Request, active, title string, view func(web.Page, web.RunForm) templ.Component) {
	rq, err := s.parseRun(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, active, title+rq.net.Net.Name)
	p.Network, p.Flags = rq.net.Net.Name, flags(rq)
	render(w, r, view(p, s.form(rq)))
}

func (s *server) handleTeach(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Teaching()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	nohist := r.URL.Query().Get("nohist") != ""
	title := "Why history matters: the five-node example"
	if nohist {
		title = "The five-node example without history"
	}
	p := s.page(r, "teach", title)
	p.Network = lab.Example
	first := n.Net.Links[n.Net.Out(n.Net.ODs[0].Origin)[0]]
	sd := first.SD()
	let, _ := n.Validate(n.Net.ODs[0], 1)
	render(w, r, web.Teach(p, web.TeachForm{Observed: first.Mean, Lo: max(linktime.Floor, first.Mean-3*sd), Hi: first.Mean + 3*sd,
		Mean: first.Mean, SD: sd, Budget: let, Optimum: policy.TwoBranchOptimum(), NoHistory: nohist}))
}

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
		v.Job = st.ID
		if st.State == "done" && rep != nil {
			v.Report, v.Colors = rep, lab.Colors(rep.Methods)
			v.Methods, v.Budgets, v.Pools, v.PoolSize = jspec.Methods, jspec.BudgetText(), jspec.Pools, jspec.PoolSize
		}
	}
	render(w, r, web.Bench(p, v))
}

func (s *server) handleModels(w http.ResponseWriter, r *http.Request) {
	var ms []web.ModelView
	for _, info := range s.Lab.Networks() {
		mv := web.ModelView{Network: info.Name, File: policy.ModelFile(info.Name, "")}
		n, err := s.Lab.Open(info.Name)
		if err != nil {
			mv.Err = "network unavailable: " + info.Reason
		} else if card, err := n.Card(); err != nil {
			mv.Err = "no trained model: " + err.Error()
		} else {
			mv.Card = card
			if _, err := n.Policy("gpght"); err != nil {
				mv.Err = "the model cannot run here: " + err.Error()
				mv.Card = nil
			}
			for _, a := range policy.Ablations {
				if c, err := policy.ReadModelCard(s.Lab.Options().ModelsDir, info.Name, a); err == nil {
					mv.Controls = append(mv.Controls, c)
				}
			}
		}
		ms = append(ms, mv)
	}
	render(w, r, web.Models(s.page(r, "models", "Models"), ms))
}

func (s *server) handleAbout(w http.ResponseWriter, r *http.Request) {
	v := web.AboutView{Files: builtin.DataFiles, Floor: linktime.Floor}
	for _, m := range lab.Methods() {
		v.Methods = append(v.Methods, web.MethodOption{Name: m.Name, Label: m.Label, Doc: m.Doc, Reference: m.Reference, Color: m.Color})
	}
	keys := make([]string, 0, len(builtin.Licences))
	for k := range builtin.Licences {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v.Licences = append(v.Licences, web.Licence{Key: k, Text: builtin.Licences[k]})
	}
	render(w, r, web.About(s.page(r, "about", "About the numbers"), v))
}
