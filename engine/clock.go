package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MinutesPerDay is the length of the clock's day.
const MinutesPerDay = 1440

// Clock is a network's law over the day: each link's law at the clock time
// it is entered. A link's static time X (drawn from its law, with its
// stated mean μ) becomes, when it is entered at clock time t,
//
//	X(t) = m(t) · max(μ + s(t)·(X − μ), min(X, μ/10))
//
// where m (the mean's factor) and s (the spread's factor beyond the mean's)
// are its profile's values at t, read linearly between knots, wrapping at
// midnight. So the mean at t is m·μ and the standard deviation m·s·σ: a rush
// hour lengthens a trip (m > 1) and, as on real roads, widens its spread
// more (s > 1). The shape of the link's law (log-normal, gamma, empirical)
// is the same at every hour. X(t) rises with X at every t, so one draw of
// the day's static times, one normal score per link, gives a link's time at
// every hour: the pools keep common random numbers across departure times,
// and the Gaussian copula between links is one for the whole day. The
// floor min(X, μ/10) keeps a time positive where s > 1 stretches the left
// tail; where s ≤ 1 it never binds.
type Clock struct {
	// Step is the minutes between knots; it divides a day.
	Step     float64      `json:"step_minutes"`
	Profiles []DayProfile `json:"profiles"`
	// Links is the profile of each link (an index into Profiles); nil: every
	// link follows profile 0.
	Links []int `json:"links,omitempty"`
	// Depart is the departure a question takes when none is given, minutes
	// after midnight.
	Depart float64 `json:"depart"`
	// Source says where the day came from (a fitted file, a demand profile
	// through BPR, a built-in rush hour): the report quotes it.
	Source string `json:"source,omitempty"`
}

// DayProfile is one shape of the day: the factors of a link's mean and
// spread at each knot (knot k at k·Step minutes after midnight).
type DayProfile struct {
	Name   string    `json:"name,omitempty"`
	Mean   []float64 `json:"mean"`
	Spread []float64 `json:"spread"`
}

// Knots is the number of knots in a day.
func (c *Clock) Knots() int { return int(math.Round(MinutesPerDay / c.Step)) }

// Validate checks the clock against a network of nLinks links.
func (c *Clock) Validate(nLinks int) error {
	if !(c.Step > 0) || c.Step > MinutesPerDay || math.Abs(MinutesPerDay/c.Step-math.Round(MinutesPerDay/c.Step)) > 1e-9 {
		return Errorf(EINVALID, "clock: step_minutes %v does not divide a day of 1440 minutes", c.Step)
	}
	if len(c.Profiles) == 0 {
		return Errorf(EINVALID, "clock: no profiles")
	}
	k := c.Knots()
	for i, p := range c.Profiles {
		if len(p.Mean) != k || len(p.Spread) != k {
			return Errorf(EINVALID, "clock: profile %d has %d mean and %d spread factors; a day of %v-minute steps has %d knots", i, len(p.Mean), len(p.Spread), c.Step, k)
		}
		for j := range k {
			if !(p.Mean[j] > 0) || math.IsInf(p.Mean[j], 0) || !(p.Spread[j] >= 0) || math.IsInf(p.Spread[j], 0) {
				return Errorf(EINVALID, "clock: profile %d at %s: mean factor %v, spread factor %v (a mean factor is positive, a spread factor at least 0, both finite)", i, FormatClock(float64(j)*c.Step), p.Mean[j], p.Spread[j])
			}
		}
	}
	if c.Links != nil {
		if len(c.Links) != nLinks {
			return Errorf(EINVALID, "clock: %d link profiles for %d links", len(c.Links), nLinks)
		}
		for e, p := range c.Links {
			if p < 0 || p >= len(c.Profiles) {
				return Errorf(EINVALID, "clock: link %d follows profile %d; there are %d", e, p, len(c.Profiles))
			}
		}
	}
	if !(c.Depart >= 0 && c.Depart < MinutesPerDay) {
		return Errorf(EINVALID, "clock: depart %v is not a time of day", c.Depart)
	}
	return nil
}

// Constant reports whether every factor is 1: the static law at every hour.
// Every method then takes its static path, so its answers are the static
// network's bit for bit.
func (c *Clock) Constant() bool {
	for _, p := range c.Profiles {
		for j := range p.Mean {
			if p.Mean[j] != 1 || p.Spread[j] != 1 {
				return false
			}
		}
	}
	return true
}

// profile is link e's profile.
func (c *Clock) profile(e int) *DayProfile {
	if c.Links == nil {
		return &c.Profiles[0]
	}
	return &c.Profiles[c.Links[e]]
}

// At is link e's factors (mean, spread) at clock time t (minutes after
// midnight; any real t, read modulo a day).
func (c *Clock) At(e int, t float64) (m, s float64) {
	p := c.profile(e)
	k := len(p.Mean)
	u := math.Mod(t, MinutesPerDay)
	if u < 0 {
		u += MinutesPerDay
	}
	x := u / c.Step
	i := int(x)
	f := x - float64(i)
	i %= k
	j := (i + 1) % k
	return p.Mean[i] + f*(p.Mean[j]-p.Mean[i]), p.Spread[i] + f*(p.Spread[j]-p.Spread[i])
}

// Time is link e's time when entered at clock t, given its static time x
// and stated mean mu.
func (c *Clock) Time(e int, t, x, mu float64) float64 {
	m, s := c.At(e, t)
	return m * max(mu+s*(x-mu), min(x, mu/10))
}

// StaticBound is the largest static time x of link e (stated mean mu) whose
// time entered at clock t is at most y: P(X(t) ≤ y) = P(X ≤ StaticBound).
// (X(t) = m·max(a(X), b(X)) with a, b rising, so X(t) ≤ y iff both are at
// most y/m.)
func (c *Clock) StaticBound(e int, t, y, mu float64) float64 {
	m, s := c.At(e, t)
	u := y / m
	bound := math.Inf(1)
	if s > 0 {
		bound = mu + (u-mu)/s
	} else if u < mu {
		return math.Inf(-1)
	}
	if u < mu/10 {
		bound = min(bound, u)
	}
	return bound
}

// MeanAt is link e's mean time entered at clock t (the stated mean mu
// times the mean's factor; the floor, which binds only in a stretched
// left tail, is left out).
func (c *Clock) MeanAt(e int, t, mu float64) float64 {
	m, _ := c.At(e, t)
	return m * mu
}

// ParseClock reads a time of day "HH:MM" (00:00 to 23:59) as minutes after
// midnight.
func ParseClock(s string) (float64, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || len(m) != 2 || len(h) < 1 || len(h) > 2 || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, Errorf(EINVALID, "time of day %q: want HH:MM from 00:00 to 23:59", s)
	}
	return float64(hh*60 + mm), nil
}

// FormatClock writes minutes after midnight as HH:MM (a time past midnight
// as the next day's, +1d).
func FormatClock(t float64) string {
	day := math.Floor(t / MinutesPerDay)
	u := int(math.Round(t - day*MinutesPerDay))
	if u == MinutesPerDay {
		u, day = 0, day+1
	}
	s := fmt.Sprintf("%02d:%02d", u/60, u%60)
	if day != 0 {
		s += fmt.Sprintf("%+gd", day)
	}
	return s
}

// RushHourProfile is a weekday's shape: a morning peak at 08:00 and an
// evening one at 17:30, each lengthening a trip by peak (0.8: 1.8× the
// night's mean) and widening the spread beyond that by spreadPeak; Gaussian
// bumps of an hour's width (σ = 45 min) over a flat night. Knots every step
// minutes.
func RushHourProfile(step, peak, spreadPeak float64) DayProfile {
	k := int(math.Round(MinutesPerDay / step))
	p := DayProfile{Name: "weekday rush hours", Mean: make([]float64, k), Spread: make([]float64, k)}
	for i := range k {
		t := float64(i) * step
		bump := func(at, w float64) float64 { d := (t - at) / w; return math.Exp(-d * d / 2) }
		b := bump(8*60, 45) + 0.8*bump(17.5*60, 60)
		p.Mean[i] = 1 + peak*b
		p.Spread[i] = 1 + spreadPeak*b
	}
	return p
}

// FIFOBreak is a stretch of the day over which entering a link later
// leaves it earlier in expectation: its mean falls faster than the clock
// runs.
type FIFOBreak struct {
	Link     int     `json:"link"`
	From, To float64 `json:"-"` // the knots, minutes after midnight
	// Gain is how much earlier (minutes) one leaves the link by entering
	// at To rather than at From, in expectation.
	Gain float64 `json:"gain_minutes"`
}

// FIFOBreaks is every link and step of the day where the law is not FIFO
// in expectation, for links of the given stated means. The expected exit
// t + m(t)·μ is linear between knots, so it never falls iff at each step
// the mean falls by at most the step: (m(k+1) − m(k))·μ ≥ −Step. The check
// is on the means: a single day's time may still pass (a slow draw entered
// in a steep fall), as on real roads.
func (c *Clock) FIFOBreaks(means []float64) []FIFOBreak {
	var out []FIFOBreak
	k := c.Knots()
	for e, mu := range means {
		p := c.profile(e)
		for j := range k {
			fall := (p.Mean[j] - p.Mean[(j+1)%k]) * mu
			if fall > c.Step*(1+1e-12) {
				out = append(out, FIFOBreak{Link: e, From: float64(j) * c.Step, To: float64(j+1) * c.Step, Gain: fall - c.Step})
			}
		}
	}
	return out
}

// Peak is the profile's busiest knot: its clock time and mean factor.
func (p *DayProfile) Peak(step float64) (at, mean float64) {
	j := 0
	for i, m := range p.Mean {
		if m > p.Mean[j] {
			j = i
		}
	}
	return float64(j) * step, p.Mean[j]
}

// Summary describes the day in a line: where it came from, its knots, its
// busiest hour and the default departure.
func (c *Clock) Summary() string {
	at, m := 0.0, 0.0
	for i := range c.Profiles {
		if t, f := c.Profiles[i].Peak(c.Step); f > m {
			at, m = t, f
		}
	}
	src := c.Source
	if src == "" {
		src = "given with the network"
	}
	return fmt.Sprintf("law over the day (%s): %d profile(s), knots every %g min; the busiest: mean ×%.3g at %s; questions leave at %s unless told",
		src, len(c.Profiles), c.Step, m, FormatClock(at), FormatClock(c.Depart))
}

// StaticTime inverts Time: the static time x of link e (stated mean mu)
// that takes y minutes when entered at clock t. A planner that conditions
// on the times seen reads them back to the static law's scale this way.
func (c *Clock) StaticTime(e int, t, y, mu float64) float64 {
	m, s := c.At(e, t)
	u := y / m
	if s > 0 {
		if x := mu + (u-mu)/s; u >= min(x, mu/10) {
			return x // the spread's branch: u = μ + s(x − μ) ≥ the floor's
		}
	}
	return u // the floor's branch, u = min(x, μ/10) = x
}
