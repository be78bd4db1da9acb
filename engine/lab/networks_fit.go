package lab

import (
	"context"
	"fmt"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// FitOptions say how observed times are read.
type FitOptions struct {
	// Period keeps the rows whose time_of_day is in it ("HH:MM-HH:MM";
	// "": every row).
	Period string
	// TimeUnit is the observations' unit (s, min or h; "": minutes).
	TimeUnit string
}

// FitStored fits observed times to the stored network name and stores the
// result as a new network, as (a new version: the old one is kept as it
// was). A failed fit stores nothing.
func (l *Lab) FitStored(ctx context.Context, name string, obs netfile.File, o FitOptions, as string) (*Import, error) {
	old, err := l.LoadNetwork(ctx, name)
	if err != nil {
		return nil, err
	}
	oldRep, opts, err := l.StoredReport(ctx, name)
	if err != nil {
		oldRep, opts = &netfile.ImportReport{}, &netfile.ImportOptions{}
	}
	net, rep, err := fitTimes(old, obs, o)
	if err != nil {
		return nil, err
	}
	net.Description = fmt.Sprintf("%s, its link times fitted to %s", strings.TrimSuffix(old.Description, "."), obs.Name)
	r := *oldRep
	r.Fit = rep
	r.Notes = append(append([]string(nil), r.Notes...), rep.Summary())
	imp := &Import{Name: as, Net: net, Report: &r, Options: *opts}
	if err := l.Save(ctx, imp, as); err != nil {
		return nil, err
	}
	return imp, nil
}

// NextVersion is the first free name NAME-v2, NAME-v3, … for a new version
// of a stored network.
func (l *Lab) NextVersion(ctx context.Context, name string) string {
	base := name
	if i := strings.LastIndex(name, "-v"); i > 0 && strings.Trim(name[i+2:], "0123456789") == "" && len(name) > i+2 {
		base = name[:i]
	}
	for k := 2; ; k++ {
		cand := fmt.Sprintf("%s-v%d", base, k)
		if _, err := l.LoadNetwork(ctx, cand); err != nil {
			return cand
		}
	}
}

func fitTimes(net *engine.Network, obs netfile.File, o FitOptions) (*engine.Network, *fit.Report, error) {
	unit, err := netfile.ParseTimeUnit("time-unit", o.TimeUnit)
	if err != nil {
		return nil, nil, err
	}
	return netfile.FitFile(net, obs, o.Period, unit)
}
