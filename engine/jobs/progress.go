package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// job is a task this process runs.
type job struct {
	task   Task
	spec   []byte
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	st    Status
	begun time.Time
	// estimate, when set, is the task's own time left as of estimateAt
	// (known false: it cannot tell yet); it replaces the fraction's.
	estimate   *float64
	estimateAt time.Time
	result     []byte
	events     []json.RawMessage
	log        tail
	// dropped: its network was deleted; nothing of it is stored again.
	dropped  bool
	finished chan struct{} // closed when run returns
}

// MinFractionForETA is the share of a job done before its time left is
// extrapolated from its time so far (a task that gives no estimate of its
// own). Phases cost unlike amounts: from 1% a training's estimate swung
// 2 → 12 → 5 min in its first 100 s.
const MinFractionForETA = 0.1

func (j *job) status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.st
	st.Events = len(j.events)
	if st.State == Running {
		st.Seconds = time.Since(j.begun).Seconds()
		switch {
		case j.estimate != nil:
			st.ETA = max(*j.estimate-time.Since(j.estimateAt).Seconds(), 0)
		case j.estimateAt.IsZero() && st.Fraction >= MinFractionForETA:
			st.ETA = st.Seconds * (1 - st.Fraction) / st.Fraction
		}
	}
	return st
}

// Progress is what a running task reports through.
type Progress struct {
	s *Service
	j *job
}

// Report sets the stage, its counts, and the fraction of the whole job done
// (0–1, for the progress bar and the ETA).
func (p *Progress) Report(stage string, done, total int, fraction float64) {
	p.j.mu.Lock()
	defer p.j.mu.Unlock()
	p.j.st.Stage, p.j.st.Done, p.j.st.Total = stage, done, total
	p.j.st.Fraction = min(max(fraction, 0), 1)
}

// Estimate states the time left in seconds, for a task whose parts take
// unequal times (a benchmark's methods, then its pools): known false says
// it cannot tell yet (no estimate is shown rather than a wrong one). Once
// called, the task's estimates replace the fraction's.
func (p *Progress) Estimate(seconds float64, known bool) {
	p.j.mu.Lock()
	defer p.j.mu.Unlock()
	p.j.estimate, p.j.estimateAt = nil, time.Now()
	if known {
		p.j.estimate = &seconds
	}
}

// Event keeps v (as JSON) in the job's events: what a page draws, such as
// a learning curve's points. Events are few; each is stored at once.
func (p *Progress) Event(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.j.mu.Lock()
	p.j.events = append(p.j.events, raw)
	p.j.mu.Unlock()
	p.s.persist(p.j)
	return nil
}

// Log is the job's log; its last logTail bytes are kept.
func (p *Progress) Log() io.Writer {
	if p.s.opts.LogCopy != nil {
		return io.MultiWriter(&p.j.log, p.s.opts.LogCopy)
	}
	return &p.j.log
}

// logTail bounds a job's kept log.
const logTail = 64 << 10

// tail is a writer that keeps the last logTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - logTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func joinLines(events []json.RawMessage) []byte {
	var b bytes.Buffer
	for _, e := range events {
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func splitLines(raw []byte) []json.RawMessage {
	var out []json.RawMessage
	for line := range bytes.Lines(raw) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			out = append(out, json.RawMessage(line))
		}
	}
	return out
}
