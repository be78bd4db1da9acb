// Package ort runs ONNX policy models through ONNX Runtime, in the manner of
// knights-analytics/hugot: a small Session interface opened with functional
// options (library path, CUDA, threads). The implementation needs cgo
// (yalue/onnxruntime_go); a CGO_ENABLED=0 build gets a stub that says so.
package ort

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/ontime-routing/ontime/internal/install"
)

// Batch is one batched decision query, in the model interface's layout:
// B rows, prefixes padded to L, E links.
type Batch struct {
	B, L, E int
	Edges   []int64   // B×L
	Times   []float32 // B×L
	Pad     []bool    // B×L, true where padding
	Cur     []int64   // B
	Dest    []int64   // B
	Budget  []float32 // B, remaining minutes
	Step    []int64   // B
	AMask   []bool    // B×E, true for links leaving Cur
}

// Output holds the model's answers: logits before the mask and probabilities
// over the allowed links, each B×E. A decoder that stops before the model's
// last linear map (its head, E × d: most of a decoder row's arithmetic,
// while a decision reads the few links leaving one node) answers its input
// instead, and Logit makes the logits asked for.
type Output struct {
	Logits, Probs []float32
	hidden        []float32 // B×d, the head's input
	head          *linearHead
}

// Session runs one model. Run is safe for concurrent use.
type Session interface {
	Run(b *Batch) (*Output, error)
	Device() string // "cpu" or "cuda"
	Close() error
}

type options struct {
	ctx     context.Context
	library string
	cuda    bool
	device  int
	threads int
	logf    func(format string, args ...any)
}

// Option configures Open.
type Option func(*options)

// WithLibrary sets the ONNX Runtime shared library (libonnxruntime.so.1).
func WithLibrary(path string) Option { return func(o *options) { o.library = path } }

// WithCUDA asks for the CUDA execution provider on a device; when it cannot
// be had, Open falls back to the CPU and logs one line saying why.
func WithCUDA(device int) Option { return func(o *options) { o.cuda, o.device = true, device } }

// WithContext ties a session's runs to ctx: when ctx ends, a run in
// progress is terminated (ONNX Runtime's terminate flag, checked between
// operators and in every Loop iteration) and later runs fail at once. An
// uploaded model is accepted under a deadline this way: a graph that loops
// forever cannot pin a core.
func WithContext(ctx context.Context) Option { return func(o *options) { o.ctx = ctx } }

// WithLog sets where the CUDA fallback line goes.
func WithLog(logf func(format string, args ...any)) Option { return func(o *options) { o.logf = logf } }

// libRel is where npm's onnxruntime-node@1.24.3 keeps the Linux x64 library.
var libRel = filepath.Join("node_modules", "onnxruntime-node", "bin", "napi-v6", "linux", "x64", "libonnxruntime.so.1")

// ErrNoLibrary says the ONNX Runtime library was not found.
var ErrNoLibrary = errors.New("ONNX Runtime library not found: run `make setup` (npm ci --ignore-scripts installs onnxruntime-node@1.24.3) or set ONTIME_ORT_LIB to libonnxruntime.so.1 (version 1.24.3), or install that file in /usr/local/lib")

// systemLibDirs are where an administrator installs ONNX Runtime for every
// program (its release tarball's lib/, or a distribution's package): a
// binary installed without its checkout finds it there.
var systemLibDirs = []string{"/usr/local/lib", "/usr/lib", "/usr/lib/x86_64-linux-gnu", "/opt/onnxruntime/lib"}

// FindLibrary returns $ONTIME_ORT_LIB, or the npm copy found beside or
// above the binary, else the working directory (see install), else a
// system-wide libonnxruntime.so.1.
func FindLibrary() (string, error) {
	if p := os.Getenv("ONTIME_ORT_LIB"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", errors.Join(ErrNoLibrary, err)
		}
		return p, nil
	}
	if p, ok := install.Find(libRel, nil); ok {
		return p, nil
	}
	for _, dir := range systemLibDirs {
		if p := filepath.Join(dir, filepath.Base(libRel)); fileExists(p) {
			return p, nil
		}
	}
	return "", ErrNoLibrary
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// TwoStage runs a model in its two parts (split.go): Encode computes what
// the route prefix alone determines, once for rows whose prefixes are the
// same, and Decide the logits. A row's logits are those Run gives it, bit
// for bit: the parts are the whole model's nodes, the decoder's one-query
// self-attention shortened exactly (TestStagesDecideAsRun), and a policy
// checks them on a probe of its network before using them.
type TwoStage interface {
	// Encode reads b's B, L, Edges, Times, Pad and Cur.
	Encode(b *Batch) (*Memory, error)
	// Decide answers b's rows, row i with the prefix of m's row rows[i]:
	// the logits alone (Probs is nil).
	Decide(b *Batch, m *Memory, rows []int) (*Output, error)
}

// Memory is what Encode computed, one row a prefix, held until Release.
type Memory struct {
	tensors []memoryTensorData
	release func()
}

type memoryTensorData struct {
	dims []int64 // dims[0] is the row
	f32  []float32
	bits []bool
}

// Release frees the memory's tensors.
func (m *Memory) Release() {
	if m != nil && m.release != nil {
		m.release()
		m.release = nil
	}
}
