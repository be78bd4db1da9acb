package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

// runJobs lists and shows the jobs in the state directory, cancels one
// (whichever process runs it), and starts one again on the dashboard.
// jobsVerbs are the jobs group's subcommands.
var jobsVerbs = []string{"list", "show", "cancel", "restart"}

func runJobs(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if done, err := groupUsage(args, "usage: ontime jobs list|show ID|cancel ID|restart ID [flags]\nRun \"ontime jobs VERB -h\" for a verb's flags.\n", stdout, stderr); done {
		return err
	}
	fs := flag.NewFlagSet("jobs "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := registerState(fs)
	var kinds []string
	for _, k := range lab.JobKinds() {
		kinds = append(kinds, k.Name)
	}
	kind := fs.String("kind", "", "list: only jobs of this kind ("+strings.Join(kinds, ", ")+")")
	network := fs.String("network", "", "list: only jobs on this network")
	server := fs.String("server", "http://127.0.0.1:8080", "restart: the dashboard that is to run the job again")
	format := registerFormat(fs, " (list: text, a line a job, or the table as md, csv or json)", "text", "md", "csv", "json")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return usageErr(err)
	}
	// --server is restart's alone (list, show and cancel read the state
	// directory): said, not silently ignored.
	serverSet := false
	fs.Visit(func(f *flag.Flag) { serverSet = serverSet || f.Name == "server" })
	if serverSet && args[0] != "restart" {
		return engine.Errorf(engine.EINVALID, "--server is for jobs restart; jobs %s reads the state directory (--state, $ONTIME_STATE), where every job's record is, whichever process runs it", args[0])
	}
	if err := format.check(); err != nil {
		return err
	}
	if _, known := lab.KindOf(*kind); *kind != "" && !known {
		return engine.Errorf(engine.EINVALID, "--kind %q: use one of %s", *kind, strings.Join(kinds, ", "))
	}
	l := newLab(getenv, *state, lab.Options{})
	defer l.Close()
	if err := l.StateError(); err != nil {
		return err
	}
	one := func() (string, error) {
		if len(pos) != 1 {
			return "", engine.Errorf(engine.EINVALID, "jobs %s takes one job id", args[0])
		}
		return pos[0], nil
	}
	switch args[0] {
	case "list":
		list := l.Jobs().List(*kind, *network)
		if f := format.String(); f != "text" {
			var rows [][]any
			for _, j := range list {
				rows = append(rows, []any{j.ID, j.Kind, j.Network, j.State, j.Started.UTC().Format(time.RFC3339), j.Seconds, firstLine(j.Error)})
			}
			return writeTable(stdout, f, []string{"id", "kind", "network", "state", "started", "seconds", "error"}, rows)
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no jobs")
		}
		for _, j := range list {
			line := fmt.Sprintf("%-14s %-6s %-12s %-12s %s %7.0f s", j.ID, j.Kind, j.Network, j.State, j.Started.Local().Format("2006-01-02 15:04"), j.Seconds)
			if j.Error != "" {
				line += "  " + firstLine(j.Error)
			}
			fmt.Fprintln(stdout, line)
		}
		return nil
	case "show":
		id, err := one()
		if err != nil {
			return err
		}
		st, err := l.Jobs().Get(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "job %s: %s on %s, %s, started %s, %.0f s\n", st.ID, st.Kind, st.Network, st.State, st.Started.Local().Format(time.DateTime), st.Seconds)
		if st.Error != "" {
			fmt.Fprintf(stdout, "error: %s\n", st.Error)
		}
		var spec lab.TrainJob
		if k, _ := lab.KindOf(st.Kind); k.Curve && l.Jobs().Spec(id, &spec) == nil {
			fmt.Fprintf(stdout, "command: %s\n", spec.Command)
		}
		events, _ := l.Jobs().Events(id, 0)
		for _, e := range events {
			var pt lab.CurvePoint
			if json.Unmarshal(e, &pt) == nil && len(pt.Rates) > 0 {
				fmt.Fprintf(stdout, "  %-17s %-10s validation %.4f (mean %.4f) at %.0f s\n", pt.Kind, pt.Name, pt.Rates, pt.Mean, pt.Elapsed)
			}
		}
		if log, _ := l.Jobs().Log(id); log != "" {
			fmt.Fprintf(stdout, "log (tail):\n%s", log)
		}
		return nil
	case "cancel":
		// Through the state directory: whichever process runs the job
		// (the dashboard or a command line) carries the cancel out.
		id, err := one()
		if err != nil {
			return err
		}
		st, err := l.Jobs().Cancel(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "job %s: %s; %s\n", id, st.State, st.Stage)
		return nil
	case "restart":
		id, err := one()
		if err != nil {
			return err
		}
		return askRemote(ctx, *server, id, args[0], stdout)
	}
	return fmt.Errorf("unknown jobs command %q: %w", args[0], errUsage)
}

// askRemote asks the running dashboard to cancel a job or start it again.
func askRemote(ctx context.Context, server, id, action string, stdout io.Writer) error {
	u := strings.TrimSuffix(server, "/") + "/api/jobs/" + url.PathEscape(id) + "/" + action
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return engine.Errorf(engine.EINVALID, "--server %q: %v", server, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("jobs run inside the dashboard; is it running at %s? %w", server, err)
	}
	defer res.Body.Close()
	var ans struct {
		State string `json:"state"`
		Error string `json:"error"`
	}
	json.NewDecoder(res.Body).Decode(&ans)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s (%s)", action, id, ans.Error, res.Status)
	}
	fmt.Fprintf(stdout, "job %s: %s\n", id, ans.State)
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
