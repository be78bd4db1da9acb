package lab

import (
	"bytes"
	"context"
	"slices"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// A sketch is a small network drawn in the browser (ontime JSON), run at
// once by every method without being stored. Saving it goes through the
// upload's preview, like any file.
const (
	MaxSketchNodes    = 40
	MaxSketchLinks    = 160
	SketchEpisodes    = PoolSize // one common test pool
	sketchNetworkFile = "the sketch"
)

// SketchRequest is a drawn network and the trip to run on it.
type SketchRequest struct {
	Network []byte // ontime JSON
	OD      string // "ORIGIN-DESTINATION" by node ids
	Factor  float64
	// Methods names the methods to run (nil: every offered one); a name
	// that is not a method is refused.
	Methods []string
}

// SketchResult is every offered method's on-time rate on one test pool,
// those that cannot run on an unsaved sketch listed with the reason.
type SketchResult struct {
	OD      string
	LETTime float64
	Budget  float64
	// Clipped counts negative eigenvalues of the stated covariance set to
	// 0: the correlations asked for cannot all hold at once.
	Clipped int
	Rates   []Rate
}

// SketchNeedsModel is why a method that runs a trained model is not run on
// an unsaved sketch.
const SketchNeedsModel = "needs a model trained for this network: save the sketch, then train one on its page"

// RunSketch reads a sketch, builds its link-time model and runs every
// offered method on the first common test pool. Sketches share the
// previews' bound on work at once.
func (l *Lab) RunSketch(ctx context.Context, req SketchRequest) (*SketchResult, error) {
	net, err := readSketch(req.Network)
	if err != nil {
		return nil, err
	}
	od, err := net.ParseOD(req.OD)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "%s: trip %q: %s", sketchNetworkFile, req.OD, engine.ErrorMessage(err))
	}
	// The learners train for this trip and budget only; the path methods
	// plan it as their task.
	net.ODs, net.Factors = []engine.OD{od}, []float64{req.Factor}
	done, err := l.pend.turn(ctx, "the dashboard is busy with other networks; this sketch gave up waiting")
	if err != nil {
		return nil, err
	}
	defer done()
	// Nothing of a sketch is cached on disk: it is drawn, run and gone.
	model, err := linktime.NewCached(net, "")
	if err != nil {
		return nil, err
	}
	o := l.opts
	o.CacheDir = ""
	n := newNet(net, model, o, "")
	chosen, err := sketchMethods(req.Methods)
	if err != nil {
		return nil, err
	}
	var methods []string
	var needModel []string
	for _, m := range chosen {
		if m.NetworkModel {
			needModel = append(needModel, m.Name)
			continue
		}
		methods = append(methods, m.Name)
	}
	live, err := n.Live(ctx, LiveRequest{OD: od, Factor: req.Factor, Methods: methods, Episodes: SketchEpisodes, Chunk: SketchEpisodes}, nil)
	if err != nil {
		return nil, err
	}
	res := &SketchResult{OD: req.OD, LETTime: live.LETTime, Budget: live.Budget, Clipped: model.Stats.Clipped, Rates: live.Rates}
	for _, m := range needModel {
		res.Rates = append(res.Rates, Rate{Method: m, Err: SketchNeedsModel})
	}
	return res, nil
}

// sketchMethods is the offered methods named (all of them when names is
// empty), in the order the dashboard lists them.
func sketchMethods(names []string) ([]MethodInfo, error) {
	offered := Methods()
	if len(names) == 0 {
		return offered, nil
	}
	for _, name := range names {
		if !slices.ContainsFunc(offered, func(m MethodInfo) bool { return m.Name == name }) {
			e := engine.Errorf(engine.EINVALID, "method %q is not offered on a sketch", name)
			e.Field = "m"
			return nil, e
		}
	}
	return slices.DeleteFunc(offered, func(m MethodInfo) bool { return !slices.Contains(names, m.Name) }), nil
}

// readSketch reads a sketch's JSON, within the sketch's bounds.
func readSketch(data []byte) (*engine.Network, error) {
	net, err := netfile.ReadJSON(bytes.NewReader(data), sketchNetworkFile)
	if err != nil {
		return nil, err
	}
	if len(net.Nodes) > MaxSketchNodes || len(net.Links) > MaxSketchLinks {
		return nil, engine.Errorf(engine.EINVALID, "%s has %d nodes and %d links: a sketch holds at most %d and %d (upload a larger network as a file)",
			sketchNetworkFile, len(net.Nodes), len(net.Links), MaxSketchNodes, MaxSketchLinks)
	}
	if net.Name == "" {
		net.Name = "sketch"
	}
	return net, nil
}
