package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
)

// Options are how this machine runs a sweep's work.
type Options struct {
	Open    Opener
	Workers int    // 0: all cores
	Models  string // directory of trained models ("": models/ found upwards)
	Device  string // ONNX policies: cpu or cuda
	Logf    func(format string, args ...any)
	// Version and Commit are this ontime's: a task refuses to run with
	// another ontime than the one that planned the sweep (its numbers
	// could differ), so the merged report names one.
	Version, Commit string
}

type trainPart struct {
	Instance int                `json:"instance"`
	Methods  []bench.MethodInfo `json:"methods"`
	Seconds  float64            `json:"seconds"`
}

type taskPart struct {
	Task    int            `json:"task"`
	Counts  []bench.Counts `json:"counts"`
	Seconds float64        `json:"seconds"`
}

// config is the instance's benchmark on this machine, its learners cached
// in the sweep directory.
func (m *Manifest) config(dir string, inst Instance, o Options) (bench.Config, error) {
	if o.Version != m.Version || o.Commit != m.Commit {
		return bench.Config{}, engine.Errorf(engine.ECONFLICT, "the sweep was planned with ontime %s (commit %s) and this is %s (commit %s): run every task with the same ontime, or plan again",
			m.Version, m.Commit, o.Version, o.Commit)
	}
	// Dense models are built once for the whole sweep, in its cache.
	cfg, err := m.configIn(inst, o.Open, filepath.Join(dir, cacheDir))
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", inst.Label(), err)
	}
	cfg.CacheDir = filepath.Join(dir, cacheDir)
	cfg.Workers, cfg.Models, cfg.Device, cfg.Logf = o.Workers, o.Models, o.Device, o.Logf
	if cfg.Device == "" {
		cfg.Device = "cpu"
	}
	return cfg, nil
}

// Train is the training phase of instance i: it builds every method once
// (the learners train and are cached in the sweep directory) and records
// their provenance. An instance already trained returns at once (done).
func Train(ctx context.Context, dir string, i int, o Options) (done bool, err error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return false, err
	}
	if i < 0 || i >= len(m.Instances) {
		return false, engine.Errorf(engine.EINVALID, "instance %d: the sweep has instances 0 to %d", i, len(m.Instances)-1)
	}
	var tp trainPart
	if readPart(trainPath(dir, i), m.Sweep, "train", i, &tp) == nil {
		return true, nil
	}
	cfg, err := m.config(dir, m.Instances[i], o)
	if err != nil {
		return false, err
	}
	// No planner tables here: each task solves its own destination's (they
	// are not cached), so solving them all here too would only add time.
	// The learners train, and land in the cache.
	cfg.Evaluate = []int{}
	start := time.Now()
	p, err := bench.Prepare(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("%s: %w", m.Instances[i].Label(), err)
	}
	return false, writePart(trainPath(dir, i), m.Sweep, "train", i, trainPart{Instance: i, Methods: p.Methods, Seconds: time.Since(start).Seconds()})
}

// RunTask computes task t and writes its part. A task whose part is there
// and verifies returns at once (done): a requeued or repeated task is safe.
func RunTask(ctx context.Context, dir string, t int, o Options) (done bool, err error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return false, err
	}
	if t < 0 || t >= len(m.Tasks) {
		return false, engine.Errorf(engine.EINVALID, "task %d: the sweep has tasks 0 to %d", t, len(m.Tasks)-1)
	}
	var part taskPart
	if readPart(partPath(dir, t), m.Sweep, "task", t, &part) == nil {
		return true, nil
	}
	task := m.Tasks[t]
	inst := m.Instances[task.Instance]
	var tp trainPart
	if err := readPart(trainPath(dir, inst.ID), m.Sweep, "train", inst.ID, &tp); err != nil {
		if err == errMissing {
			return false, engine.Errorf(engine.ECONFLICT, "task %d: %s has not been through the training phase: run `ontime sweep train %s --task %d` first", t, inst.Label(), dir, inst.ID)
		}
		return false, err
	}
	cfg, err := m.config(dir, inst, o)
	if err != nil {
		return false, err
	}
	cfg.Evaluate = []int{task.OD} // solve only this OD pair's tables
	start := time.Now()
	p, err := bench.Prepare(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("task %d, %s: %w", t, inst.Label(), err)
	}
	if err := sameMethods(tp.Methods, p.Methods); err != nil {
		return false, fmt.Errorf("task %d: %w", t, err)
	}
	pools := make([]int, 0, task.PoolTo-task.PoolFrom)
	for k := task.PoolFrom; k < task.PoolTo; k++ {
		pools = append(pools, k)
	}
	counts, err := p.Count(ctx, []int{task.OD}, pools)
	if err != nil {
		return false, fmt.Errorf("task %d, %s: %w", t, inst.Label(), err)
	}
	return false, writePart(partPath(dir, t), m.Sweep, "task", t, taskPart{Task: t, Counts: counts, Seconds: time.Since(start).Seconds()})
}

// sameMethods checks that a task built the methods the training phase
// recorded (the same settings, learners from the cache): a task on another
// models directory or ontime would not measure the same thing.
func sameMethods(trained, built []bench.MethodInfo) error {
	if len(trained) != len(built) {
		return fmt.Errorf("%d methods built, %d trained", len(built), len(trained))
	}
	strip := func(s map[string]any) map[string]any {
		b, _ := json.Marshal(s)
		var v map[string]any
		json.Unmarshal(b, &v)
		delete(v, "cached")
		return v
	}
	for i := range trained {
		if trained[i].Name != built[i].Name || !reflect.DeepEqual(strip(trained[i].Settings), strip(built[i].Settings)) {
			return fmt.Errorf("method %s was built with other settings than in the training phase (another models directory or ontime version?)", built[i].Name)
		}
	}
	return nil
}
