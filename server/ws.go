package server

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/policy"
)

// The websocket protocol is documented in docs/protocol.md.
const (
	writeWait  = 10 * time.Second
	pongWait   = 60 * time.Second
	pingPeriod = pongWait * 9 / 10
	readLimit  = 4096 // the browser only ever sends a small "stop"
)

var upgrader = websocket.Upgrader{
	ReadBufferSize: 1024, WriteBufferSize: 16384,
	// Only pages of this server may open a stream.
	CheckOrigin: func(r *http.Request) bool {
		origin := r.Header.Get("Origin")
		if origin == "" {
			return true // not a browser
		}
		u, err := url.Parse(origin)
		return err == nil && u.Host == r.Host
	},
}

// stream is one websocket: the handler goroutine writes, a reader goroutine
// answers pongs and cancels the context when the browser leaves or says
// stop.
type stream struct {
	conn    *websocket.Conn
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	release func() // the stream's slot under the server's bounds
}

// openStream upgrades the request and takes a slot under the stream bounds;
// past a bound it says so over the socket (a page cannot read the body of
// a refused upgrade), closes, and returns the error.
func (s *server) openStream(w http.ResponseWriter, r *http.Request) (*stream, error) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil, err // the upgrader has answered the request
	}
	ctx, cancel := context.WithCancel(r.Context())
	st := &stream{conn: conn, ctx: ctx, cancel: cancel}
	conn.SetReadLimit(readLimit)
	conn.SetReadDeadline(time.Now().Add(pongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(pongWait)) })
	go func() { // pings keep the connection alive through long computations
		t := time.NewTicker(pingPeriod)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)) != nil {
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer cancel()
		for {
			var msg struct {
				Type string `json:"type"`
			}
			if err := conn.ReadJSON(&msg); err != nil || msg.Type == "stop" {
				return
			}
		}
	}()
	if st.release, err = s.streams.acquire(r); err != nil {
		st.fail(err)
		st.close()
		return nil, err
	}
	return st, nil
}

// send writes one message.
func (st *stream) send(v any) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.ctx.Err(); err != nil {
		return err
	}
	st.conn.SetWriteDeadline(time.Now().Add(writeWait))
	return st.conn.WriteJSON(v)
}

// close ends the stream with a normal close frame.
func (st *stream) close() {
	st.mu.Lock()
	st.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(writeWait))
	st.mu.Unlock()
	st.cancel()
	st.conn.Close()
	if st.release != nil {
		st.release()
	}
}

func (st *stream) fail(err error) {
	st.send(map[string]string{"type": "error", "message": message(err)})
}

// sleep waits d or until the stream ends.
func (st *stream) sleep(d time.Duration) error {
	if d <= 0 {
		return st.ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-st.ctx.Done():
		return st.ctx.Err()
	}
}

type methodJSON struct {
	Name    string `json:"name"`
	Color   string `json:"color"`
	Warning string `json:"warning,omitempty"`
	Error   string `json:"error,omitempty"`
}

type stepJSON struct {
	Type      string  `json:"type"`
	Method    string  `json:"method"`
	Step      int     `json:"step"`
	Link      int     `json:"link"`
	From      string  `json:"from"`
	To        string  `json:"to"`
	Time      float64 `json:"time"`
	Elapsed   float64 `json:"elapsed"`
	Remaining float64 `json:"remaining"`
}

type resultJSON struct {
	Type       string  `json:"type"`
	Method     string  `json:"method"`
	End        string  `json:"end"`
	OnTime     bool    `json:"on_time"`
	Time       float64 `json:"time"`
	Links      int     `json:"links"`
	Remaining  float64 `json:"remaining"`
	DecisionMS float64 `json:"decision_ms"` // wall time per decision
	// HandedOver: a trained model asked outside its training could no
	// longer arrive within the step cap, and its fallback drove the rest.
	HandedOver bool `json:"handed_over,omitempty"`
	// Rate is the method's P(on time) here, estimated on lab.RateSize
	// common test realizations; absent on networks too large for it.
	Rate *float64 `json:"on_time_rate,omitempty"`
	// Trips are the arrival times on those realizations, the page's trips
	// to drive one at a time; null where the trip did not arrive within
	// the budget (an episode ends when its budget runs out).
	Trips []*float64 `json:"trips,omitempty"`
}

// tripsJSON writes arrival times to the millisecond-of-a-minute, NaN (no
// arrival) as null.
func tripsJSON(ts []float64) []*float64 {
	out := make([]*float64, len(ts))
	for i, t := range ts {
		if !math.IsNaN(t) {
			v := math.Round(t*1000) / 1000
			out[i] = &v
		}
	}
	return out
}

// handleCompareWS streams a comparison: every method's steps through one
// realization, step k of every method before step k+1, then the outcomes.
// Route: GET /ws/compare.
func (s *server) handleCompareWS(w http.ResponseWriter, r *http.Request) {
	rq, err := s.parseRun(r.URL.Query())
	if err != nil {
		s.fail(w, r, err) // before the upgrade: a plain HTTP error
		return
	}
	delay := s.StepDelay
	if v := r.URL.Query().Get("speed"); v == "0" {
		delay = 0
	}
	st, err := s.openStream(w, r)
	if err != nil {
		return
	}
	defer st.close()
	start := time.Now()
	n := rq.net
	var pending []string
	for _, m := range rq.methods {
		if !n.Built(m) {
			pending = append(pending, m)
		}
	}
	if len(pending) > 0 {
		// A first use builds the method (solving tables, training a
		// learner): say so, since it can take a while on a large network.
		if st.send(map[string]any{"type": "preparing", "methods": pending}) != nil {
			return
		}
	}
	c, err := n.Compare(st.ctx, lab.CompareRequest{OD: rq.od, Factor: rq.factor, Realization: rq.realization, Methods: rq.methods})
	if err != nil {
		st.fail(err)
		return
	}
	head := map[string]any{"type": "start", "network": n.Net.Name, "od": n.Net.ODString(rq.od), "budget": c.Budget,
		"factor": rq.factor, "let_time": c.LETTime, "realization": c.Realization}
	var ms []methodJSON
	longest := 0
	for _, ro := range c.Rollouts {
		ms = append(ms, methodJSON{Name: ro.Method, Color: policy.Color(ro.Method), Warning: ro.Warning, Error: ro.Err})
		longest = max(longest, len(ro.Steps))
	}
	head["methods"] = ms
	if st.send(head) != nil {
		return
	}
	elapsed := make([]float64, len(c.Rollouts))
	for k := 0; k < longest; k++ {
		for i, ro := range c.Rollouts {
			if k >= len(ro.Steps) {
				continue
			}
			step := ro.Steps[k]
			l := n.Net.Links[step.Link]
			elapsed[i] += step.Time
			msg := stepJSON{Type: "step", Method: ro.Method, Step: k, Link: step.Link, From: n.Net.Nodes[l.From].ID, To: n.Net.Nodes[l.To].ID,
				Time: step.Time, Elapsed: elapsed[i], Remaining: c.Budget - elapsed[i]}
			if st.send(msg) != nil {
				return
			}
		}
		if k == 0 {
			s.Log.Debug("compare: first step", "network", n.Net.Name, "ms", time.Since(start).Milliseconds())
		}
		if st.sleep(delay) != nil {
			return
		}
	}
	for _, ro := range c.Rollouts {
		if ro.Err != "" {
			continue
		}
		res := resultJSON{Type: "result", Method: ro.Method, DecisionMS: ro.DecisionMS, End: lab.EndName(ro.Result.End), OnTime: ro.Result.OnTime, Time: ro.Result.Time,
			Links: ro.Result.Links, Remaining: c.Budget - ro.Result.Time, HandedOver: ro.Result.HandedOver}
		if t, ok, err := n.OnTimeTrips(st.ctx, ro.Method, rq.od, rq.factor); err == nil && ok {
			res.Rate, res.Trips = &t.Rate, tripsJSON(t.Times)
		}
		if st.send(res) != nil {
			return
		}
	}
	st.send(map[string]any{"type": "done", "elapsed_ms": time.Since(start).Milliseconds()})
}

// handleLiveWS streams episodes of the common test pools: running rates
// after every chunk, then the plots.
// Route: GET /ws/live.
func (s *server) handleLiveWS(w http.ResponseWriter, r *http.Request) {
	rq, err := s.parseRun(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.openStream(w, r)
	if err != nil {
		return
	}
	defer st.close()
	n := rq.net
	let, _ := n.Validate(rq.od, rq.factor)
	var ms []methodJSON
	for _, m := range rq.methods {
		ms = append(ms, methodJSON{Name: m, Color: policy.Color(m), Warning: n.Scope(m, rq.od, rq.factor)})
	}
	days, note, err := n.Days(rq.episodes) // what Live plays: fewer where a network's days do not fit
	if err != nil {
		st.fail(err)
		return
	}
	if st.send(map[string]any{"type": "start", "network": n.Net.Name, "od": n.Net.ODString(rq.od), "budget": rq.factor * let,
		"factor": rq.factor, "episodes": days, "note": note, "methods": ms}) != nil {
		return
	}
	chunk := max(100, min(2000, days/20/100*100))
	res, err := n.Live(st.ctx, lab.LiveRequest{OD: rq.od, Factor: rq.factor, Methods: rq.methods, Episodes: rq.episodes, Chunk: chunk, Curve: lab.LiveCurveFactors},
		func(u lab.LiveUpdate) error {
			return st.send(map[string]any{"type": "progress", "done": u.Done, "total": u.Total, "fraction": u.Fraction, "curve": u.Curve, "rates": ratesJSON(u.Rates)})
		})
	if err != nil {
		if st.ctx.Err() == nil {
			st.fail(err)
		} else {
			s.Log.Info("live stream stopped by the browser", "network", n.Net.Name)
		}
		return
	}
	s.Log.Debug("live stream played all its days", "network", n.Net.Name, "days", days)
	fig, err := res.Figures()
	if err != nil {
		st.fail(err)
		return
	}
	size := liveSize
	if r.URL.Query().Get("narrow") == "1" { // a phone's screen: drawn narrower, so its text reads
		size = liveNarrowSize
	}
	hist, cdf, cur, err := livePlots(fig, size)
	if err != nil {
		st.fail(err)
		return
	}
	// Each figure comes with the data it draws, as CSV (its download).
	if st.send(map[string]any{"type": "plots", "histogram": string(hist.SVG), "cdf": string(cdf.SVG), "curve": string(cur.SVG),
		"histogram_csv": hist.CSV, "cdf_csv": cdf.CSV, "curve_csv": cur.CSV,
		"factors": res.Factors, "curve_rates": res.Curve}) != nil {
		return
	}
	st.send(map[string]any{"type": "done", "rates": ratesJSON(res.Rates)})
}

type rateJSON struct {
	Method string  `json:"method"`
	OnTime int     `json:"on_time"`
	N      int     `json:"n"`
	Rate   float64 `json:"rate"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	// HandedOver: days a trained model handed to its fallback (outside
	// its training).
	HandedOver int    `json:"handed_over,omitempty"`
	Error      string `json:"error,omitempty"`
}

func ratesJSON(rs []lab.Rate) []rateJSON {
	out := make([]rateJSON, len(rs))
	for i, r := range rs {
		out[i] = rateJSON{Method: r.Method, OnTime: r.OnTime, N: r.N, Rate: r.Rate, Lo: r.Lo, Hi: r.Hi, HandedOver: r.HandedOver, Error: r.Err}
	}
	return out
}
