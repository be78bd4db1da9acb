package loadtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/server"
)

// Own says how to start the dashboard a run drives in this process.
type Own struct {
	DataDir, ORTLib, Version string
	StepDelay                time.Duration // between animated steps (the dashboard's default is 350 ms)
}

// Server is what a run on its own dashboard measured of the server.
type Server struct {
	GoroutinesBefore, GoroutinesAfter int
	HeapBeforeMB, HeapAfterMB         float64
}

// RunOwn starts a dashboard here (no bound per client; the methods built
// first, so tables are solved and models loaded before measuring), drives
// it with c, and also measures its goroutines and heap before the sessions
// and after they left.
func RunOwn(ctx context.Context, c Config, o Own) (*Report, *Server, error) {
	state, err := os.MkdirTemp("", "ontime-loadtest-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(state)
	l := lab.New(lab.Options{DataDir: o.DataDir, StateDir: state, ORTLib: o.ORTLib})
	defer l.Close()
	n, err := l.Open(c.Network)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range c.Methods {
		if _, err := n.Policy(m); err != nil {
			return nil, nil, fmt.Errorf("method %s: %w", m, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: server.NewServer(server.Deps{Lab: l, Version: o.Version, Assets: assets.FS, StepDelay: o.StepDelay,
		MaxStreams: -1, MaxStreamsPerClient: -1})}
	go srv.Serve(ln)
	defer srv.Close()
	c.Base = "http://" + ln.Addr().String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := &Server{GoroutinesBefore: runtime.NumGoroutine()}
	rep, err := Run(ctx, c)
	if err != nil {
		return rep, nil, err
	}
	// Streams end with their connections; give the server a moment to see
	// every close before counting what is left.
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		if s.GoroutinesAfter = runtime.NumGoroutine(); s.GoroutinesAfter <= s.GoroutinesBefore {
			break
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	s.HeapBeforeMB, s.HeapAfterMB = float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20)
	return rep, s, nil
}

// Write prints what was measured of the server.
func (s *Server) Write(w io.Writer) {
	fmt.Fprintf(w, "server: goroutines %d before, %d after; heap %.1f MB before, %.1f MB after\n",
		s.GoroutinesBefore, s.GoroutinesAfter, s.HeapBeforeMB, s.HeapAfterMB)
}
