package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/lab"
)

// A stored network's training and benchmark run as jobs of the one jobs
// service on the state directory, as the dashboard's do: `ontime jobs
// list` and the Jobs page show them beside the dashboard's, with the same
// log; Ctrl-C cancels the job. (Built-in networks and files have no state
// to record them in; they run directly, as before.)

// stateLab opens the lab on the state directory for a job run from the
// command line; every job log line is copied to stderr.
func stateLab(ctx context.Context, nf *netFlags, getenv func(string) string, o lab.Options, stderr io.Writer) (*lab.Lab, *lab.Net, error) {
	o.DataDir = orEnv(nf.data, getenv, "ONTIME_DATA")
	if o.CacheDir == "" {
		o.CacheDir = learnerCache("", getenv)
	}
	o.JobLog = stderr
	l := newLab(getenv, nf.state, o)
	if err := l.StateError(); err != nil {
		l.Close()
		return nil, nil, err
	}
	n, err := l.OpenWait(ctx, nf.network)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, n, nil
}

// awaitJob follows a job of this process to its end, printing its stage
// when it changes (unless quiet), and says how it ended: nil when done.
func awaitJob(ctx context.Context, l *lab.Lab, st jobs.Status, stderr io.Writer, quiet bool) (jobs.Status, error) {
	fmt.Fprintf(stderr, "job %s (%s on %s): %s; `ontime jobs show %s` and the dashboard's Jobs page follow it\n", st.ID, st.Kind, st.Network, st.State, st.ID)
	stop := make(chan struct{})
	if !quiet {
		go func() {
			last := ""
			tick := time.NewTicker(2 * time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				cur, err := l.Jobs().Get(st.ID)
				if err != nil || cur.Stage == "" {
					continue
				}
				line := fmt.Sprintf("job %s: %s %d/%d (%.0f%%)", cur.ID, cur.Stage, cur.Done, cur.Total, 100*cur.Fraction)
				if line != last {
					fmt.Fprintln(stderr, line)
					last = line
				}
			}
		}()
	}
	end, err := l.Jobs().Await(ctx, st.ID)
	close(stop)
	if err != nil {
		return end, err
	}
	switch end.State {
	case jobs.Done:
		return end, nil
	case jobs.Canceled:
		return end, engine.Errorf(engine.ECONFLICT, "job %s canceled", end.ID)
	}
	return end, fmt.Errorf("job %s %s: %s", end.ID, end.State, end.Error)
}
