// Finding a learned policy's model (the shipped ones, a network's own, an
// uploaded one, onnx:PATH), reading its card, and making each a method.

package policy

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/trainspec"
	"github.com/ontime-routing/ontime/internal/install"
	"github.com/ontime-routing/ontime/models"
)

// onnxMethod is the method for "onnx:PATH": bring your own policy.
func onnxMethod(name string) (Method, bool) {
	path, ok := strings.CutPrefix(name, "onnx:")
	if !ok || path == "" {
		return Method{}, false
	}
	return Method{Name: name, Doc: "a policy model following the GPG-HT ONNX interface", Kind: Model, Label: "a policy model from a file",
		New: func(env *Env) (engine.Policy, map[string]any, error) {
			p, err := NewONNXPolicy(env.Net, path, ONNXOptions{Sampled: env.Sampled}, env.ortOptions()...)
			if err != nil {
				return nil, nil, err
			}
			return p, modelFacts(path, map[string]any{"model": path, "device": p.Device(), "greedy": !env.Sampled}), nil
		}}, true
}

// modelFacts adds what a report's provenance needs to name the model that
// ran exactly: its file's SHA-256 and the ONNX Runtime version that ran it.
func modelFacts(path string, settings map[string]any) map[string]any {
	if data, err := os.ReadFile(path); err == nil {
		settings["model_sha256"] = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	settings["onnxruntime"] = ort.Version()
	return settings
}

// userMethod is the method for "user:NAME": a model a user uploaded for
// the network, checked against the interface when it was accepted.
func userMethod(name string) (Method, bool) {
	model, ok := strings.CutPrefix(name, UserPrefix)
	if !ok || model == "" {
		return Method{}, false
	}
	return Method{Name: name, Doc: "a policy model you uploaded (user-provided)", Kind: Model, Label: model + " (user-provided model)",
		New: func(env *Env) (engine.Policy, map[string]any, error) {
			path, ok := "", false
			if env.UserModel != nil {
				path, ok = env.UserModel(model)
			}
			if !ok {
				return nil, nil, engine.Errorf(engine.ENOTFOUND, "no uploaded model %q for network %s", model, env.Net.Name)
			}
			p, err := NewONNXPolicy(env.Net, path, ONNXOptions{Sampled: env.Sampled}, env.ortOptions()...)
			if err != nil {
				return nil, nil, err
			}
			return p, modelFacts(path, map[string]any{"model": model, "user_provided": true, "device": p.Device(), "greedy": !env.Sampled}), nil
		}}, true
}

// ModelFile is the file name of a network's model, or of one of its
// ablations.
func ModelFile(network, ablation string) string {
	if ablation == "" {
		return network + ".onnx"
	}
	return network + "-" + ablation + ".onnx"
}

// gpghtMethod is the trained GPG-HT model of the network (or an ablation of
// it), refused when its card says it was trained for another network or
// correlation.
func gpghtMethod(ablation string) Method {
	name := "gpght"
	if ablation != "" {
		name += "-" + ablation
	}
	m := Method{Name: name, Doc: ablationDocs[ablation], Kind: Model, Color: "#d55e00", NoClock: "the model reads no clock among its inputs: it was trained on a law the same at every hour",
		Label:     "the GPG-HT control " + ablation + " (a trained Transformer)",
		Reference: "A control of the GPG-HT model (models/README.md)."}
	if ablation == "" {
		m.Label, m.Offered, m.Compare, m.Bench, m.Warm = "a Transformer trained on route histories (GPG-HT)", true, true, true, true
		m.NetworkModel, m.Lessons = true, map[string]string{"history": "learned"}
		m.Reference = "Wei, Zhao, Zhang, Ouyang & Qin (2025), Learning graph-indexed trajectory patterns for SOTA routing (arXiv 2508.17218): a history-conditioned Transformer trained by a generalized policy gradient; ontime trains its own (models/)."
	}
	m.Cover = func(env *Env) *Cover {
		card, err := ReadModelCard(env.ModelsDir, env.Net.Name, ablation)
		if err != nil {
			return nil
		}
		return card.Cover(name)
	}
	m.New = func(env *Env) (engine.Policy, map[string]any, error) {
		dir := env.ModelsDir
		if dir == "" {
			dir = findModels()
		}
		path := filepath.Join(dir, ModelFile(env.Net.Name, ablation))
		if _, err := os.Stat(path); err != nil {
			hint := ""
			if ablation != "" {
				hint = " --ablation " + ablation
			}
			// The model's name, never its path: the message reaches
			// anonymous clients (the API, /readyz).
			return nil, nil, engine.Errorf(engine.ENOTFOUND, "no trained model %s for network %s: run `ontime train --network %s%s`", ModelFile(env.Net.Name, ablation), env.Net.Name, env.Net.Name, hint)
		}
		card, err := readCard(path)
		if err != nil {
			return nil, nil, err
		}
		corr := env.Model.Spec
		if ablation == "indep" {
			corr = engine.Correlation{Model: linktime.Independent}
		}
		if want := trainspec.Fingerprint(env.Net, corr); card.Fingerprint != want {
			return nil, nil, engine.Errorf(engine.EINVALID, "model %s was trained for another network or correlation (fingerprint %s, this run %s): retrain with ontime train",
				filepath.Base(path), card.Fingerprint, want)
		}
		if card.Ablation != ablation {
			return nil, nil, engine.Errorf(engine.EINVALID, "model %s: its card says ablation %q, method %s wants %q", filepath.Base(path), card.Ablation, name, ablation)
		}
		p, err := NewONNXPolicy(env.Net, path, ONNXOptions{Sampled: env.Sampled, Shuffle: ablation == "shuffled"}, env.ortOptions()...)
		if err != nil {
			return nil, nil, err
		}
		p.cover = card.Cover(name)
		return p, modelFacts(path, map[string]any{"model": path, "device": p.Device(), "greedy": !env.Sampled, "parameters": card.Model.Parameters,
			"teacher": card.Training.Teacher, "budget_factors": card.BudgetFactors, "ablation": ablation}), nil
	}
	return m
}

// ReadModelCard reads the card of a network's model (or of one of its
// ablations) in dir ("" : models/ found upwards).
func ReadModelCard(dir, network, ablation string) (*ModelCard, error) {
	if dir == "" {
		dir = findModels()
	}
	return readCard(filepath.Join(dir, ModelFile(network, ablation)))
}

func readCard(model string) (*ModelCard, error) {
	path := strings.TrimSuffix(model, ".onnx") + ".card.json"
	b, err := os.ReadFile(path)
	if err != nil {
		// The card's name and why, never its path (an os error names it).
		why := "cannot be read"
		if errors.Is(err, fs.ErrNotExist) {
			why = "not found"
		}
		return nil, &engine.Error{Code: engine.ENOTFOUND, Message: fmt.Sprintf("model card %s: %s", filepath.Base(path), why), Err: err}
	}
	var c ModelCard
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "model card %s: %v", filepath.Base(path), err)
	}
	c.Path = model
	return &c, nil
}

// findModels looks for the committed models directory beside or above the
// binary, else the working directory (see install), else unpacks the
// models the binary carries into the user's cache: a dashboard started
// from any directory, or installed without its checkout, keeps its
// built-in models.
func findModels() string {
	if p, ok := install.Find("models", install.IsDir); ok {
		return p
	}
	unpacked.once.Do(func() { unpacked.dir, unpacked.err = install.Unpack(models.Files, "models") })
	if unpacked.err == nil {
		return unpacked.dir
	}
	return "models"
}
