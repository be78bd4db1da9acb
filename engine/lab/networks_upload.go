package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/worker"
)

// An upload is read in a worker process when the lab has one
// (Options.Worker, set by ontime serve): parsing, the automatic layout and
// the covariance checks cannot be interrupted in place, so the child is
// killed when the uploader leaves or the time limit passes, and a file
// that would exhaust memory ends the child, not the server.

// importWork is the "import" worker's request and answer.
const importWork = "import"

type importRequest struct {
	Files            []netfile.File        `json:"files"`
	Options          netfile.ImportOptions `json:"options"`
	MaxExplicitLinks int                   `json:"max_explicit_links"`
}

type importAnswer struct {
	Network json.RawMessage       `json:"network,omitempty"` // ontime JSON; absent when refused
	Report  *netfile.ImportReport `json:"report"`
	Err     engine.Problems       `json:"err,omitempty"`  // the error, each problem
	List    bool                  `json:"list,omitempty"` // the error was a problem list
}

func init() {
	worker.Register(importWork, func(in []byte) (any, error) {
		var req importRequest
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		req.Options.MaxExplicitLinks = req.MaxExplicitLinks
		net, rep, err := netfile.Import(req.Files, req.Options)
		ans := importAnswer{Report: rep}
		if err != nil {
			ans.List, ans.Err = asProblems(err)
			return ans, nil
		}
		var b bytes.Buffer
		if err := netfile.WriteJSON(&b, net); err != nil {
			return nil, err
		}
		ans.Network = b.Bytes()
		return ans, nil
	})
}

// The worker's default limits: ontime serve's --upload-memory and
// --upload-time, and the command line's --fit-memory and --fit-time (a fit
// from the command line is bounded as an upload's is).
const (
	DefaultWorkerMemoryMB = 4096
	DefaultWorkerTime     = 2 * time.Minute
)

// asProblems is a worker's error as problems to send back (list: it was a
// list of them; any other error is sent as one problem).
func asProblems(err error) (list bool, ps engine.Problems) {
	if ps, ok := engine.ProblemsOf(err); ok {
		return errors.As(err, new(engine.Problems)), ps
	}
	return false, engine.Problems{{Code: engine.EINVALID, Message: err.Error()}}
}

// ReadTime bounds reading one upload (the worker's time limit; 0: none,
// the upload is read in this process).
func (l *Lab) ReadTime() time.Duration {
	if l.opts.Worker == nil {
		return 0
	}
	return l.opts.Worker.Time
}

// importIn reads files in the lab's worker, as netfile.Import does in
// process.
func (l *Lab) importIn(ctx context.Context, files []netfile.File, o netfile.ImportOptions) (*engine.Network, *netfile.ImportReport, error) {
	var ans importAnswer
	if err := l.opts.Worker.Run(ctx, importWork, importRequest{Files: files, Options: o, MaxExplicitLinks: o.MaxExplicitLinks}, &ans); err != nil {
		return nil, nil, err
	}
	if len(ans.Err) > 0 {
		if !ans.List {
			return nil, ans.Report, ans.Err[0]
		}
		return nil, ans.Report, ans.Err
	}
	net, err := netfile.ReadJSON(bytes.NewReader(ans.Network), "the upload")
	if err != nil {
		return nil, ans.Report, err
	}
	return net, ans.Report, nil
}

// An uploaded model's trial run is done in a worker too (Options.Worker):
// killed at AcceptTime or when the uploader leaves, and a graph that
// allocates without bound ends the child, not the server.
const trialWork = "model-trial"

// workNetwork is a network sent to a worker with the cache directory of
// its dense factor: what the trial and the dense build both start from.
type workNetwork struct {
	Network  json.RawMessage `json:"network"`             // ontime JSON
	CacheDir string          `json:"cache_dir,omitempty"` // dense factors
}

func newWorkNetwork(net *engine.Network, cacheDir string) (workNetwork, error) {
	var b bytes.Buffer
	err := netfile.WriteJSON(&b, net)
	return workNetwork{Network: b.Bytes(), CacheDir: cacheDir}, err
}

// open reads the network and builds its link-time model (reading the
// dense factor from the cache, or building it and writing it there).
func (w workNetwork) open() (*engine.Network, *linktime.Gaussian, error) {
	net, err := netfile.ReadJSON(bytes.NewReader(w.Network), "the network")
	if err != nil {
		return nil, nil, err
	}
	model, err := linktime.NewCached(net, w.CacheDir)
	return net, model, err
}

type trialRequest struct {
	workNetwork
	Model  string `json:"model"` // the uploaded file
	ORTLib string `json:"ort_lib,omitempty"`
}

func init() {
	worker.Register(trialWork, func(in []byte) (any, error) {
		var req trialRequest
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		net, model, err := req.open()
		if err != nil {
			return nil, err
		}
		var opts []ort.Option
		if req.ORTLib != "" {
			opts = append(opts, ort.WithLibrary(req.ORTLib))
		}
		check, err := trialRun(context.Background(), net, model, req.Model, opts)
		if err != nil {
			return nil, engine.Errorf(engine.EINVALID, "%v", err)
		}
		return check, nil
	})
}

// trialIn is trialRun in the lab's worker process.
func (l *Lab) trialIn(ctx context.Context, n *Net, path string) (string, error) {
	wn, err := newWorkNetwork(n.Net, l.opts.CacheDir)
	if err != nil {
		return "", err
	}
	var check string
	w := *l.opts.Worker
	w.Time = 0 // the trial's own limit (AcceptTime) is in ctx
	peak, err := w.RunPeak(ctx, trialWork, trialRequest{workNetwork: wn, Model: path, ORTLib: n.env.ORTLib}, &check)
	if err == nil && peak > ModelMemory {
		return "", engine.Errorf(engine.ETOOLARGE, "checking and trying it took %d MB of memory; the dashboard runs models of up to %d MB (it runs them in its own process once accepted)", peak>>20, ModelMemory>>20)
	}
	return check, err
}

// ModelMemory bounds what an accepted model may take to check and try (the
// worker's peak resident memory, the network's pools and the binary
// included): an accepted model runs in the server process afterwards
// (comparisons, live runs, benchmarks), so this is what one costs there.
const ModelMemory = 1 << 30

// A dense link-time model (a correlation over a thousand links) is
// factorized in a worker too, when the lab has one and a cache directory
// to pass the factor back through: an upload chooses its size, and its
// eigen decomposition cannot be interrupted in place. One is built at a
// time (denseTurn); the child is memory-limited as uploads are, and killed
// after DenseBuildTime or when the lab closes.
const denseWork = "dense-model"

// DenseBuildTime bounds one dense model's factorization in the worker.
const DenseBuildTime = 10 * time.Minute

func init() {
	worker.Register(denseWork, func(in []byte) (any, error) {
		var req workNetwork
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		if _, _, err := req.open(); err != nil { // writes the factor
			return nil, err
		}
		return "built", nil
	})
}

// denseInWorker says whether net's model is factorized in the worker: a
// slow dense model not cached yet, with a worker and a cache directory to
// pass the factor back through.
func (l *Lab) denseInWorker(net *engine.Network) bool {
	return l.opts.Worker != nil && l.opts.CacheDir != "" && SlowModel(net) && !linktime.Cached(net, l.opts.CacheDir)
}

// buildDenseIn factorizes net's dense model in the worker, leaving the
// factor in the cache directory, where BuildModel then reads it.
func (l *Lab) buildDenseIn(e *netEntry, net *engine.Network) error {
	ctx, cancel := context.WithCancel(l.ctx)
	defer cancel()
	e.mu.Lock()
	e.cancel = cancel
	e.mu.Unlock()
	select {
	case l.denseTurn <- struct{}{}:
		defer func() { <-l.denseTurn }()
	case <-ctx.Done():
		return l.denseStopped(net)
	}
	wn, err := newWorkNetwork(net, l.opts.CacheDir)
	if err != nil {
		return err
	}
	w := *l.opts.Worker
	w.Time = DenseBuildTime
	start := time.Now()
	e.mu.Lock()
	e.turn = start
	e.mu.Unlock()
	var done string
	err = w.Run(ctx, denseWork, wn, &done)
	switch {
	case ctx.Err() != nil:
		return l.denseStopped(net)
	case err != nil:
		return engine.Errorf(engine.ETOOLARGE, "the link-time model of %s (%d links, %s correlation) could not be built within the dashboard's limits (%v): import it again with spatial-factor correlation, which scales to any size",
			net.Name, len(net.Links), net.Correlation.Model, engine.ErrorMessage(err))
	}
	l.denseRate.learn(len(net.Links), time.Since(start))
	return nil
}

// denseStopped is a build's end when its network was deleted or renamed
// (stop) or the lab closed.
func (l *Lab) denseStopped(net *engine.Network) error {
	return engine.Errorf(engine.EBUSY, "the link-time model of %s was being built when the network was changed or the dashboard stopped; open it again", net.Name)
}

// Dense models waiting for or in their build, at most: in all, and saved
// by one client (a visitor saves one, sees it built, then the next).
const (
	MaxDenseBuilds          = 8
	MaxDenseBuildsPerClient = 1
)

// denseAllowed says whether owner may save one more network whose dense
// model must be built (ETOOMANY when not).
func (l *Lab) denseAllowed(owner string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	mine := 0
	for name, by := range l.denseBy {
		if by == owner && owner != "" {
			mine++
			if mine >= MaxDenseBuildsPerClient {
				return engine.Errorf(engine.ETOOMANY, "the link-time model of %s, which you saved, is still being built (a dense correlation): wait until its page opens before saving another network that needs one, or choose the spatial-factor correlation, which needs none", name)
			}
		}
	}
	if len(l.denseBy) >= MaxDenseBuilds {
		return engine.Errorf(engine.ETOOMANY, "the dashboard is building %d dense link-time models, its limit: try again when one is ready, or choose the spatial-factor correlation, which needs none", len(l.denseBy))
	}
	return nil
}

// denseDone ends a network's count against its saver.
func (l *Lab) denseDone(name string) {
	l.mu.Lock()
	delete(l.denseBy, name)
	l.mu.Unlock()
}
