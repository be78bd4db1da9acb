package lab

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/trainspec"
)

// TeachSetup is what the teaching view opens with: the example's first
// link law (the slider's range is μ ± 3σ, floored), its budget at factor 1
// and the closed-form optimum.
type TeachSetup struct {
	Observed, Lo, Hi, Mean, SD, Budget, Optimum float64
}

// TeachSetup describes the five-node example's teaching view.
func (n *Net) TeachSetup() TeachSetup {
	first := n.Net.Links[n.Net.Out(n.Net.ODs[0].Origin)[0]]
	sd := first.SD()
	let, _ := n.Validate(n.Net.ODs[0], 1)
	// The page opens on a slow A→B (1.5 σ above its mean), where what was
	// seen changes the better branch; at the mean the branches tie.
	slow := math.Round((first.Mean+1.5*sd)*10) / 10
	return TeachSetup{Observed: slow, Lo: max(n.Model.Floors[n.Net.Out(n.Net.ODs[0].Origin)[0]], first.Mean-3*sd), Hi: first.Mean + 3*sd,
		Mean: first.Mean, SD: sd, Budget: let, Optimum: policy.TwoBranchOptimum()}
}

// ModelInfo is a network's GPG-HT model as the models page shows it.
type ModelInfo struct {
	Network  string
	File     string
	Card     *policy.ModelCard
	Err      string
	Controls []*policy.ModelCard // the ablations trained for it
}

// ModelUnavailable says in one sentence, for any page, why network's
// trained model cannot answer (err from opening it; nil when none was
// found): no library to run it, a damaged model (naming its file), or no
// model and how to get one. No command line, no path. Every page that
// lacks a model says it in these words.
func (l *Lab) ModelUnavailable(network string, err error) string {
	return noModel(network, err, l.TrainingAvailable(network))
}

// noModel is ModelUnavailable given why the network cannot be trained
// from the dashboard ("" when it can).
func noModel(network string, err error, noTraining string) string {
	switch {
	case err != nil && (engine.ErrorCode(err) != engine.ENOTFOUND || errors.Is(err, ort.ErrNoLibrary)):
		return cannotRun(err) // no library, or a damaged model (it names its file)
	case builtin.IsBuiltin(network):
		return "No trained model for this built-in network was found here: the Models page says how to get one."
	case noTraining != "":
		return "No trained model for this network yet; " + noTraining + "."
	}
	return "No trained model for this network yet: the Models page trains one."
}

// cannotRun says why a model that exists cannot run on this machine.
func cannotRun(err error) string {
	if errors.Is(err, ort.ErrNoLibrary) {
		return "The model cannot run here: ontime found no ONNX Runtime library beside it (an administrator points ONTIME_ORT_LIB at one)."
	}
	return "The model cannot run here: " + err.Error()
}

// Models lists every network's GPG-HT model, or why it has none.
func (l *Lab) Models() []ModelInfo {
	var out []ModelInfo
	for _, info := range l.Networks() {
		mi := ModelInfo{Network: info.Name, File: policy.ModelFile(info.Name, "")}
		// Without a card there is no model, and the network need not be
		// opened (a stored network's first open factors its covariance).
		dir := l.ModelsDirFor(info.Name)
		if _, err := policy.ReadModelCard(dir, info.Name, ""); err != nil {
			mi.Err = l.ModelUnavailable(info.Name, nil)
			out = append(out, mi)
			continue
		}
		n, err := l.Open(info.Name)
		switch {
		case err != nil:
			mi.Err = "network unavailable: " + info.Reason
		default:
			card, err := n.Card()
			if err != nil {
				mi.Err = l.ModelUnavailable(info.Name, nil)
				break
			}
			if want := trainspec.Fingerprint(n.Net, n.Model.Spec); card.Fingerprint != want {
				mi.Err = fmt.Sprintf("stale: the model was trained for another version of this network or its correlation (fingerprint %s, the network's is now %s); it is not used. Train it again.", card.Fingerprint, want)
				break
			}
			if _, err := n.Policy(policy.NetworkModelName()); err != nil {
				mi.Err = cannotRun(err)
				break
			}
			mi.Card = card
			for _, a := range policy.Ablations {
				if c, err := policy.ReadModelCard(dir, info.Name, a); err == nil {
					mi.Controls = append(mi.Controls, c)
				}
			}
		}
		out = append(out, mi)
	}
	return out
}

// About is what the "About the numbers" page states.
type About struct {
	Floor    float64
	Files    []builtin.DataFile
	Licences [][2]string // key, text
	Methods  []MethodInfo
}

// AboutInfo gathers the facts of the about page from the engine.
func AboutInfo() About {
	a := About{Floor: linktime.Floor, Files: builtin.DataFiles, Methods: Methods()}
	keys := make([]string, 0, len(builtin.Licences))
	for k := range builtin.Licences {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a.Licences = append(a.Licences, [2]string{k, builtin.Licences[k]})
	}
	return a
}

var endNames = map[sim.End]string{sim.Arrived: "arrived", sim.OverTime: "over_time", sim.DeadEnd: "dead_end", sim.CapHit: "step_cap"}

// EndName names how an episode ended, for the streams.
func EndName(e sim.End) string { return endNames[e] }
