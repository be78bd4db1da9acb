// Package lab is what the dashboard and the command line work with: the
// networks it can open, their link-time models, and the routing methods on
// them, each built once and kept (DOT tables are solved once per
// destination, learners trained once). It knows nothing of HTTP; the server
// renders what it returns. It re-exports nothing: the engine's domain
// packages give their own types to whoever renders them.
//
// Its files are grouped by domain, each group's files named by it:
//
//   - lab.go, net.go, ready.go: the lab, an opened network, readiness;
//   - networks*.go: stored networks, imports and uploads (read in a child
//     process), dense models built in the background, fits, quotas;
//   - runs_*.go: work on one OD pair: comparisons, live runs and their
//     figures, on-time rates, plans and routes out;
//   - bench_*.go, jobs_*.go: benchmark jobs, published and imported
//     reports, and the table of job kinds;
//   - models_*.go: training jobs and uploaded models;
//   - lessons*.go, pages_info.go: the lessons' figures, the sketchpad, and
//     what the teaching, models and about pages show.
package lab

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/store"
	"github.com/ontime-routing/ontime/engine/train"
	"github.com/ontime-routing/ontime/engine/worker"
)

// Options say where a lab finds its data, models and caches.
type Options struct {
	DataDir   string // benchmark files ("" : only the built-in example)
	ModelsDir string // trained models ("" : models/ found upwards)
	CacheDir  string // trained learners ("" : no cache)
	ORTLib    string // ONNX Runtime library override
	Device    string // "cpu" or "cuda" for ONNX policies
	// Version and Commit are the build's, recorded in every report's
	// provenance (the dashboard's jobs and the command line's alike).
	Version, Commit string
	Logf            func(format string, args ...any)
	// StateDir holds users' data (uploaded networks, jobs) in its database,
	// opened on first use; Store, when set, is used instead.
	StateDir string
	Store    *store.Store
	// Trainer runs the PyTorch side of training jobs (its Script found
	// from the binary's install or $ONTIME_TRAINER when empty; ontime
	// serve sets Nice so that pages stay interactive while a job trains).
	Trainer train.Trainer
	// JobLog also receives every job's log (the command line's stderr when
	// it runs a job of the one jobs service in its own process).
	JobLog io.Writer
	// Concurrency is how many background jobs run at once (default 1; the
	// rest queue).
	Concurrency int
	// MaxJobs and MaxJobsPerClient bound the jobs queued or running at
	// once, in total and per owner (0: the jobs service's defaults; -1: no
	// bound).
	MaxJobs, MaxJobsPerClient int
	// Worker, when set, reads dashboard uploads in a child process (killed
	// when the uploader leaves or its time is up, memory-limited); nil
	// reads them in this process.
	Worker *worker.Command
	// Quota bounds the networks and models the state directory stores
	// (zero fields: DefaultQuota's).
	Quota Quota
}

// Lab holds the opened networks.
type Lab struct {
	opts Options
	mu   sync.Mutex
	nets map[string]*netEntry
	// denseBy names who saved each network whose dense model is being
	// built (denseAllowed bounds them).
	denseBy map[string]string
	pend    pending

	jobsOnce sync.Once
	js       *jobs.Service

	// ctx ends with the lab (Close): background jobs run under it.
	ctx    context.Context
	cancel context.CancelFunc

	storeOnce sync.Once
	st        *store.Store
	stErr     error

	accepting chan struct{} // one uploaded model tried at a time
	denseTurn chan struct{} // one dense model factorized at a time
	denseRate denseRate     // what one costs, for estimates
	quotaMu   sync.Mutex    // a network saved at a time, against the quota
	warm      warmProgress  // Warm's progress, for Ready
}

type netEntry struct {
	once sync.Once
	done chan struct{} // closed when net or err is set
	net  *Net
	err  error
	// The network as read, before its link-time model is built (Graph
	// and Open share the read).
	readOnce sync.Once
	graph    *engine.Network
	readErr  error
	// A dense model's build, while it runs (buildOf): its size, when its
	// turn came (zero while it waits), and how to stop it when the network
	// is deleted or renamed.
	mu     sync.Mutex
	links  int
	corr   string
	turn   time.Time
	cancel context.CancelFunc
}

// New returns a lab; nothing is loaded until asked for.
func New(o Options) *Lab {
	ctx, cancel := context.WithCancel(context.Background())
	return &Lab{opts: o, nets: map[string]*netEntry{}, denseBy: map[string]string{}, ctx: ctx, cancel: cancel, accepting: make(chan struct{}, 1), denseTurn: make(chan struct{}, 1),
		pend: pending{work: make(chan struct{}, maxImportsAtOnce)}}
}

// NetworkInfo says whether a network can be opened, and why not.
type NetworkInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Available   bool   `json:"available"`
	Reason      string `json:"reason,omitempty"` // why it is unavailable (missing data files, …)
	Nodes       int    `json:"nodes"`
	Links       int    `json:"links"`
	Stored      bool   `json:"stored"` // a user's network from the state directory
}

// Networks lists the built-in networks in their fixed order, then the
// stored ones by name.
func (l *Lab) Networks() []NetworkInfo {
	return append(l.builtinNetworks(), l.storedNetworks()...)
}

func (l *Lab) builtinNetworks() []NetworkInfo {
	var out []NetworkInfo
	for _, name := range builtin.Names {
		info := NetworkInfo{Name: name, Description: builtin.Describe[name]}
		if n, err := l.Open(name); err != nil {
			info.Reason = engine.ErrorMessage(err)
		} else {
			info.Available, info.Nodes, info.Links = true, len(n.Net.Nodes), len(n.Net.Links)
		}
		out = append(out, info)
	}
	return out
}

// Open loads a built-in or stored network and its link-time model (once).
// A model that takes long to build (a dense correlation over a thousand
// links, not yet cached) is built in the background, once: until it is
// ready, Open says so (EBUSY) at once instead of holding every request for
// that network.
func (l *Lab) Open(name string) (*Net, error) {
	if netfile.LooksLikePath(name) {
		return nil, notByName(name)
	}
	e := l.entry(name)
	e.once.Do(func() {
		net, err := l.read(name, e)
		if err != nil {
			l.denseDone(name)
			l.opened(name, e, nil, err)
			return
		}
		if SlowModel(net) && !linktime.Cached(net, l.opts.CacheDir) {
			e.mu.Lock()
			e.links, e.corr = len(net.Links), net.Correlation.Model
			e.mu.Unlock()
			l.logf("building the link-time model of %s (%d links) in the background", name, len(net.Links))
			go l.openWith(name, e, net)
			return
		}
		l.openWith(name, e, net)
	})
	select {
	case <-e.done:
		return e.net, e.err
	default:
		if b, ok := l.buildOf(name, e); ok {
			return nil, newBuildingError(b)
		}
		return nil, engine.Errorf(engine.EBUSY, "%s is being opened; this page tries again by itself", name)
	}
}

// Graph returns a network as read, without its link-time model: what its
// map and facts need. The model is built when a page that needs it opens
// the network (Open), not here: a city's network page waited for it (a
// 249,000-link grid: read in 0.4 s, its spatial-factor model 0.9 s more),
// and building it beside the page's own work slowed the map's first paint
// on two cores.
func (l *Lab) Graph(name string) (*engine.Network, error) {
	if netfile.LooksLikePath(name) {
		return nil, notByName(name)
	}
	return l.read(name, l.entry(name))
}

// read reads e's network once. A network that cannot be read is forgotten,
// as Open forgets it (its files may be fetched later).
func (l *Lab) read(name string, e *netEntry) (*engine.Network, error) {
	e.readOnce.Do(func() {
		e.graph, e.readErr = l.LoadNetwork(context.Background(), name)
		if e.readErr != nil {
			l.drop(name, e)
		}
	})
	return e.graph, e.readErr
}

// Building says whether name's link-time model is being built in the
// background, and how far it is. A slow one (a dense model not cached:
// minutes) starts here, once, so that the network's page shows its
// progress; a quick one is built by the first page that needs it.
func (l *Lab) Building(name string) (ModelBuild, bool) {
	if net, err := l.Graph(name); err != nil || !SlowModel(net) {
		return ModelBuild{}, false
	}
	_, err := l.Open(name)
	return AsBuilding(err)
}

// entry is name's entry, made on first use.
func (l *Lab) entry(name string) *netEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.nets[name]
	if !ok {
		e = &netEntry{done: make(chan struct{})}
		l.nets[name] = e
	}
	return e
}

func notByName(name string) error {
	return engine.Errorf(engine.ENOTFOUND, "no network %q (the dashboard opens networks by name)", engine.Excerpt(name))
}

// OpenWait opens a network as Open does, waiting while its link-time model
// is built (the command line has no page that tries again by itself).
func (l *Lab) OpenWait(ctx context.Context, name string) (*Net, error) {
	for {
		n, err := l.Open(name)
		if engine.ErrorCode(err) != engine.EBUSY {
			return n, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// openWith builds net's model and methods and finishes e. A slow dense
// model is factorized in the worker when there is one (buildDenseIn); one
// that passes the worker's limits stays failed, saying so, until the
// network is saved again or the server restarts, rather than being
// started again by every page that asks.
func (l *Lab) openWith(name string, e *netEntry, net *engine.Network) {
	defer l.denseDone(name)
	if l.denseInWorker(net) {
		if err := l.buildDenseIn(e, net); err != nil {
			e.net, e.err = nil, err
			close(e.done) // kept: see above
			return
		}
	} else {
		e.mu.Lock()
		e.turn = time.Now() // built here, now
		e.mu.Unlock()
	}
	model, err := l.BuildModel(net)
	if err != nil {
		l.opened(name, e, nil, err)
		return
	}
	n := newNet(net, model, l.opts, l.ModelsDirFor(name))
	n.uploaded = func() []UserModel { return l.UserModels(n) }
	n.env.UserModel = n.userModel
	l.opened(name, e, n, nil)
}

// opened records how opening ended; a network that failed is forgotten
// (its files may be fetched later).
func (l *Lab) opened(name string, e *netEntry, n *Net, err error) {
	e.net, e.err = n, err
	close(e.done)
	if err != nil {
		l.drop(name, e)
	}
}

// drop forgets e, if it is still name's entry.
func (l *Lab) drop(name string, e *netEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nets[name] == e {
		delete(l.nets, name)
	}
}

// ModelsDirFor is where a network's GPG-HT model lives: the built-ins'
// in the models directory (committed models), a stored network's in the
// state directory's models/ (trained by a job or `ontime train`). The CLI
// reads models where the dashboard does.
func (l *Lab) ModelsDirFor(name string) string {
	if builtin.IsBuiltin(name) {
		return l.opts.ModelsDir
	}
	return l.stateModels()
}

// stateModels is the state directory's models/ ("" without one).
func (l *Lab) stateModels() string {
	st, err := l.store()
	if err != nil {
		return ""
	}
	return filepath.Join(st.Dir, "models")
}

// warmMethods are built ahead of the first request by Warm: the
// registry's methods marked Warm (the default comparison's, and those whose
// first use is slow: DOT's tables, cgr's continuations, bestpath's k
// shortest paths).
func warmMethods() []string {
	var out []string
	for _, m := range policy.Methods {
		if m.Warm {
			out = append(out, m.Name)
		}
	}
	return out
}

// Warm opens every available built-in network and drives each warm method once per
// benchmark OD pair at the largest budget factor the pages offer, so that
// tables and caches are ready before anyone asks. It stops when ctx ends.
func (l *Lab) Warm(ctx context.Context, maxFactor float64) {
	methods := warmMethods()
	var nets []*Net
	w := &l.warm
	w.mu.Lock()
	w.started = true
	w.mu.Unlock()
	for _, info := range l.builtinNetworks() { // stored ones build on first use
		if n, err := l.Open(info.Name); info.Available && err == nil {
			nets = append(nets, n)
			w.mu.Lock()
			w.pairs += len(n.Net.ODs)
			w.mu.Unlock()
		}
	}
	for _, n := range nets {
		for _, od := range n.Net.ODs {
			if ctx.Err() != nil {
				return
			}
			n.Compare(ctx, CompareRequest{OD: od, Factor: maxFactor, Methods: methods})
			w.mu.Lock()
			w.finished++
			w.mu.Unlock()
		}
	}
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}

// Teaching opens the five-node example the teaching view is built on.
func (l *Lab) Teaching() (*Net, error) { return l.Open(builtin.Example) }

// BuildModel builds a network's link-time model, its dense correlation
// factor kept in (and read back from) the cache directory.
func (l *Lab) BuildModel(net *engine.Network) (*linktime.Gaussian, error) {
	return linktime.NewCached(net, l.opts.CacheDir)
}

// SlowModel reports whether a network's link-time model takes long enough
// to build (a dense correlation over a thousand links) to build it at import.
func SlowModel(net *engine.Network) bool {
	return linktime.Dense(net.Correlation.Model) && len(net.Links) > 1000
}
