// Package worker runs a piece of work in a child process with a deadline
// and a memory limit: the one way to stop computations that cannot be
// interrupted (an eigen decomposition, a layout) when the client that asked
// leaves, and to keep one that would exhaust memory from taking the server
// with it. The child is the same binary started with a verb (ontime
// worker KIND); it reads its input as JSON on stdin and writes its answer
// as JSON on stdout. Handlers are known in one registry (Register).
package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/procstatus"
)

// Handler does one kind of work in the child: in is the request's JSON; it
// returns the answer to encode.
type Handler func(in []byte) (any, error)

var (
	mu       sync.Mutex
	handlers = map[string]Handler{}
)

// Register makes a kind of work available to children (from an init).
func Register(kind string, h Handler) {
	mu.Lock()
	defer mu.Unlock()
	handlers[kind] = h
}

// Kinds lists the registered kinds.
func Kinds() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for k := range handlers {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Command starts children: Path with Args, then the kind.
type Command struct {
	Path string
	Args []string
	// Memory limits the private writable memory (RLIMIT_DATA) the child's
	// work may add to what it holds at start, in bytes (0: none); Time
	// bounds each run (0: only the context). The child's CPU time is
	// limited to twice its wall-clock limit (RLIMIT_CPU), so that a child
	// whose parent cannot stop it still ends.
	Memory int64
	Time   time.Duration
	// For names whose work the limits are ("" : one upload), in the words
	// of a message ("the limit for one upload").
	For string
}

func (c Command) what() string {
	if c.For == "" {
		return "one upload"
	}
	return c.For
}

// reply is what a child writes: the answer, or an error with its code and
// location.
type reply struct {
	Answer json.RawMessage `json:"answer,omitempty"`
	Error  *engine.Error   `json:"error,omitempty"`
}

// Run does kind's work on in in a child and decodes its answer into out.
// The child is killed when ctx ends or c.Time passes (the error says
// which); a child that dies (out of memory, a crash) is an error naming
// the limit, never the parent's end.
func (c Command) Run(ctx context.Context, kind string, in, out any) error {
	_, err := c.RunPeak(ctx, kind, in, out)
	return err
}

// RunPeak is Run, also saying the most memory the child held (its peak
// resident set, in bytes; 0 when unknown).
func (c Command) RunPeak(ctx context.Context, kind string, in, out any) (peak int64, err error) {
	stopped := false // by its time limit or its caller
	defer func() { count(kind, err, stopped) }()
	req, err := json.Marshal(in)
	if err != nil {
		return 0, err
	}
	if c.Time > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Time, fmt.Errorf("it took longer than %v, the limit", c.Time))
		defer cancel()
	}
	args := append(append([]string{}, c.Args...), kind)
	cmd := exec.CommandContext(ctx, c.Path, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", memoryEnv, c.Memory))
	if deadline, ok := ctx.Deadline(); ok {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", cpuEnv, 1+int(2*time.Until(deadline).Seconds())))
	}
	cmd.Stdin = bytes.NewReader(req)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = ru.Maxrss << 10 // kB on Linux
		}
	}
	if ctx.Err() != nil {
		stopped = true
		return peak, engine.Errorf(engine.EINVALID, "stopped: %v", context.Cause(ctx))
	}
	var rep reply
	if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil || (rep.Answer == nil && rep.Error == nil) {
		why := strings.TrimSpace(lastLine(stderr.String()))
		if outOfMemory(stderr.String()) || c.Memory > 0 && runtimeFault(stderr.String()) {
			return peak, engine.Errorf(engine.ETOOLARGE, "it needed more than %d MB of memory, the limit for %s", c.Memory>>20, c.what())
		}
		if err == nil {
			err = jerr
		}
		return peak, fmt.Errorf("the worker for %s ended without an answer (%v): %s", kind, err, why)
	}
	if rep.Error != nil {
		if outOfMemory(rep.Error.Message) { // a library that said so (ONNX Runtime's std::bad_alloc)
			return peak, engine.Errorf(engine.ETOOLARGE, "it needed more than %d MB of memory, the limit for %s", c.Memory>>20, c.what())
		}
		return peak, rep.Error
	}
	return peak, json.Unmarshal(rep.Answer, out)
}

// outOfMemory reads a child's words for running out of memory (Go's
// runtime, the C library, C++'s allocator): under the memory limit
// a new thread's stack can be what does not fit, which Go and cgo report
// as a thread that could not be made (seen once under a loaded make test).
func outOfMemory(s string) bool {
	for _, words := range []string{"out of memory", "cannot allocate memory", "bad_alloc", "failed to create new OS thread", "pthread_create failed"} {
		if strings.Contains(s, words) {
			return true
		}
	}
	return false
}

// runtimeFault reads a child's words for a fault inside Go's runtime
// itself, one it could not turn into a panic: a fault in a goroutine of
// ours is a panic ("panic: runtime error: ..."), while this starts with the
// signal and its first frame is the runtime's. Under a memory limit that is
// an allocation the runtime did not check: Go 1.26's collector faults in
// runtime.(*spanQueue).tryDrain when its queue cannot grow (seen with 16
// processors on a 16 MB limit).
func runtimeFault(s string) bool {
	if !strings.HasPrefix(s, "SIGSEGV: ") && !strings.HasPrefix(s, "SIGBUS: ") ||
		strings.Contains(s, "signal arrived during cgo execution") { // C code's own fault (a model's library)
		return false
	}
	frames := false
	for line := range strings.Lines(s) {
		switch {
		case strings.HasPrefix(line, "goroutine "):
			frames = true
		case frames:
			return strings.HasPrefix(line, "runtime.")
		}
	}
	return false
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// memoryEnv and cpuEnv pass the memory limit (bytes) and CPU limit
// (seconds) to the child.
const (
	memoryEnv = "ONTIME_WORKER_MEMORY"
	cpuEnv    = "ONTIME_WORKER_CPU"
)

// Serve is the child's side: it limits its own memory, reads the request
// on r, runs kind's handler and writes the reply on w. A handler's
// engine.Error keeps its code and location; a problem list is sent whole
// (as the answer's own field, see netfile's import) by the handler.
func Serve(kind string, r io.Reader, w io.Writer) error {
	if limit, err := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64); err == nil && limit > 0 {
		// The limit is on the private writable memory (RLIMIT_DATA) the work
		// adds to what the child holds at start. Not on its address space:
		// Go's heap reserves it in 64 MB arenas and a cgo binary starts with
		// over a gigabyte reserved, so under a 64 MB RLIMIT_AS a small upload
		// failed whenever the heap crossed into a new arena or a loaded
		// machine made the runtime start more threads (16 processors, loaded:
		// 6 runs in 120). Reservations count here only once written to.
		// The threads the work will run on are started first, so their
		// stacks (8 MB each under cgo, writable) are part of that start.
		startThreads(runtime.GOMAXPROCS(0) + spareThreads)
		data := uint64(limit) + dataSize()
		syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: data, Max: data})
		debug.SetMemoryLimit(limit * 3 / 4) // collect hard before the wall
	}
	if secs, err := strconv.ParseUint(os.Getenv(cpuEnv), 10, 64); err == nil && secs > 0 {
		syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: secs})
	}
	mu.Lock()
	h, ok := handlers[kind]
	mu.Unlock()
	if !ok {
		return fmt.Errorf("no worker kind %q (kinds: %s)", kind, strings.Join(Kinds(), ", "))
	}
	in, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ans, err := h(in)
	var rep reply
	if err != nil {
		if !errors.As(err, &rep.Error) {
			rep.Error = &engine.Error{Code: engine.EINTERNAL, Message: err.Error()}
		}
	} else if rep.Answer, err = json.Marshal(ans); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(rep)
}

// spareThreads is how many threads beyond one a processor the runtime may
// want at once: sysmon, its template thread, and goroutines blocked in
// system calls (reading the request, writing the answer).
const spareThreads = 4

// startThreads makes the runtime start n OS threads and leaves them idle
// in its pool, where later work finds them: each of n goroutines locks
// itself to a thread and waits until all are waiting, so none can share
// one, then unlocks before it ends (a goroutine that ends locked takes its
// thread with it).
func startThreads(n int) {
	var locked, ended sync.WaitGroup
	release := make(chan struct{})
	locked.Add(n)
	ended.Add(n)
	for range n {
		go func() {
			defer ended.Done()
			runtime.LockOSThread()
			locked.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	locked.Wait()
	close(release)
	ended.Wait()
}

// dataSize is the process's private writable memory in bytes, what
// RLIMIT_DATA bounds (VmData); 0 where it cannot be read.
func dataSize() uint64 {
	n, _ := procstatus.Bytes("VmData")
	return uint64(n)
}
