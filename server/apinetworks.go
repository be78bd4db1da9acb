package server

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

// storedJSON is a network just stored through the API, with its import
// report (format, notes, fit).
type storedJSON struct {
	Name        string   `json:"name"`
	Nodes       int      `json:"nodes"`
	Links       int      `json:"links"`
	Correlation string   `json:"correlation"`
	ODs         []string `json:"ods"`
	Report      any      `json:"report"`
}

// handleNetworkCreate reads an upload as the Add page does (files,
// observations, name, ods and the import settings as form fields) and
// stores the network in one request, for scripts: 201 with what was
// stored, or 422 with the report's problems, each naming its file, line
// and field. Nothing stored is touched when it fails.
// Route: POST /api/networks.
func (s *server) handleNetworkCreate(w http.ResponseWriter, r *http.Request) {
	form, values, imp, err := s.previewUpload(w, r)
	if err != nil {
		if imp != nil && imp.Report != nil && len(imp.Report.Problems) > 0 {
			writeJSONStatus(w, http.StatusUnprocessableEntity, map[string]any{"error": message(err), "report": imp.ReportHead(maxShownProblems), "problems_total": imp.ProblemsTotal()})
			return
		}
		s.fail(w, r, err)
		return
	}
	if ods := engine.SplitList(values.Get("ods")); len(ods) > 0 {
		if imp, err = imp.WithODs(ods); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	name := form.Name
	if name == "" {
		name = imp.Name
	}
	if err := s.Lab.Save(r.Context(), imp, name); err != nil {
		s.fail(w, r, err)
		return
	}
	out := storedJSON{Name: name, Nodes: len(imp.Net.Nodes), Links: len(imp.Net.Links), Correlation: imp.Net.Correlation.Model, ODs: imp.ODStrings(), Report: imp.Report}
	w.Header().Set("Location", "/api/networks/"+name)
	writeJSONStatus(w, http.StatusCreated, out)
}

// maxShownProblems bounds the problems a 422 answer lists (an import
// reports up to netfile.MaxProblems): the first ones locate the fault,
// and problems_total says how many there were.
const maxShownProblems = 10

// handleNetworkDelete deletes a stored network (built-ins cannot be).
// Route: DELETE /api/networks/{name}.
func (s *server) handleNetworkDelete(w http.ResponseWriter, r *http.Request) {
	if err := s.Lab.DeleteNetwork(r.Context(), chi.URLParam(r, "name")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// comparisonJSON is a comparison: every method's drive through one
// realization.
type comparisonJSON struct {
	Network     string      `json:"network"`
	OD          string      `json:"od"`
	Budget      float64     `json:"budget"`
	LETTime     float64     `json:"let_time"`
	Realization int         `json:"realization"`
	Drives      []driveJSON `json:"drives"`
}

type driveJSON struct {
	Method     string    `json:"method"`
	Nodes      []string  `json:"nodes"`
	Links      []int     `json:"links"`
	Times      []float64 `json:"times"` // minutes on each link
	Arrival    float64   `json:"time"`
	OnTime     bool      `json:"on_time"`
	End        string    `json:"end"`
	DecisionMS float64   `json:"decision_ms"`
	Warning    string    `json:"warning,omitempty"`
	// HandedOver: the model, outside its training, was handed over to
	// its fallback on this drive (engine.HandsOver).
	HandedOver bool   `json:"handed_over,omitempty"`
	Error      string `json:"error,omitempty"`
}

// handleCompareJSON answers a comparison (?net, o, d, f, r, m as the
// Compare page) in one response: what the page's stream shows, step by step.
// Route: GET /api/compare.
func (s *server) handleCompareJSON(w http.ResponseWriter, r *http.Request) {
	n, c, err := s.compareQuery(r, nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	net := n.Net
	out := comparisonJSON{Network: net.Name, OD: net.ODString(c.OD), Budget: c.Budget, LETTime: c.LETTime, Realization: c.Realization, Drives: []driveJSON{}}
	for _, ro := range c.Rollouts {
		d := driveJSON{Method: ro.Method, Nodes: []string{}, Arrival: ro.Result.Time, OnTime: ro.Result.OnTime,
			End: lab.EndName(ro.Result.End), DecisionMS: ro.DecisionMS, Warning: ro.Warning, HandedOver: ro.Result.HandedOver, Error: ro.Err}
		links, times := ro.Route()
		d.Links, d.Times = engine.LinkNumbers(links), times
		if len(d.Links) > 0 {
			d.Nodes = net.PathNodes(links)
		}
		if ro.Err != "" {
			d.End = ""
		}
		out.Drives = append(out.Drives, d)
	}
	writeJSON(w, out)
}

// compareQuery runs the comparison a request's query names (?net, o, d, f,
// r, m), after check has accepted the run (nil: no check).
func (s *server) compareQuery(r *http.Request, check func(*lab.Net) error) (*lab.Net, *lab.Comparison, error) {
	rq, err := s.parseRun(r.URL.Query())
	if err != nil {
		return nil, nil, err
	}
	if check != nil {
		if err := check(rq.net); err != nil {
			return nil, nil, err
		}
	}
	c, err := rq.net.Compare(r.Context(), lab.CompareRequest{OD: rq.od, Factor: rq.factor, Realization: rq.realization, Methods: rq.methods})
	return rq.net, c, err
}

// isAPI: requests under /api/ (and the readiness probe) are answered in
// JSON whatever their Accept header says.
func isAPI(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/readyz"
}

// handleReady answers whether the dashboard is ready (lab.Readiness): 200
// when it is, 503 with the same JSON while it warms up or a model cannot
// load, so that a load balancer or a cluster waits for it.
// Route: GET /readyz.
func (s *server) handleReady(w http.ResponseWriter, r *http.Request) {
	rd := s.Lab.Ready()
	code := http.StatusOK
	if !rd.Ready {
		code = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "10")
	}
	writeJSONStatus(w, code, rd)
}
