package perf

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ontime-routing/ontime/cmd/ontime/internal/loadtest"
	"github.com/ontime-routing/ontime/server"
)

// firstFrameTarget is issue 13's target for the p99 time to first frame.
const firstFrameTarget = 250.0 // ms

// loadTest drives a dashboard started here with the target's sessions, at
// the dashboard's step delay and with none (every frame as fast as it is
// computed: the worst case for the CPU).
func loadTest(ctx context.Context, c *Config, w io.Writer) error {
	methods := []string{"let", "dot", "cdot", "gpght"}
	fmt.Fprintf(w, "`ontime loadtest --sessions %d --comparisons 3 --network sfn --methods let,dot,cdot,gpght`: that many\n", c.Sessions)
	fmt.Fprintf(w, "browser-like websocket sessions at once on loopback, each opening 3 comparisons one after another and\n")
	fmt.Fprintf(w, "reading every frame, against a dashboard started in the same process (tables solved and the model\n")
	fmt.Fprintf(w, "loaded first). Target (issue 13): no errors, p99 time to first frame under %.0f ms, goroutines and\n", firstFrameTarget)
	fmt.Fprintf(w, "memory back to baseline after the sessions leave.\n\n")
	fmt.Fprintf(w, "| step delay | comparisons/s | first frame p50 / p99 / max ms | frame gap p50 / p99 ms | errors | goroutines before → after | heap MB before → after | verdict |\n")
	fmt.Fprintf(w, "|---|---:|---|---|---:|---|---|---|\n")
	for _, delay := range []time.Duration{server.DefaultStepDelay, 0} {
		cfg := loadtest.Config{Sessions: c.Sessions, Comparisons: 3, Network: "sfn", Methods: methods, Factor: 1}
		rep, srv, err := loadtest.RunOwn(ctx, cfg, loadtest.Own{DataDir: c.DataDir, ORTLib: c.ORTLib, Version: c.Version, StepDelay: delay})
		if err != nil {
			return err
		}
		label := delay.String() + " (the dashboard's)"
		if delay == 0 {
			label = "none (stress)"
		}
		back := srv.GoroutinesAfter <= srv.GoroutinesBefore+2 && srv.HeapAfterMB <= 1.5*srv.HeapBeforeMB+8
		ok := rep.Errors == 0 && rep.FirstFrame.P99 < firstFrameTarget && back
		v := verdict(ok, fmt.Sprintf("%d sessions, p99 first frame < %.0f ms, no errors, back to baseline", c.Sessions, firstFrameTarget))
		fmt.Fprintf(w, "| %s | %.1f | %.0f / %.0f / %.0f | %.0f / %.0f | %d | %d → %d | %.1f → %.1f | %s |\n", label,
			float64(rep.Comparisons)/rep.Seconds, rep.FirstFrame.P50, rep.FirstFrame.P99, rep.FirstFrame.Max, rep.Gap.P50, rep.Gap.P99,
			rep.Errors, srv.GoroutinesBefore, srv.GoroutinesAfter, srv.HeapBeforeMB, srv.HeapAfterMB, v)
	}
	fmt.Fprintln(w)
	return nil
}
