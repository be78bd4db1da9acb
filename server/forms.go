package server

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

// runQuery is the state of a compare, live or bench page, read from the URL.
type runQuery struct {
	net         *lab.Net
	od          engine.OD
	factor      float64
	realization int
	episodes    int
	methods     []string
}

// network opens the network named by ?net= (ringtown by default).
func (s *server) network(q url.Values) (*lab.Net, error) {
	name := q.Get("net")
	if name == "" {
		name = builtin.Ringtown
	}
	return s.Lab.Open(name)
}

// parseRun reads ?net, o, d, f, r, n and m with defaults: the network's
// first OD pair, factor 1, realization 0, 2000 episodes, and a small set of
// methods.
func (s *server) parseRun(q url.Values) (*runQuery, error) {
	n, err := s.network(q)
	if err != nil {
		return nil, err
	}
	od, factor := n.Opening()
	rq := &runQuery{net: n, factor: factor, episodes: 2000}
	if len(n.Net.ODs) > 0 {
		rq.od = od
	} else {
		rq.od = engine.OD{Origin: 0, Destination: len(n.Net.Nodes) - 1}
	}
	if v := q.Get("o"); v != "" {
		if rq.od.Origin, err = node(n, "o", v, n.Net.OriginIndex); err != nil {
			return nil, err
		}
	}
	if v := q.Get("d"); v != "" {
		if rq.od.Destination, err = node(n, "d", v, n.Net.NodeIndex); err != nil {
			return nil, err
		}
	}
	if v := q.Get("f"); v != "" {
		// NaN passes every range check by failing its comparisons, so it is
		// refused here with Inf and non-positive factors.
		if rq.factor, err = engine.ParseNumber(v); err != nil || !(rq.factor > 0) {
			return nil, fieldErr("f", "budget factor f=%q: give a positive number", v)
		}
	}
	if v := q.Get("r"); v != "" {
		if rq.realization, err = strconv.Atoi(v); err != nil || rq.realization < 0 {
			return nil, fieldErr("r", "realization r=%q: give a whole number ≥ 0", v)
		}
	}
	if v := q.Get("n"); v != "" {
		if rq.episodes, err = strconv.Atoi(v); err != nil || rq.episodes < 1 || rq.episodes > 200000 {
			return nil, fieldErr("n", "episodes n=%q: give 1 to 200000", v)
		}
	}
	rq.methods = defaultMethods(n)
	if m := q["m"]; len(m) > 0 {
		if rq.methods, err = parseMethods(n, m); err != nil {
			return nil, err
		}
		if len(rq.methods) == 0 {
			return nil, fieldErr("m", "no method chosen: tick at least one")
		}
	}
	if _, err := n.Validate(rq.od, rq.factor); err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Field == "" {
			e.Field = "o,d" // the pair itself: same node, or no way there
		}
		return nil, err
	}
	return rq, nil
}

// fieldErr is a bad query field's error, naming the field so that a page
// can reset it (parseRunForPage).
func fieldErr(field, format string, args ...any) error {
	e := engine.Errorf(engine.EINVALID, format, args...)
	e.Field = field
	return e
}

// parseRunForPage reads a page's run query forgivingly: each bad field is
// reset to its default and said in a note, and the page renders; only a
// network that cannot be opened fails. Streams and the API stay strict.
func (s *server) parseRunForPage(q url.Values) (*runQuery, []string, error) {
	q = maps.Clone(q)
	var notes []string
	for range 8 { // each round drops one bad field; there are fewer than 8
		rq, err := s.parseRun(q)
		var e *engine.Error
		if err == nil || !errors.As(err, &e) || e.Code != engine.EINVALID || e.Field == "" {
			return rq, notes, err
		}
		notes = append(notes, e.Message+" — reset to its default")
		for _, f := range strings.Split(e.Field, ",") {
			q.Del(f)
		}
	}
	rq, err := s.parseRun(q)
	return rq, notes, err
}

// parseMethods reads m= values (each a comma-separated list) into distinct
// method names, each one the network offers.
func parseMethods(n *lab.Net, values []string) ([]string, error) {
	offered := n.Methods()
	out, err := methodNames(values, len(offered))
	if err != nil {
		return nil, err
	}
	for _, m := range out {
		if !slices.ContainsFunc(offered, func(o lab.MethodInfo) bool { return o.Name == m }) {
			return nil, fieldErr("m", "method m=%q is not offered on %s", m, n.Net.Name)
		}
	}
	return out, nil
}

// methodNames reads m= values (each a comma-separated list) into distinct
// names, in order, in one pass: a list of more distinct names than the
// most that can be offered is refused as soon as it is seen (120,000
// names, checked against each other, took 22.8 CPU-s before their 400).
func methodNames(values []string, most int) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name == "" || seen[name] {
				continue
			}
			if len(out) == most {
				return nil, fieldErr("m", "more than %d distinct methods: at most the %d offered", most, most)
			}
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, nil
}

func node(n *lab.Net, field, id string, index func(string) (int, bool)) (int, error) {
	i, ok := index(id)
	if !ok {
		return 0, fieldErr(field, "%s=%q: network %s has no such node", field, id, n.Net.Name)
	}
	return i, nil
}

// defaultMethods are the registry's default comparison.
func defaultMethods(n *lab.Net) []string {
	var out []string
	for _, m := range n.Methods() {
		if m.Compare {
			out = append(out, m.Name)
		}
	}
	return out
}

// form turns a query into the page's form state, and says why a method
// the query asked for cannot run (it is shown unchecked, with the reason).
func (s *server) form(rq *runQuery) (web.RunForm, []string) {
	var notes []string
	n := rq.net
	f := web.RunForm{Net: n.Net.Name, Origin: n.Net.Nodes[rq.od.Origin].ID, Dest: n.Net.Nodes[rq.od.Destination].ID,
		Factor: rq.factor, Lo: 0.8, Hi: 1.2, Realization: rq.realization, Episodes: rq.episodes, Presets: n.Net.BudgetFactors()}
	if card, err := n.Card(); err == nil && len(card.BudgetFactors) == 2 {
		f.Lo, f.Hi = card.BudgetFactors[0], card.BudgetFactors[1]
	}
	f.Lo, f.Hi = min(f.Lo, rq.factor, slices.Min(f.Presets)), max(f.Hi, rq.factor, slices.Max(f.Presets))
	if !n.RatesOnPages() {
		f.RateLinkLimit = lab.RateLinkLimit
	}
	for _, nd := range n.Net.Nodes {
		if !engine.IsRoadPoint(nd.ID) { // the middle of a parallel road, not a place to go
			f.Nodes = append(f.Nodes, nd.ID)
		}
	}
	for _, rf := range n.RouteFormats() {
		f.RouteFormats = append(f.RouteFormats, [2]string{rf.Name, rf.Label})
	}
	for _, m := range n.Methods() {
		opt := web.MethodOption{Name: m.Name, Label: m.Label, Doc: m.Doc, Reference: m.Reference, Color: m.Color, Learned: m.Learned, Bound: m.Bound,
			Checked: slices.Contains(rq.methods, m.Name), NeedsTraining: m.Learner && !n.Built(m.Name)}
		if m.NetworkModel {
			// Opening the model is quick; learners are only built when run.
			if _, err := n.Policy(m.Name); err != nil {
				opt.Unavailable = s.Lab.ModelUnavailable(n.Net.Name, err)
				if opt.Checked {
					notes = append(notes, fmt.Sprintf("%s was asked for but cannot run: %s", m.Name, opt.Unavailable))
				}
				opt.Checked = false
			}
		}
		f.Methods = append(f.Methods, opt)
	}
	return f, notes
}

// flags are the warnings a request earns: methods asked outside what they
// were trained for, and methods that cannot run.
func flags(rq *runQuery) []string {
	var out []string
	for _, m := range rq.methods {
		if w := rq.net.Scope(m, rq.od, rq.factor); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func (s *server) page(r *http.Request, active, title string) web.Page {
	p := web.Page{Title: title, Active: active, Version: s.Version, Network: builtin.Ringtown,
		TileURL: s.Tiles.URL, TileAttribution: s.Tiles.Attribution}
	// The nav carries the page's network along only when it is one (an
	// unknown ?net= is not echoed into every link).
	asked := r.URL.Query().Get("net")
	for _, n := range s.Lab.Networks() {
		p.Networks = append(p.Networks, web.NetLink{Name: n.Name, Available: n.Available})
		if n.Name == asked {
			p.Network = asked
		}
	}
	return p
}

// formValue is a form field's first value, trimmed ("" when absent).
func formValue(f map[string][]string, k string) string {
	if v := f[k]; len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	return ""
}

// intField is an integer form field and its allowed range.
type intField struct {
	key      string
	dst      *int
	min, max int
}

// parseInts reads the integer fields present in f into their
// destinations, naming the first that is not a number in its range.
func parseInts(f map[string][]string, fields ...intField) error {
	for _, p := range fields {
		if v := formValue(f, p.key); v != "" {
			x, err := strconv.Atoi(v)
			if err != nil || x < p.min || x > p.max {
				return engine.Errorf(engine.EINVALID, "%s=%q: give %d to %d", p.key, v, p.min, p.max)
			}
			*p.dst = x
		}
	}
	return nil
}
