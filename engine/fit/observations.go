package fit

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Observations are observed link times: per link (the network's order),
// each observation's index (a day or time slot) and time in minutes.
type Observations struct {
	File  string
	Days  []string // observation ids, in order of first appearance
	Links [][]Obs
	Rows  int // rows read (after the period filter)
	// Timed: every row has its clock time (a time_of_day column, no period
	// cut): a link may be seen many times in one day, and Fit fits the law
	// over the day.
	Timed bool
}

// Obs is one observed time of a link.
type Obs struct {
	Day  int
	Time float64
	Line int // the file's line, for errors
	// Clock is the time of day the link was entered, minutes after
	// midnight (Observations.Timed; else 0).
	Clock float64
}

// Period keeps the rows whose time of day is in [From, To) minutes after
// midnight (From > To wraps past midnight); the zero value keeps all.
type Period struct{ From, To float64 }

// ParsePeriod reads "HH:MM-HH:MM" ("" keeps every row).
func ParsePeriod(s string) (*Period, error) {
	if s = strings.TrimSpace(s); s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, "-")
	from, err1 := clock(a)
	to, err2 := clock(b)
	if !ok || err1 != nil || err2 != nil || from == to {
		return nil, engine.Errorf(engine.EINVALID, "period %q: give HH:MM-HH:MM, for example 07:00-09:00", s)
	}
	return &Period{from, to}, nil
}

// clock reads HH:MM[:SS] as minutes after midnight.
func clock(s string) (float64, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, errors.New("not HH:MM")
	}
	lim := []float64{24, 60, 60}
	v := 0.0
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || float64(x) >= lim[i] {
			return 0, errors.New("not HH:MM")
		}
		v += float64(x) * []float64{60, 1, 1.0 / 60}[i]
	}
	return v, nil
}

func (p *Period) keeps(t float64) bool {
	if p.From < p.To {
		return t >= p.From && t < p.To
	}
	return t >= p.From || t < p.To
}

// Columns the observation file may have (case and spaces ignored); the
// first name of each is the documented one.
var (
	colLink = []string{"link", "link_id"}
	colFrom = []string{"from", "from_node", "a_node"}
	colTo   = []string{"to", "to_node", "b_node"}
	colDay  = []string{"observation", "day", "slot", "date"}
	colTime = []string{"time", "travel_time"}
	colTOD  = []string{"time_of_day", "tod", "clock"}
)

// LooksLikeObservations tells an observation file from a network's CSV by
// its header: an observation column and a time column.
func LooksLikeObservations(data []byte) bool {
	line, _, _ := bytes.Cut(data[:min(len(data), 4096)], []byte("\n"))
	has := func(names []string) bool {
		for _, c := range strings.Split(strings.TrimPrefix(string(line), "\ufeff"), ",") {
			c = strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))
			if slices.Contains(names, c) {
				return true
			}
		}
		return false
	}
	return has(colDay) && has(colTime)
}

// MinObservedMinutes and MaxObservedMinutes bound an observed time: the
// largest is a link mean's bound (netfile.MaxMean, about two years), so
// sums and the fitted law stay finite (1e308 reached a JSON answer as
// +Inf); the least is 0.06 s, so that a histogram's and a Q-Q plot's
// logarithms and bins stay finite (5e-324 was accepted, then its
// histogram answered 500).
const (
	MinObservedMinutes = 1e-3
	MaxObservedMinutes = 1e6
)

// MaxProblems bounds the problems one file reports.
const MaxProblems = 100

// ReadObservations reads a long CSV of observed times: a header naming a
// link (link: its 1-based position in the network's link list, or from and
// to: its end nodes' ids), an observation id (observation, day or slot) and
// a time; optionally time_of_day (HH:MM) for period to choose rows. Times
// are in the unit unit (minutes per unit: 1 for minutes). Every problem
// names the file, line and field.
//
// The rows are read as they come (a file is never held whole: the command
// line streams one from disk), each kept as a link's observation.
func ReadObservations(file string, in io.Reader, net *engine.Network, minutesPerUnit float64, period *Period) (*Observations, error) {
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	// Fields are trimmed of ASCII spaces and tabs only (trimValue): a node
	// id may begin with any other character, a Unicode line separator too,
	// and must still be nameable here.
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, engine.InputError(file, 1, "", "no header: give link (or from,to), observation and time columns")
	}
	head = slices.Clone(head) // ReuseRecord: the next Read overwrites it
	find := func(names []string) int {
		for i, h := range head {
			h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
			for _, n := range names {
				if h == n {
					return i
				}
			}
		}
		return -1
	}
	iLink, iFrom, iTo, iDay, iTime, iTOD := find(colLink), find(colFrom), find(colTo), find(colDay), find(colTime), find(colTOD)
	var probs engine.Problems
	// Every header problem at once, each quoting the header found (an
	// excerpt) and saying when it is separated by semicolons, not commas.
	found := fmt.Sprintf(" (the header found: %s)", strconv.Quote(engine.Excerpt(strings.Join(head, ","))))
	if len(head) == 1 && strings.Contains(head[0], ";") {
		found = fmt.Sprintf(" (the header found, %s, is separated by semicolons: write the file with commas)", strconv.Quote(engine.Excerpt(head[0])))
	}
	if iLink < 0 && (iFrom < 0 || iTo < 0) {
		probs = append(probs, engine.InputError(file, 1, "link", "the header names no link: give a link column (its 1-based position in the network) or from and to%s", found))
	}
	if iDay < 0 {
		probs = append(probs, engine.InputError(file, 1, "observation", "the header names no observation column (%s)%s", strings.Join(colDay, ", "), found))
	}
	if iTime < 0 {
		probs = append(probs, engine.InputError(file, 1, "time", "the header names no time column (%s)%s", strings.Join(colTime, ", "), found))
	}
	if period != nil && iTOD < 0 {
		probs = append(probs, engine.InputError(file, 1, "time_of_day", "a period was asked for, but the header has no time_of_day column%s", found))
	}
	if len(probs) > 0 {
		return nil, probs
	}
	o := &Observations{File: file, Links: make([][]Obs, len(net.Links)), Timed: iTOD >= 0 && period == nil}
	days := map[string]int{}
	linkOf := map[[2]int]int{}
	for e, l := range net.Links {
		if _, dup := linkOf[[2]int{l.From, l.To}]; !dup {
			linkOf[[2]int{l.From, l.To}] = e
		}
	}
	// (link, day, clock) → line: with clock times a link is seen many
	// times a day (a probe's traversals), once at each time.
	type seenKey struct {
		link, day int
		clock     float64
	}
	seen := map[seenKey]int{}
	add := func(p *engine.Error) bool {
		probs = append(probs, p)
		return len(probs) < MaxProblems
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			if !add(engine.InputError(file, line, "", "%v", err)) {
				break
			}
			continue
		}
		if len(rec) < len(head) {
			if !add(engine.InputError(file, line, "row", "%d fields, the header has %d", len(rec), len(head))) {
				break
			}
			continue
		}
		field := func(i int) string {
			if i < 0 || i >= len(rec) {
				return ""
			}
			return trimValue(rec[i])
		}
		var tod float64
		if iTOD >= 0 && (period != nil || o.Timed) {
			t, err := clock(field(iTOD))
			if err != nil {
				if !add(engine.InputError(file, line, "time_of_day", "%q is not HH:MM from 00:00 to 23:59", field(iTOD))) {
					break
				}
				continue
			}
			if period != nil && !period.keeps(t) {
				continue
			}
			tod = t
		}
		e, bad := linkIndex(net, linkOf, field(iLink), field(iFrom), field(iTo), iLink >= 0)
		if bad != nil {
			bad.File, bad.Line = file, line
			if !add(bad) {
				break
			}
			continue
		}
		x, err := engine.ParseNumber(field(iTime))
		if err != nil || !(x > 0) {
			if !add(engine.InputError(file, line, "time", "%q: a time must be a positive finite number", field(iTime))) {
				break
			}
			continue
		}
		if m := x * minutesPerUnit; !(m >= MinObservedMinutes && m <= MaxObservedMinutes) {
			bound, most := MaxObservedMinutes, "most"
			if m < MinObservedMinutes {
				bound, most = MinObservedMinutes, "least"
			}
			if !add(engine.InputError(file, line, "time", "%q: a time must be at %s %g minutes (%.4g in the file's time unit)", field(iTime), most, bound, bound/minutesPerUnit)) {
				break
			}
			continue
		}
		dayID := field(iDay)
		if dayID == "" {
			if !add(engine.InputError(file, line, head[iDay], "empty observation id")) {
				break
			}
			continue
		}
		d, ok := days[dayID]
		if !ok {
			d = len(o.Days)
			days[dayID] = d
			o.Days = append(o.Days, dayID)
		}
		key := seenKey{e, d, tod}
		if first, dup := seen[key]; dup {
			at := ""
			if o.Timed {
				at = " at " + field(iTOD)
			}
			if !add(engine.InputError(file, line, head[iDay], "link %s was observed twice in observation %q%s (first on line %d)", linkName(net, e), dayID, at, first)) {
				break
			}
			continue
		}
		seen[key] = line
		o.Links[e] = append(o.Links[e], Obs{Day: d, Time: x * minutesPerUnit, Line: line, Clock: tod})
		o.Rows++
	}
	if len(probs) > 0 {
		return nil, probs
	}
	if o.Rows == 0 {
		return nil, engine.InputError(file, 0, "", "no observation rows%s", map[bool]string{true: " in the period", false: ""}[period != nil])
	}
	return o, nil
}

// trimValue trims a field of the ASCII spaces and tabs around it, and of
// nothing else (csv's TrimLeadingSpace and strings.TrimSpace take every
// Unicode space).
func trimValue(s string) string { return strings.Trim(s, " \t") }

// linkIndex finds the row's link: by its 1-based position, or by its end
// nodes. bad says what is wrong, naming the field (the caller sets the
// file and line).
func linkIndex(net *engine.Network, linkOf map[[2]int]int, id, from, to string, byID bool) (int, *engine.Error) {
	if byID {
		k, err := strconv.Atoi(id)
		if err != nil || k < 1 || k > len(net.Links) {
			return 0, engine.InputError("", 0, "link", "%q is not a link of network %s (give 1 to %d)", id, net.Name, len(net.Links))
		}
		return k - 1, nil
	}
	a, ok := net.NodeIndex(from)
	if !ok {
		return 0, engine.InputError("", 0, "from", "%q is not a node of network %s", from, net.Name)
	}
	b, ok := net.NodeIndex(to)
	if !ok {
		return 0, engine.InputError("", 0, "to", "%q is not a node of network %s", to, net.Name)
	}
	e, ok := linkOf[[2]int{a, b}]
	if !ok {
		return 0, engine.InputError("", 0, "to", "network %s has no link %s→%s", net.Name, engine.Excerpt(from), engine.Excerpt(to))
	}
	return e, nil
}

// linkName is a link as its end nodes' ids, from→to.
func linkName(net *engine.Network, e int) string {
	l := net.Links[e]
	return net.Nodes[l.From].ID + "→" + net.Nodes[l.To].ID
}
