package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/worker"
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
	net, rep, err := l.fitTimes(ctx, old, obs, o)
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

// fitTimes fits obs to net: in the lab's worker process when it has one,
// as an upload is read (killed when ctx ends or its time passes, its memory
// limited), else here.
func (l *Lab) fitTimes(ctx context.Context, net *engine.Network, obs netfile.File, o FitOptions) (*engine.Network, *fit.Report, error) {
	if l.opts.Worker == nil {
		type fitted struct {
			net *engine.Network
			rep *fit.Report
		}
		f, err := untilDone(ctx, func() (fitted, error) {
			n, r, err := fitTimes(net, obs, o)
			return fitted{n, r}, err
		})
		return f.net, f.rep, err
	}
	var b bytes.Buffer
	if err := netfile.WriteJSON(&b, net); err != nil {
		return nil, nil, err
	}
	var ans fitAnswer
	if err := l.opts.Worker.Run(ctx, fitWork, fitRequest{Network: b.Bytes(), Obs: obs, Options: o}, &ans); err != nil {
		return nil, nil, err
	}
	if len(ans.Err) > 0 {
		if !ans.List {
			return nil, nil, ans.Err[0]
		}
		return nil, nil, ans.Err
	}
	fitted, err := netfile.ReadJSON(bytes.NewReader(ans.Network), "the fitted network")
	return fitted, ans.Report, err
}

// untilDone is work's answer, or ctx's error as soon as ctx ends: work
// that takes no context (a fit, a parse) is left to finish on its own,
// unread, so that a command interrupted with Ctrl-C ends at once (its
// process exits) and a request whose client left answers nobody.
func untilDone[T any](ctx context.Context, work func() (T, error)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, err := work()
		ch <- answer{v, err}
	}()
	select {
	case a := <-ch:
		return a.v, a.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

func fitTimes(net *engine.Network, obs netfile.File, o FitOptions) (*engine.Network, *fit.Report, error) {
	unit, err := netfile.ParseTimeUnit("time-unit", o.TimeUnit)
	if err != nil {
		return nil, nil, err
	}
	return netfile.FitFile(net, obs, o.Period, unit)
}

// fitWork is the worker kind that fits observed times to a network.
const fitWork = "fit"

type fitRequest struct {
	Network json.RawMessage `json:"network"` // ontime JSON
	Obs     netfile.File    `json:"obs"`     // by path on the command line
	Options FitOptions      `json:"options"`
}

type fitAnswer struct {
	Network json.RawMessage `json:"network,omitempty"`
	Report  *fit.Report     `json:"report,omitempty"`
	Err     engine.Problems `json:"err,omitempty"`
	List    bool            `json:"list,omitempty"` // the error was a problem list
}

func init() {
	worker.Register(fitWork, func(in []byte) (any, error) {
		var req fitRequest
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		net, err := netfile.ReadJSON(bytes.NewReader(req.Network), "the network")
		if err != nil {
			return nil, err
		}
		fitted, rep, err := fitTimes(net, req.Obs, req.Options)
		if err != nil {
			var ans fitAnswer
			ans.List, ans.Err = asProblems(err)
			return ans, nil
		}
		var b bytes.Buffer
		if err := netfile.WriteJSON(&b, fitted); err != nil {
			return nil, err
		}
		return fitAnswer{Network: b.Bytes(), Report: rep}, nil
	})
}
