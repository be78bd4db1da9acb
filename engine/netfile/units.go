package netfile

import (
	"fmt"
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
)

// Time units a file's times may be given in. TNTP files do not say theirs;
// everything in ontime is in minutes, so times are converted at import.
const (
	UnitSeconds = "s"
	UnitMinutes = "min"
	UnitHours   = "h"
)

// TimeUnits lists the units --time-unit and the upload page accept.
var TimeUnits = []string{UnitSeconds, UnitMinutes, UnitHours}

// ParseTimeUnit checks a unit ("" is minutes); the error names field (the
// flag or form field the unit came from).
func ParseTimeUnit(field, u string) (string, error) {
	switch u {
	case "", UnitMinutes:
		return "", nil
	case UnitSeconds, UnitHours:
		return u, nil
	}
	return "", engine.InputError("", 0, field, "time unit %q: use s, min or h", u)
}

// unitMinutes is how many minutes one unit is.
func unitMinutes(u string) float64 {
	switch u {
	case UnitSeconds:
		return 1.0 / 60
	case UnitHours:
		return 60
	}
	return 1
}

// Scale is a network's link-time scale as imported, in minutes: what a user
// reads to see whether the file's unit was right.
type Scale struct {
	Unit           string    `json:"unit"`             // the file's unit as given ("min" when none)
	MedianLinkMean float64   `json:"median_link_mean"` // minutes
	ShortLinks     float64   `json:"short_links"`      // share of links with a mean under one second
	LETTimes       []float64 `json:"let_times"`        // of the OD pairs, minutes
}

// convertUnits scales every link's mean and variance from the file's unit to
// minutes.
func convertUnits(net *engine.Network, unit string) {
	k := unitMinutes(unit)
	if k == 1 {
		return
	}
	for e := range net.Links {
		net.Links[e].Mean *= k
		net.Links[e].Var *= k * k
	}
}

// scaleOf measures the scale and says in a note when it is implausible for
// minutes: trips of a few minutes over links of a second or less look like
// hours, trips of days look like seconds. It never refuses.
func scaleOf(net *engine.Network, unit string, rep *ImportReport) {
	sc := &Scale{Unit: UnitMinutes}
	if unit != "" {
		sc.Unit = unit
	}
	means := make([]float64, len(net.Links))
	short := 0
	for e, l := range net.Links {
		means[e] = l.Mean
		if l.Mean < 1.0/60 {
			short++
		}
	}
	if len(means) == 0 {
		return
	}
	slices.Sort(means)
	sc.MedianLinkMean = means[len(means)/2]
	sc.ShortLinks = float64(short) / float64(len(means))
	maxLET := 0.0
	for _, od := range net.ODs {
		t := net.LET(od.Destination).Time[od.Origin]
		sc.LETTimes = append(sc.LETTimes, t)
		if !math.IsInf(t, 1) {
			maxLET = math.Max(maxLET, t)
		}
	}
	rep.Scale = sc
	rep.note("time scale: median link mean %s min; LET times of the OD pairs %s min (file unit: %s)", fmt3(sc.MedianLinkMean), joinTimes(sc.LETTimes), sc.Unit)
	if unit != "" {
		return
	}
	switch {
	case len(sc.LETTimes) > 0 && maxLET < 5 && sc.MedianLinkMean < 0.5:
		rep.note("these times look like hours, not minutes (trips of %s min or less, a median link of %s s): if the file is in hours, import it again with time unit h",
			fmt3(maxLET), fmt3(sc.MedianLinkMean*60))
	case len(sc.LETTimes) > 0 && maxLET > 24*60:
		rep.note("these times look like seconds, not minutes (a trip of %s min is over a day): if the file is in seconds, import it again with time unit s", fmt3(maxLET))
	}
}

func fmt3(x float64) string { return fmt.Sprintf("%.3g", x) }

func joinTimes(ts []float64) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += fmt3(t)
	}
	return s
}
