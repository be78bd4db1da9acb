package depart

import (
	"context"
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Question is the commuter's question on one pair: arrive by ArriveBy,
// leaving at Depart (each method's chances) or at any time over the Window
// before the deadline, every Every minutes (the latest departure that
// reaches Reliability, and the curve).
type Question struct {
	Net         *engine.Network
	Model       *linktime.Gaussian
	OD          engine.OD
	Methods     []string
	Days        int
	ArriveBy    float64
	Depart      *float64 // nil: the window
	Window      float64  // minutes before the deadline (default 180)
	Every       float64  // minutes between departures (default 5)
	Reliability float64  // default 0.95
	Models      string
}

// Latest is a method's latest departure that reaches the reliability
// (nil where none on the grid does), with its interval.
type Latest struct {
	Method string  `json:"method"`
	Latest *string `json:"latest"`
	Lo95   *string `json:"lo95"`
	Hi95   *string `json:"hi95"`
	Rate   float64 `json:"rate"`
	Bound  bool    `json:"bound,omitempty"`
}

// Answer is the question's answer; Latest only for the window form.
type Answer struct {
	Network     string   `json:"network"`
	OD          string   `json:"od"`
	ArriveBy    string   `json:"arrive_by"`
	Depart      string   `json:"depart,omitempty"`
	Reliability float64  `json:"reliability"`
	Every       float64  `json:"every_min,omitempty"`
	Days        int      `json:"days"`
	Latest      []Latest `json:"latest,omitempty"`
	Curves      []Curve  `json:"curves"`
}

func fieldError(field, format string, args ...any) error {
	e := engine.Errorf(engine.EINVALID, format, args...)
	e.Field = field
	return e
}

// check fills the defaults and refuses what cannot be asked, naming the
// field.
func (q *Question) check() error {
	if q.Window == 0 {
		q.Window = 180
	}
	if q.Every == 0 {
		q.Every = 5
	}
	if q.Reliability == 0 {
		q.Reliability = 0.95
	}
	switch {
	case !(q.ArriveBy >= 0 && q.ArriveBy < engine.MinutesPerDay):
		return fieldError("arrive_by", "arrive by %v: not a time of day", q.ArriveBy)
	case q.Depart != nil && !(*q.Depart >= 0 && *q.Depart < q.ArriveBy):
		return fieldError("depart", "departure %s is not before the deadline %s (a trip past midnight is not asked here)", engine.FormatClock(*q.Depart), engine.FormatClock(q.ArriveBy))
	case !(q.Every >= 1 && q.Every <= 60):
		return fieldError("every", "every %v: give minutes between departures, from 1 to 60 (departures are told to the minute)", q.Every)
	case !(q.Window > 0 && q.Window <= 12*60):
		return fieldError("window", "window %v: give minutes before the deadline, above 0 and at most 720", q.Window)
	case !(q.Reliability > 0 && q.Reliability < 1):
		return fieldError("reliability", "reliability %v: give a probability between 0 and 1 (exclusive)", q.Reliability)
	case q.Days < 1:
		return fieldError("n", "days %d: give at least 1", q.Days)
	}
	return nil
}

// Ask answers q on the same days for every method and departure.
func Ask(ctx context.Context, q Question) (*Answer, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	departs := Grid(max(q.ArriveBy-q.Window, 0), q.ArriveBy-q.Every, q.Every)
	if q.Depart != nil {
		departs = []float64{*q.Depart}
	}
	if len(departs) == 0 {
		return nil, fieldError("window", "no departure between the window's start and the deadline %s", engine.FormatClock(q.ArriveBy))
	}
	curves, err := Curves(ctx, Request{Net: q.Net, Model: q.Model, OD: q.OD, Methods: q.Methods, Deadline: q.ArriveBy, Departs: departs, Days: q.Days, Models: q.Models})
	if err != nil {
		return nil, err
	}
	a := &Answer{Network: q.Net.Name, OD: q.Net.ODString(q.OD), ArriveBy: engine.FormatClock(q.ArriveBy), Reliability: q.Reliability, Days: q.Days, Curves: curves}
	if q.Depart != nil {
		a.Depart = engine.FormatClock(*q.Depart)
		return a, nil
	}
	a.Every = q.Every
	clock := func(t float64) *string {
		if math.IsNaN(t) {
			return nil
		}
		s := engine.FormatClock(t)
		return &s
	}
	for _, c := range curves {
		l := Latest{Method: c.Method, Bound: c.Bound}
		if at, lo, hi, ok := c.Latest(q.Reliability); ok {
			l.Latest, l.Lo95, l.Hi95, l.Rate = clock(at), clock(lo), clock(hi), c.Rate[slices.Index(c.Depart, at)]
		}
		a.Latest = append(a.Latest, l)
	}
	return a, nil
}
