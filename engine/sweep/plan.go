package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// Manifest is a planned sweep: what every instance and task is. It lives in
// the sweep's directory (manifest.json) and is all a task reads besides the
// network data.
type Manifest struct {
	// Sweep identifies the plan: a digest of everything below but Version
	// and Commit. Every part carries it, so a part of another sweep is told
	// apart.
	Sweep     string     `json:"sweep"`
	Name      string     `json:"name"`
	Version   string     `json:"version"` // the ontime that planned it
	Commit    string     `json:"commit"`
	Methods   []string   `json:"methods"`
	Focus     string     `json:"focus"`
	Budgets   []float64  `json:"budgets"`
	Pools     int        `json:"pools"`
	PoolSize  int        `json:"pool_size"`
	Instances []Instance `json:"instances"`
	Tasks     []Task     `json:"tasks"`
}

// Instance is one benchmark of the sweep: a network with a correlation
// setting and an instance seed; its report is what `ontime bench` gives.
type Instance struct {
	ID      int      `json:"id"`
	Network string   `json:"network"`
	ODs     []string `json:"ods"`
	Corr    CorrSpec `json:"correlation"`
	Seed    uint64   `json:"seed"`
	// Fingerprint is the network's with its correlation when planned
	// (links, means, variances, correlation): a task or merge on a network
	// that changed since (a stored network re-imported, other data files)
	// is refused instead of mixing two networks' numbers.
	Fingerprint string `json:"fingerprint"`
}

// Task is the unit of evaluation: one instance × one OD pair × a range of
// pools, every method of the sweep on them (pairing stays intact).
type Task struct {
	ID       int `json:"id"`
	Instance int `json:"instance"`
	OD       int `json:"od"` // index into the instance's ODs
	PoolFrom int `json:"pool_from"`
	PoolTo   int `json:"pool_to"` // exclusive
}

// Opener opens a network by name (built-in or stored).
type Opener func(name string) (*engine.Network, error)

// Plan expands a sweep file into its instances and tasks, opening every
// network to check its OD pairs.
func Plan(f *File, open Opener, version, commit string) (*Manifest, error) {
	m := &Manifest{Name: f.Name, Version: version, Commit: commit, Methods: f.Methods, Focus: f.Focus,
		Budgets: f.Budgets, Pools: f.Pools, PoolSize: f.PoolSize}
	if m.Focus == "" {
		m.Focus = f.Methods[0]
	}
	shards := min(f.Shards, f.Pools)
	for ni, ns := range f.Networks {
		for ci, c := range f.Correlations {
			net, _, err := openInstance(open, ns.Name, c)
			if err != nil {
				return nil, fmt.Errorf("networks[%d] %s, correlations[%d]: %w", ni, ns.Name, ci, err)
			}
			ods := ns.ODs
			if len(ods) == 0 {
				for _, od := range net.ODs {
					ods = append(ods, net.ODString(od))
				}
			}
			if len(ods) == 0 {
				return nil, engine.Errorf(engine.EINVALID, "networks[%d] %s has no benchmark OD pairs: give ods", ni, ns.Name)
			}
			for _, s := range ods {
				if _, err := net.ParseOD(s); err != nil {
					return nil, fmt.Errorf("networks[%d].ods: %w", ni, err)
				}
			}
			for _, seed := range f.Seeds {
				inst := Instance{ID: len(m.Instances), Network: ns.Name, ODs: ods, Corr: c, Seed: seed,
					Fingerprint: engine.Fingerprint(net, net.Correlation)}
				m.Instances = append(m.Instances, inst)
				for od := range ods {
					for s := range shards {
						from, to := s*f.Pools/shards, (s+1)*f.Pools/shards
						m.Tasks = append(m.Tasks, Task{ID: len(m.Tasks), Instance: inst.ID, OD: od, PoolFrom: from, PoolTo: to})
					}
				}
			}
		}
	}
	m.Sweep = m.digest()
	return m, nil
}

// digest is the sweep's identity: its plan without who planned it.
func (m *Manifest) digest() string {
	c := *m
	c.Sweep, c.Version, c.Commit = "", "", ""
	b, _ := json.Marshal(&c)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// openInstance opens a network with a correlation setting and builds its
// link-time model.
func openInstance(open Opener, name string, c CorrSpec) (*engine.Network, *linktime.Gaussian, error) {
	return openInstanceIn(open, name, c, "")
}

// openInstanceIn is openInstance with a dense model's factor kept in (and
// read back from) modelCache: a sweep's tasks share one build.
func openInstanceIn(open Opener, name string, c CorrSpec, modelCache string) (*engine.Network, *linktime.Gaussian, error) {
	net, err := open(name)
	if err != nil {
		return nil, nil, err
	}
	if err := c.choice().Apply(net); err != nil {
		return nil, nil, err
	}
	model, err := linktime.NewCached(net, modelCache)
	if err != nil {
		return nil, nil, err
	}
	return net, model, nil
}

// Config is the benchmark of an instance, as `ontime bench` would run it.
func (m *Manifest) Config(inst Instance, open Opener) (bench.Config, error) {
	return m.configIn(inst, open, "")
}

// configIn is Config with dense models cached in modelCache.
func (m *Manifest) configIn(inst Instance, open Opener, modelCache string) (bench.Config, error) {
	net, model, err := openInstanceIn(open, inst.Network, inst.Corr, modelCache)
	if err != nil {
		return bench.Config{}, err
	}
	if fp := engine.Fingerprint(net, net.Correlation); inst.Fingerprint != "" && fp != inst.Fingerprint {
		return bench.Config{}, engine.Errorf(engine.ECONFLICT, "network %s is not the one the sweep was planned on (its links, times or correlation changed): plan the sweep again", inst.Network)
	}
	cfg := bench.Config{Net: net, Model: model, Methods: m.Methods, Focus: m.Focus, Budgets: m.Budgets,
		Pools: m.Pools, PoolSize: m.PoolSize, Seed: inst.Seed, Version: m.Version, Commit: m.Commit}
	for _, s := range inst.ODs {
		od, err := net.ParseOD(s)
		if err != nil {
			return bench.Config{}, err
		}
		cfg.ODs = append(cfg.ODs, od)
	}
	return cfg, nil
}

// Label says what an instance is, for reports and the dashboard.
func (inst Instance) Label() string {
	corr := "its own correlation"
	if inst.Corr.Model != "" {
		corr = inst.Corr.Model
		if m, _ := linktime.LookupCorrModel(inst.Corr.Model); m.Spatial {
			corr += fmt.Sprintf(" strength %g", inst.Corr.Strength)
			if inst.Corr.Length > 0 {
				corr += fmt.Sprintf(" length %g", inst.Corr.Length)
			}
		}
		if inst.Corr.Seed != nil {
			corr += fmt.Sprintf(" seed %d", *inst.Corr.Seed)
		}
	}
	return fmt.Sprintf("instance %d: %s, %s, seed %d", inst.ID, inst.Network, corr, inst.Seed)
}

// The sweep directory's layout.
const (
	manifestFile = "manifest.json"
	trainDir     = "train"   // train/instance-NNNN.json: each instance's methods, built
	partsDir     = "parts"   // parts/task-NNNNNN.json: each task's counts
	cacheDir     = "cache"   // the learners the training phase trained
	resultsDir   = "results" // what merge writes
)

// WriteManifest writes m into dir (created), refusing to overwrite another
// sweep's plan: its parts would not fit.
func WriteManifest(dir string, m *Manifest) error {
	if old, err := ReadManifest(dir); err == nil && old.Sweep != m.Sweep {
		return engine.Errorf(engine.ECONFLICT, "%s already holds sweep %s (%s): plan into an empty directory", dir, old.Sweep, old.Name)
	}
	for _, d := range []string{trainDir, partsDir, cacheDir, resultsDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, manifestFile), append(b, '\n'))
}

// ReadManifest reads a sweep directory's plan.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, engine.Errorf(engine.ENOTFOUND, "%s has no %s: run `ontime sweep plan FILE --out %s` first", dir, manifestFile, dir)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "%s: %v", filepath.Join(dir, manifestFile), err)
	}
	if m.digest() != m.Sweep {
		return nil, engine.Errorf(engine.EINVALID, "%s was edited after planning (its digest is not %s): plan again", filepath.Join(dir, manifestFile), m.Sweep)
	}
	return &m, nil
}
