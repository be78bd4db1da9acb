//go:build cgo

package ort

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	onnx "github.com/yalue/onnxruntime_go"
)

var (
	envOnce sync.Once
	envErr  error
	envLib  string
)

// initEnv loads the library once per process (ONNX Runtime allows one
// environment).
func initEnv(lib string) error {
	envOnce.Do(func() {
		envLib = lib
		onnx.SetSharedLibraryPath(lib)
		if err := onnx.InitializeEnvironment(); err != nil {
			envErr = fmt.Errorf("loading ONNX Runtime from %s: %w", lib, err)
			return
		}
		_ = onnx.SetEnvironmentLogLevel(onnx.LoggingLevelError)
	})
	if envErr == nil && lib != envLib {
		return fmt.Errorf("ONNX Runtime is already loaded from %s; one library per process", envLib)
	}
	return envErr
}

type session struct {
	s      *onnx.DynamicAdvancedSession
	device string
	// ro terminates runs when ctx ends (WithContext); stop ends its watcher.
	ro   *onnx.RunOptions
	ctx  context.Context
	stop chan struct{}
	// The model in two parts (split.go), when it could be cut: enc and
	// dec, their graphs' names, or why not.
	enc, dec *onnx.DynamicAdvancedSession
	cut      *splitGraphs
	splitErr error
}

var inputNames = []string{"edges", "times", "pad", "cur", "dest", "budget", "step", "amask"}
var outputNames = []string{"logits", "probs"}

// Open loads a model that follows the GPG-HT interface (models/README.md).
func Open(model string, opts ...Option) (Session, error) {
	o := options{threads: 1, logf: func(string, ...any) {}}
	for _, f := range opts {
		f(&o)
	}
	if o.library == "" {
		lib, err := FindLibrary()
		if err != nil {
			return nil, err
		}
		o.library = lib
	} else if _, err := os.Stat(o.library); err != nil {
		// Checked before loading: a wrong path must not poison the
		// process's one environment for a later, right one.
		return nil, errors.Join(ErrNoLibrary, err)
	}
	if err := initEnv(o.library); err != nil {
		return nil, err
	}
	build := func(cuda bool, data []byte, in, out []string) (*onnx.DynamicAdvancedSession, error) {
		so, err := onnx.NewSessionOptions()
		if err != nil {
			return nil, err
		}
		defer so.Destroy()
		if err := so.SetIntraOpNumThreads(o.threads); err != nil {
			return nil, err
		}
		if err := so.SetInterOpNumThreads(1); err != nil {
			return nil, err
		}
		if cuda {
			co, err := onnx.NewCUDAProviderOptions()
			if err != nil {
				return nil, err
			}
			defer co.Destroy()
			if err := co.Update(map[string]string{"device_id": fmt.Sprint(o.device)}); err != nil {
				return nil, err
			}
			if err := so.AppendExecutionProviderCUDA(co); err != nil {
				return nil, err
			}
		}
		if data != nil {
			return onnx.NewDynamicAdvancedSessionWithONNXData(data, in, out, so)
		}
		return onnx.NewDynamicAdvancedSession(model, in, out, so)
	}
	var sess *session
	if o.cuda {
		s, err := build(true, nil, inputNames, outputNames)
		if err == nil {
			sess = &session{s: s, device: "cuda"}
		} else {
			o.logf("ort: CUDA execution provider unavailable (%v); running %s on the CPU", err, model)
		}
	}
	if sess == nil {
		s, err := build(false, nil, inputNames, outputNames)
		if err != nil {
			return nil, fmt.Errorf("opening model %s: %w", model, err)
		}
		sess = &session{s: s, device: "cpu"}
	}
	sess.splitErr = sess.openStages(model, func(data []byte, in, out []string) (*onnx.DynamicAdvancedSession, error) {
		return build(sess.device == "cuda", data, in, out)
	})
	if o.ctx != nil {
		if err := sess.watch(o.ctx); err != nil {
			sess.s.Destroy()
			return nil, err
		}
	}
	return sess, nil
}

// watch terminates the session's runs when ctx ends.
func (s *session) watch(ctx context.Context) error {
	ro, err := onnx.NewRunOptions()
	if err != nil {
		return err
	}
	s.ro, s.ctx, s.stop = ro, ctx, make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			ro.Terminate()
		case <-s.stop:
		}
	}()
	return nil
}

func (s *session) Device() string { return s.device }

func (s *session) Close() error {
	if s.ro != nil {
		close(s.stop)
		defer s.ro.Destroy()
	}
	if s.enc != nil {
		s.enc.Destroy()
		s.dec.Destroy()
	}
	return s.s.Destroy()
}

// Run feeds one batch and copies the outputs out of ONNX Runtime's memory.
func (s *session) Run(b *Batch) (*Output, error) {
	B, L, E := int64(b.B), int64(b.L), int64(b.E)
	var vals []onnx.Value
	defer func() {
		for _, v := range vals {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	add := func(v onnx.Value, err error) error {
		if err != nil {
			return err
		}
		vals = append(vals, v)
		return nil
	}
	for _, err := range []error{
		add(newTensor(onnx.NewShape(B, L), b.Edges)),
		add(newTensor(onnx.NewShape(B, L), b.Times)),
		add(newTensor(onnx.NewShape(B, L), b.Pad)),
		add(newTensor(onnx.NewShape(B), b.Cur)),
		add(newTensor(onnx.NewShape(B), b.Dest)),
		add(newTensor(onnx.NewShape(B), b.Budget)),
		add(newTensor(onnx.NewShape(B), b.Step)),
		add(newTensor(onnx.NewShape(B, E), b.AMask)),
	} {
		if err != nil {
			return nil, err
		}
	}
	// The outputs are written straight into Go slices: with outputs left
	// to ONNX Runtime, onnxruntime_go copied each into Go memory and Run
	// copied it again (6% of GPG-HT's time on Anaheim).
	logits, probs := make([]float32, B*E), make([]float32, B*E)
	for _, err := range []error{
		add(newTensor(onnx.NewShape(B, E), logits)),
		add(newTensor(onnx.NewShape(B, E), probs)),
	} {
		if err != nil {
			return nil, err
		}
	}
	if err := s.run(s.s, vals[:len(vals)-2], vals[len(vals)-2:]); err != nil {
		return nil, err
	}
	return &Output{Logits: logits, Probs: probs}, nil
}

// run runs one of the session's graphs, stopped when its context ends.
func (s *session) run(g *onnx.DynamicAdvancedSession, in, outs []onnx.Value) error {
	if s.ro == nil {
		return g.Run(in, outs)
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("stopped: %w", context.Cause(s.ctx))
	}
	if err := g.RunWithOptions(in, outs, s.ro); err != nil {
		if s.ctx.Err() != nil {
			return fmt.Errorf("stopped: %w", context.Cause(s.ctx))
		}
		return err
	}
	return nil
}

// newTensor wraps data; ONNX Runtime accepts zero-sized dimensions (L = 0),
// but onnxruntime_go needs a non-nil slice.
func newTensor[T onnx.TensorData](shape onnx.Shape, data []T) (onnx.Value, error) {
	if data == nil {
		data = []T{}
	}
	return onnx.NewTensor(shape, data)
}

// Version is the loaded ONNX Runtime's version ("" before one is loaded).
func Version() string {
	if envLib == "" || envErr != nil {
		return ""
	}
	return onnx.GetVersion()
}
