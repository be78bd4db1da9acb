// Package loadtest drives a dashboard with browser-like websocket sessions:
// each session opens comparisons one after another and reads every frame,
// as the compare page does, and the run reports throughput, time to first
// frame, gaps between frames and errors.
package loadtest

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Config says what to run against which dashboard.
type Config struct {
	Base        string // http://HOST:PORT
	Sessions    int
	Comparisons int // per session, one after another
	Network     string
	Methods     []string
	Factor      float64
}

// Report is what a run measured.
type Report struct {
	Sessions, Comparisons, Frames, Errors int
	FirstErrors                           []string
	Seconds                               float64
	FirstFrame, Gap                       Quantiles // milliseconds
}

// Quantiles of a sample, in milliseconds.
type Quantiles struct{ P50, P99, Max float64 }

func quantiles(xs []float64) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	slices.Sort(xs)
	at := func(p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	return Quantiles{P50: at(0.5), P99: at(0.99), Max: xs[len(xs)-1]}
}

// Run starts every session at once and waits for them.
func Run(ctx context.Context, c Config) (*Report, error) {
	u, err := url.Parse(c.Base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("dashboard address %q: give http://HOST:PORT", c.Base)
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = "/ws/compare"
	var mu sync.Mutex
	rep := &Report{Sessions: c.Sessions}
	var first, gaps []float64
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		rep.Errors++
		if len(rep.FirstErrors) < 5 {
			rep.FirstErrors = append(rep.FirstErrors, err.Error())
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for s := range c.Sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dialer := websocket.Dialer{HandshakeTimeout: 30 * time.Second}
			for k := range c.Comparisons {
				q := url.Values{"net": {c.Network}, "m": {strings.Join(c.Methods, ",")}, "f": {fmt.Sprint(c.Factor)}, "r": {fmt.Sprint((s*c.Comparisons + k) % 100)}}
				u := *u
				u.RawQuery = q.Encode()
				t0 := time.Now()
				conn, _, err := dialer.DialContext(ctx, u.String(), nil)
				if err != nil {
					fail(fmt.Errorf("session %d: dial: %w", s, err))
					return
				}
				var f, g []float64
				last := t0
				frames := 0
				for {
					conn.SetReadDeadline(time.Now().Add(60 * time.Second))
					var msg struct {
						Type    string `json:"type"`
						Message string `json:"message"`
					}
					if err := conn.ReadJSON(&msg); err != nil {
						if !websocket.IsCloseError(err, websocket.CloseNormalClosure) && err != io.EOF {
							fail(fmt.Errorf("session %d: read: %w", s, err))
						}
						break
					}
					now := time.Now()
					if frames == 0 {
						f = append(f, float64(now.Sub(t0).Microseconds())/1000)
					} else {
						g = append(g, float64(now.Sub(last).Microseconds())/1000)
					}
					last = now
					frames++
					if msg.Type == "error" {
						fail(fmt.Errorf("session %d: %s", s, msg.Message))
					}
					if msg.Type == "done" || msg.Type == "error" {
						break
					}
				}
				conn.Close()
				mu.Lock()
				rep.Comparisons++
				rep.Frames += frames
				first = append(first, f...)
				gaps = append(gaps, g...)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	rep.FirstFrame, rep.Gap = quantiles(first), quantiles(gaps)
	return rep, ctx.Err()
}

// Write prints the report.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "sessions %d, comparisons %d (%.1f/s), frames %d, errors %d, %.1f s\n",
		r.Sessions, r.Comparisons, float64(r.Comparisons)/r.Seconds, r.Frames, r.Errors, r.Seconds)
	fmt.Fprintf(w, "time to first frame: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", r.FirstFrame.P50, r.FirstFrame.P99, r.FirstFrame.Max)
	fmt.Fprintf(w, "gap between frames:  p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", r.Gap.P50, r.Gap.P99, r.Gap.Max)
	for _, e := range r.FirstErrors {
		fmt.Fprintln(w, "error:", e)
	}
}
