package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/trainspec"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// UserModel is an ONNX policy a user uploaded for a network; its card
// (NAME.json beside NAME.onnx) records where it came from.
type UserModel struct {
	Name        string    `json:"name"`
	Method      string    `json:"method"` // user:NAME
	Network     string    `json:"network"`
	Fingerprint string    `json:"fingerprint"` // the network's when it was accepted
	File        string    `json:"file"`        // the uploaded file's name
	SHA256      string    `json:"sha256"`
	Bytes       int       `json:"bytes"`
	Uploaded    time.Time `json:"uploaded"`
	// Check is what the acceptance run measured: on-time rate of greedy
	// decisions on the first validation realizations.
	Check string `json:"check"`
	Stale bool   `json:"-"` // the network changed since: not offered
	path  string
}

// userDir holds a network's uploaded models.
func (l *Lab) userDir(network string) (string, error) {
	st, err := l.store()
	if err != nil {
		return "", engine.Errorf(engine.EINVALID, "uploaded models need a state directory (ontime serve --state DIR)")
	}
	return filepath.Join(st.Dir, "models", "user", network), nil
}

// UserModels lists a network's uploaded models by name.
func (l *Lab) UserModels(n *Net) []UserModel {
	dir, err := l.userDir(n.Net.Name)
	if err != nil {
		return nil
	}
	cards, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	fp := trainspec.Fingerprint(n.Net, n.Model.Spec)
	var out []UserModel
	for _, c := range cards {
		raw, err := os.ReadFile(c)
		var m UserModel
		if err != nil || json.Unmarshal(raw, &m) != nil {
			continue
		}
		if _, err := os.Stat(strings.TrimSuffix(c, ".json") + ".onnx"); err != nil {
			continue
		}
		m.Stale, m.path = m.Fingerprint != fp, strings.TrimSuffix(c, ".json")+".onnx"
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b UserModel) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// acceptRealizations are the validation realizations an upload must run.
const acceptRealizations = 50

// AddUserModel checks an uploaded ONNX file against the documented
// interface and the network's link count, runs it greedily on the first
// validation realizations of every benchmark pair, and only then stores
// it; what does not match is said, and nothing stored is touched.
func (l *Lab) AddUserModel(ctx context.Context, n *Net, name, file string, data []byte) (UserModel, error) {
	if err := checkName("model", name); err != nil {
		return UserModel{}, err
	}
	dir, err := l.userDir(n.Net.Name)
	if err != nil {
		return UserModel{}, err
	}
	if _, err := os.Stat(filepath.Join(dir, name+".onnx")); err == nil {
		return UserModel{}, engine.Errorf(engine.EINVALID, "network %s already has a model named %q: delete it first or choose another name", n.Net.Name, name)
	}
	// One upload is checked at a time, from here on: the interface check
	// builds an ONNX Runtime session, which constant-folds the graph (a
	// 532-byte model can declare a 1 GB constant), so it runs with the
	// trial, in the worker when there is one.
	select {
	case l.accepting <- struct{}{}:
		defer func() { <-l.accepting }()
	case <-ctx.Done():
		return UserModel{}, engine.Errorf(engine.ETOOMANY, "another model upload is being tried; this one gave up waiting")
	}
	// Uploads are tried one at a time (above): the quota checked is the
	// quota stored against.
	if err := l.checkQuota(ctx, "", 0, 1, int64(len(data))); err != nil {
		return UserModel{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return UserModel{}, engine.DiskError(err)
	}
	// Tried under a temporary name; renamed only when it passed.
	tmp := filepath.Join(dir, ".upload-"+name+".onnx")
	if err := atomicfile.WriteFile(tmp, data); err != nil {
		os.Remove(tmp)
		return UserModel{}, engine.DiskError(err)
	}
	defer os.Remove(tmp)
	check, err := l.tryModel(ctx, n, tmp)
	if err != nil {
		// The uploader is told of their file, never of the server's paths.
		shown := filepath.Base(file)
		msg, code := err.Error(), engine.EINVALID
		var e *engine.Error
		if errors.As(err, &e) {
			msg = e.Message
			if e.Code != engine.EINTERNAL {
				code = e.Code
			}
		}
		msg = strings.ReplaceAll(strings.ReplaceAll(msg, tmp, shown), dir+string(filepath.Separator), "")
		return UserModel{}, engine.Errorf(code, "%s: %s", shown, msg)
	}
	sum := sha256.Sum256(data)
	m := UserModel{Name: name, Method: policy.UserPrefix + name, Network: n.Net.Name, Fingerprint: trainspec.Fingerprint(n.Net, n.Model.Spec),
		File: filepath.Base(file), SHA256: hex.EncodeToString(sum[:]), Bytes: len(data), Uploaded: time.Now().UTC(), Check: check}
	card, _ := json.MarshalIndent(m, "", "  ")
	// The model first, then its card: a model is listed once its card is there.
	if err := os.Rename(tmp, filepath.Join(dir, name+".onnx")); err != nil {
		return UserModel{}, engine.DiskError(err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, name+".json"), card); err != nil {
		os.Remove(filepath.Join(dir, name+".onnx")) // not listed without its card: not kept either
		return UserModel{}, engine.DiskError(err)
	}
	return m, nil
}

// AcceptTime bounds an uploaded model's interface check and trial run;
// uploads are tried one at a time.
const AcceptTime = 30 * time.Second

// tryModel checks a model's interface, then runs it greedily on the first
// validation realizations of each benchmark pair at budget factor 1 and
// says what it scored: in the worker process when the lab has one (its
// memory limited, killed when ctx ends), else here, where ONNX Runtime's
// terminate flag interrupts even a graph that never ends. Both stop when
// the uploader leaves or after AcceptTime.
func (l *Lab) tryModel(ctx context.Context, n *Net, path string) (string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, AcceptTime, fmt.Errorf("checking and trying it took longer than %v, the limit", AcceptTime))
	defer cancel()
	if l.opts.Worker != nil {
		return l.trialIn(ctx, n, path)
	}
	return trialRun(ctx, n.Net, n.Model, path, n.ortOptions())
}

// trialRun checks a model's interface against the network, runs it greedily
// on the first validation realizations of each benchmark pair at budget
// factor 1 and says what it scored; ctx's end terminates ONNX Runtime's
// run.
func trialRun(ctx context.Context, net *engine.Network, model *linktime.Gaussian, path string, opts []ort.Option) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if err := ort.CheckInterface(data, len(net.Links), opts...); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", context.Cause(ctx)
	}
	p, err := policy.NewONNXPolicy(net, path, policy.ONNXOptions{}, append(opts, ort.WithContext(ctx))...)
	if err != nil {
		return "", err
	}
	defer p.Close()
	pool := sim.NewPool(model, net.PoolKey(), sim.Validation, 0, acceptRealizations, 0, nil)
	var parts []string
	for _, task := range sim.Tasks(net, net.ODs, []float64{1}) {
		rate, err := sim.OnTimeRate(net, p, []sim.Task{task}, pool)
		if err == nil {
			err = p.Err()
		}
		if err != nil {
			return "", fmt.Errorf("running it on %s: %v", net.ODString(task.OD), err)
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", net.ODString(task.OD), rate))
	}
	return fmt.Sprintf("on time at budget 1.00 × LET on %d validation realizations: %s", acceptRealizations, strings.Join(parts, ", ")), nil
}

// RenameUserModel renames an uploaded model (its method name changes).
func (l *Lab) RenameUserModel(n *Net, old, name string) error {
	if err := checkName("model", name); err != nil {
		return err
	}
	m, dir, err := l.userModel(n, old)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, name+".onnx")); err == nil {
		return engine.Errorf(engine.EINVALID, "network %s already has a model named %q", n.Net.Name, name)
	}
	m.Name, m.Method = name, policy.UserPrefix+name
	card, _ := json.MarshalIndent(m, "", "  ")
	if err := os.Rename(filepath.Join(dir, old+".onnx"), filepath.Join(dir, name+".onnx")); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, name+".json"), card); err != nil {
		return err
	}
	os.Remove(filepath.Join(dir, old+".json"))
	n.forget(policy.UserPrefix + old)
	return nil
}

// DeleteUserModel removes an uploaded model and its card.
func (l *Lab) DeleteUserModel(n *Net, name string) error {
	_, dir, err := l.userModel(n, name)
	if err != nil {
		return err
	}
	os.Remove(filepath.Join(dir, name+".json")) // the card first: it lists the model
	n.forget(policy.UserPrefix + name)
	return os.Remove(filepath.Join(dir, name+".onnx"))
}

// UserModelFile returns an uploaded model's file and card paths.
func (l *Lab) UserModelFile(n *Net, name string) (model, card string, err error) {
	_, dir, err := l.userModel(n, name)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(dir, name+".onnx"), filepath.Join(dir, name+".json"), nil
}

func (l *Lab) userModel(n *Net, name string) (UserModel, string, error) {
	dir, err := l.userDir(n.Net.Name)
	if err != nil {
		return UserModel{}, "", err
	}
	if netfile.SanitizeName(name) != name || name == "" {
		return UserModel{}, "", engine.Errorf(engine.ENOTFOUND, "no uploaded model %q for network %s", name, n.Net.Name)
	}
	for _, m := range l.UserModels(n) {
		if m.Name == name {
			return m, dir, nil
		}
	}
	return UserModel{}, "", engine.Errorf(engine.ENOTFOUND, "no uploaded model %q for network %s", name, n.Net.Name)
}
