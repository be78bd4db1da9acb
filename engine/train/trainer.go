package train

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/install"
)

// Trainer says how to run the PyTorch side (models/train/train.py).
type Trainer struct {
	Python  string // interpreter with PyTorch 1.13+ and onnx (default /usr/bin/python3)
	Script  string // train.py (default: FindScript)
	Device  string // cpu or cuda
	Threads int    // torch threads (default 2)
	// Nice lowers the trainer's scheduling priority (0–19): a dashboard's
	// training job must leave its pages interactive on two cores.
	Nice int
}

// ScriptEnv names the variable that points at train.py when the binary is
// installed away from its source tree.
const ScriptEnv = "ONTIME_TRAINER"

// FindScript locates train.py: $ONTIME_TRAINER, else models/train/train.py
// beside or above the executable (bin/ontime in a checkout). Never the
// working directory: a command must not depend on where it is run from.
func FindScript(getenv func(string) string) (string, error) {
	if p := getenv(ScriptEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", engine.Errorf(engine.EINVALID, "%s=%s: %v", ScriptEnv, p, err)
		}
		return p, nil
	}
	p, ok := install.FindBesideBinary(filepath.Join("models", "train", "train.py"), nil)
	if !ok {
		return "", engine.Errorf(engine.ENOTFOUND, "the trainer models/train/train.py is not above the ontime binary (%s): give its path with --trainer or %s (it is code ontime runs, so it is never taken from the working directory, as models and the ONNX Runtime library may be)", install.BinaryDir(), ScriptEnv)
	}
	return p, nil
}

// session runs trainer commands against one spec directory, forwarding the
// trainer's JSON-lines progress.
type session struct {
	t        Trainer
	spec     string
	progress func(Event)
	log      io.Writer // the trainer's stderr and non-JSON output
	mu       sync.Mutex
}

// run runs one command of train.py and returns its last JSON event.
func (s *session) run(ctx context.Context, cmd string, args ...string) (map[string]any, error) {
	full := append([]string{s.t.Script, cmd, "--spec", s.spec, "--device", s.t.Device, "--threads", fmt.Sprint(s.t.Threads)}, args...)
	c := exec.CommandContext(ctx, s.t.Python, full...)
	c.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "PYTHONUNBUFFERED=1")
	var tail tailBuffer
	c.Stderr = io.MultiWriter(&tail, lockedWriter{&s.mu, s.log})
	pipe, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "starting the trainer with %s: %v (install PyTorch and onnx for it: apt-get install python3-torch python3-onnx, or pass --python)", s.t.Python, err)
	}
	if s.t.Nice > 0 {
		// Best effort: an unprivileged process may always lower its own.
		syscall.Setpriority(syscall.PRIO_PROCESS, c.Process.Pid, s.t.Nice)
	}
	var last map[string]any
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			s.mu.Lock()
			fmt.Fprintln(s.log, sc.Text())
			s.mu.Unlock()
			continue
		}
		last = ev
		if s.progress != nil {
			s.progress(Event{Phase: "trainer", Trainer: ev})
		}
	}
	if err := c.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := tail.String()
		if strings.Contains(msg, "No module named 'torch'") || strings.Contains(msg, "No module named 'onnx'") {
			return nil, engine.Errorf(engine.EINVALID, "%s has no PyTorch or onnx: apt-get install python3-torch python3-onnx (Debian), or pass --python with an interpreter that has them", s.t.Python)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				// Not the trainer's own error: the system or a person stopped it.
				return nil, fmt.Errorf("the trainer (%s) was stopped by a signal (%v) before it finished: out of memory, or killed by someone; nothing was installed, start the job again\n%s", cmd, ws.Signal(), msg)
			}
		}
		return nil, fmt.Errorf("trainer %s failed: %w\n%s", cmd, err, msg)
	}
	return last, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// tailBuffer keeps the last 4 KiB written, for error messages.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return strings.TrimSpace(string(t.b)) }
