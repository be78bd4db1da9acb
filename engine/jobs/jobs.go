// Package jobs runs long work — benchmarks, training, learners — in the
// background: one service for every kind, with a queue under a concurrency
// limit, cancellation, progress with an ETA, events worth keeping (a
// learning curve), a log, and a record of each job in the store that
// outlives the process. Jobs run under the service's context: when the
// server stops they stop, and the store marks them interrupted.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/store"
)

// A job's states.
const (
	Queued      = "queued"
	Running     = "running"
	Done        = "done"
	Failed      = "failed"
	Canceled    = "canceled"
	Interrupted = "interrupted" // the process stopped while it ran or waited
)

// Finished reports whether a state is final.
func Finished(state string) bool { return state != Queued && state != Running }

// Status is a job as the dashboard and the CLI show it.
type Status struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	Network  string    `json:"network"`
	State    string    `json:"state"`
	Stage    string    `json:"stage,omitempty"`
	Done     int       `json:"done"`
	Total    int       `json:"total"`
	Fraction float64   `json:"fraction"`
	Position int       `json:"position,omitempty"` // in the queue; 1 runs next
	Error    string    `json:"error,omitempty"`
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"`
	ETA      float64   `json:"eta_seconds,omitempty"` // from the fraction done so far
	Events   int       `json:"events"`
}

// Task is work to run as a job.
type Task struct {
	ID      string // the same ID again returns the job unless it failed, was canceled or interrupted
	Kind    string
	Network string
	Spec    any    // what was asked, stored as JSON
	Owner   string // who asked (a client address; "" for the process itself), for the per-owner bound
	Run     func(ctx context.Context, p *Progress) (result any, err error)
}

// Options tune a service.
type Options struct {
	Concurrency int // jobs running at once (default 1); the rest queue
	// Keep is the eviction rule: the newest Keep finished jobs of each kind
	// stay (in memory and in the store), older ones are deleted (default 50).
	Keep int
	// MaxActive bounds the jobs queued or running at once, in total
	// (default DefaultMaxActive), and MaxPerOwner those of one owner
	// (default DefaultMaxPerOwner); -1 lifts a bound. A dashboard left
	// running for a class must not let one tab queue a day of work.
	MaxActive, MaxPerOwner int
	Logf                   func(format string, args ...any)
	// LogCopy also receives every job's log as it is written (the command
	// line's stderr, when it runs a job in its own process).
	LogCopy io.Writer
	// CancelPoll is how often the service asks the store whether another
	// process asked to cancel one of its jobs (default 1 s).
	CancelPoll time.Duration
}

// Default bounds on active (queued or running) jobs.
const (
	DefaultMaxActive   = 32
	DefaultMaxPerOwner = 4
)

// Service runs jobs.
type Service struct {
	ctx   context.Context
	st    *store.Store // nil: jobs live in this process only
	opts  Options
	mu    sync.Mutex
	byID  map[string]*job
	queue []*job
	busy  int
	wg    sync.WaitGroup
}

// New returns a service whose jobs run under ctx; st may be nil.
func New(ctx context.Context, st *store.Store, o Options) *Service {
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.Keep <= 0 {
		o.Keep = 50
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.CancelPoll <= 0 {
		o.CancelPoll = time.Second
	}
	if o.MaxActive == 0 {
		o.MaxActive = DefaultMaxActive
	}
	if o.MaxPerOwner == 0 {
		o.MaxPerOwner = DefaultMaxPerOwner
	}
	s := &Service{ctx: ctx, st: st, opts: o, byID: map[string]*job{}}
	if st != nil {
		if err := holdRunnerLock(st.Dir); err != nil {
			o.Logf("jobs: %v (other processes will take this one's jobs for interrupted)", err)
		}
		go s.watchCancels()
	}
	return s
}

// Submit queues a task, or returns the job already under its ID when that
// one is queued, running or done. A new job over the active bounds is
// refused with ETOOMANY, saying which bound.
func (s *Service) Submit(t Task) (Status, error) {
	spec, err := json.Marshal(t.Spec)
	if err != nil {
		return Status{}, fmt.Errorf("job spec: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.byID[t.ID]; ok {
		if st := j.status(); st.State == Queued || st.State == Running || st.State == Done {
			return s.withPosition(j, st), nil
		}
	} else if rec := s.stored(t.ID); rec != nil && rec.State == Done {
		return statusOf(rec), nil
	}
	if err := s.admit(t.Owner); err != nil {
		return Status{}, err
	}
	ctx, cancel := context.WithCancel(s.ctx)
	j := &job{task: t, spec: spec, ctx: ctx, cancel: cancel, finished: make(chan struct{}),
		st: Status{ID: t.ID, Kind: t.Kind, Network: t.Network, State: Queued, Started: time.Now()}}
	// Stored before it is accepted: a job the state directory cannot hold
	// (its disk full) is refused now, not lost later.
	if err := s.persist(j); err != nil {
		cancel()
		return Status{}, err
	}
	s.byID[t.ID] = j
	s.queue = append(s.queue, j)
	s.dispatch()
	return s.withPosition(j, j.status()), nil
}

// admit checks the active bounds for one more job of owner (s.mu held).
func (s *Service) admit(owner string) error {
	total, mine := 0, 0
	for _, j := range s.byID {
		if Finished(j.status().State) {
			continue
		}
		total++
		if owner != "" && j.task.Owner == owner {
			mine++
		}
	}
	if s.opts.MaxActive > 0 && total >= s.opts.MaxActive {
		return engine.Errorf(engine.ETOOMANY, "%d jobs are queued or running, the limit: try again when one finishes", total)
	}
	if owner != "" && s.opts.MaxPerOwner > 0 && mine >= s.opts.MaxPerOwner {
		return engine.Errorf(engine.ETOOMANY, "you have %d jobs queued or running, the limit for one address: wait for one to finish or cancel one", mine)
	}
	return nil
}

// dispatch starts queued jobs while there is room (s.mu held).
func (s *Service) dispatch() {
	for s.busy < s.opts.Concurrency && len(s.queue) > 0 {
		j := s.queue[0]
		s.queue = s.queue[1:]
		s.busy++
		j.mu.Lock()
		j.st.State, j.begun = Running, time.Now()
		j.mu.Unlock()
		s.persist(j)
		s.wg.Add(1)
		go s.run(j)
	}
}

func (s *Service) run(j *job) {
	defer s.wg.Done()
	defer close(j.finished)
	result, err := func() (result any, err error) {
		defer func() {
			if r := recover(); r != nil { // a bug in one job never stops the server
				err = fmt.Errorf("internal error: %v", r)
				s.opts.Logf("job %s panicked: %v\n%s", j.task.ID, r, debug.Stack())
			}
		}()
		return j.task.Run(j.ctx, &Progress{s: s, j: j})
	}()
	var raw []byte
	if err == nil && result != nil {
		if raw, err = json.Marshal(result); err != nil {
			err = fmt.Errorf("job result: %w", err)
		}
	}
	j.mu.Lock()
	switch {
	case err == nil:
		j.st.State, j.st.Fraction = Done, 1
	case j.ctx.Err() != nil && s.ctx.Err() != nil:
		j.st.State, j.st.Error = Interrupted, "the server stopped while this job ran"
	case j.ctx.Err() != nil:
		j.st.State, j.st.Error = Canceled, "canceled"
	default:
		j.st.State, j.st.Error = Failed, err.Error() // the user's own job: its whole error helps
	}
	j.st.Seconds = time.Since(j.begun).Seconds()
	j.result = raw
	state := j.st.State
	j.mu.Unlock()
	if state == Failed {
		s.opts.Logf("%s job %s failed: %v", j.task.Kind, j.task.ID, err)
	}
	j.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	// Stored first, then freed: whoever sees it finished finds it in the
	// store. A result the store refuses (a full disk) fails the job
	// visibly; it is never shown done with nothing behind it.
	if err := s.persist(j); err != nil && state == Done {
		j.mu.Lock()
		j.st.State, j.st.Error, j.result = Failed, "the result could not be stored: "+engine.ErrorMessage(err), nil
		j.mu.Unlock()
		s.opts.Logf("%s job %s: %v", j.task.Kind, j.task.ID, err)
		s.persist(j)
	}
	s.busy--
	s.evict(j.task.Kind)
	s.dispatch()
}

// evict applies the Keep rule to a kind (s.mu held).
func (s *Service) evict(kind string) {
	var done []*job
	for _, j := range s.byID {
		if st := j.status(); j.task.Kind == kind && Finished(st.State) {
			done = append(done, j)
		}
	}
	slices.SortFunc(done, func(a, b *job) int { return b.st.Started.Compare(a.st.Started) })
	for _, j := range done[min(len(done), s.opts.Keep):] {
		delete(s.byID, j.task.ID)
	}
	if s.st != nil {
		if _, err := s.st.EvictJobs(context.Background(), kind, s.opts.Keep); err != nil {
			s.opts.Logf("evicting %s jobs: %v", kind, err)
		}
	}
}

// Recover marks the jobs a stopped process left queued or running as
// interrupted (a command line's job still running is left alone); the
// process that runs the dashboard's jobs calls it once at start, before
// submitting any.
func (s *Service) Recover() (int, error) {
	if s.st == nil {
		return 0, nil
	}
	return s.st.MarkInterrupted(context.Background(), func(runner string) bool { return runnerAlive(s.st.Dir, runner) })
}

// Wait blocks until every started job has returned (after the service's
// context ended, or for tests).
func (s *Service) Wait() { s.wg.Wait() }

// Get returns a job's status, from this process or the store.
func (s *Service) Get(id string) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.byID[id]; ok {
		return s.withPosition(j, j.status()), nil
	}
	if rec := s.stored(id); rec != nil {
		return statusOf(rec), nil
	}
	return Status{}, engine.Errorf(engine.ENOTFOUND, "no job %s", engine.Excerpt(id))
}

// DropNetwork cancels every job of a network that is being deleted and
// forgets them: whatever they finish later is never stored (the store's
// rows go with the network), so a new network of the same name starts with
// no benchmark of the old one. It waits up to wait for running ones to end.
func (s *Service) DropNetwork(network string, wait time.Duration) {
	s.mu.Lock()
	var running []*job
	for id, j := range s.byID {
		if j.task.Network != network {
			continue
		}
		j.mu.Lock()
		j.dropped = true
		state := j.st.State
		j.mu.Unlock()
		j.cancel()
		if state == Running {
			running = append(running, j)
		}
		delete(s.byID, id)
	}
	s.queue = slices.DeleteFunc(s.queue, func(q *job) bool { return q.task.Network == network })
	s.mu.Unlock()
	deadline := time.After(wait)
	for _, j := range running {
		select {
		case <-j.finished:
		case <-deadline:
			return
		}
	}
}

// Cancel stops a queued or running job; a finished one is left as it is.
// A job another process runs (a command line's) is asked to stop through
// the store: that process cancels it within a second or two.
func (s *Service) Cancel(id string) (Status, error) {
	s.mu.Lock()
	j, ok := s.byID[id]
	if !ok {
		s.mu.Unlock()
		st, err := s.Get(id)
		if err != nil {
			return st, err
		}
		if s.st != nil && !Finished(st.State) {
			if asked, err := s.st.RequestCancel(context.Background(), id); err != nil || asked {
				st.Stage = "cancel asked of the process running it"
				return st, err
			}
		}
		return st, engine.Errorf(engine.ECONFLICT, "job %s is %s: only a queued or running job can be canceled", id, st.State)
	}
	st := j.status()
	switch st.State {
	case Queued:
		s.queue = slices.DeleteFunc(s.queue, func(q *job) bool { return q == j })
		j.mu.Lock()
		j.st.State, j.st.Error = Canceled, "canceled before it started"
		j.mu.Unlock()
		j.cancel()
		s.persist(j)
	case Running:
		j.cancel() // run records the end
	default:
		s.mu.Unlock()
		return st, engine.Errorf(engine.ECONFLICT, "job %s is %s: only a queued or running job can be canceled", id, st.State)
	}
	s.mu.Unlock()
	return s.Get(id)
}

// Await waits until a job of this process has finished and returns its
// status; when ctx ends first (the command line's Ctrl-C) it cancels the
// job, waits for it to end and returns the canceled status. A job of
// another process (found only in the store) is refused.
func (s *Service) Await(ctx context.Context, id string) (Status, error) {
	s.mu.Lock()
	j, ok := s.byID[id]
	s.mu.Unlock()
	if !ok {
		st, err := s.Get(id)
		if err == nil && Finished(st.State) {
			return st, nil
		}
		return st, engine.Errorf(engine.ECONFLICT, "job %s runs in another process: follow it with `ontime jobs show %s`", id, id)
	}
	select {
	case <-j.finished:
	case <-ctx.Done():
		// A queued job is canceled at once (it never runs); a running one
		// ends when its task sees the canceled context.
		if st, _ := s.Cancel(id); st.State == Running {
			<-j.finished
		}
	}
	return s.Get(id)
}

// List returns jobs of a kind and network ("" for any), newest first: this
// process's and the store's.
func (s *Service) List(kind, network string) []Status {
	s.mu.Lock()
	seen := map[string]bool{}
	var out []Status
	for _, j := range s.byID {
		if (kind == "" || j.task.Kind == kind) && (network == "" || j.task.Network == network) {
			out = append(out, s.withPosition(j, j.status()))
			seen[j.task.ID] = true
		}
	}
	s.mu.Unlock()
	if s.st != nil {
		recs, err := s.st.Jobs(context.Background(), kind, network, s.opts.Keep*4)
		if err != nil {
			s.opts.Logf("listing jobs: %v", err)
		}
		for i := range recs {
			if !seen[recs[i].ID] {
				out = append(out, statusOf(&recs[i]))
			}
		}
	}
	slices.SortFunc(out, func(a, b Status) int { return b.Started.Compare(a.Started) })
	return out
}

// Result decodes a finished job's result into v; Spec its spec.
func (s *Service) Result(id string, v any) error {
	return s.decode(id, v, func(r *record) []byte { return r.result })
}
func (s *Service) Spec(id string, v any) error {
	return s.decode(id, v, func(r *record) []byte { return r.spec })
}

// Events returns the job's events from index from on.
func (s *Service) Events(id string, from int) ([]json.RawMessage, error) {
	r, err := s.record(id)
	if err != nil {
		return nil, err
	}
	return r.events[min(max(from, 0), len(r.events)):], nil
}

// Log returns the tail of a job's log.
func (s *Service) Log(id string) (string, error) {
	r, err := s.record(id)
	if err != nil {
		return "", err
	}
	return r.log, nil
}

func (s *Service) decode(id string, v any, field func(*record) []byte) error {
	r, err := s.record(id)
	if err != nil {
		return err
	}
	raw := field(r)
	if len(raw) == 0 {
		return engine.Errorf(engine.ENOTFOUND, "job %s has no result (it is %s)", id, r.state)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("stored job %s: %w", id, err)
	}
	return nil
}

// record is what a job holds beyond its status.
type record struct {
	state        string
	spec, result []byte
	events       []json.RawMessage
	log          string
}

func (s *Service) record(id string) (*record, error) {
	s.mu.Lock()
	j, ok := s.byID[id]
	s.mu.Unlock()
	if ok {
		j.mu.Lock()
		defer j.mu.Unlock()
		return &record{state: j.st.State, spec: j.spec, result: j.result, events: slices.Clone(j.events), log: j.log.String()}, nil
	}
	rec := s.stored(id)
	if rec == nil {
		return nil, engine.Errorf(engine.ENOTFOUND, "no job %s", engine.Excerpt(id))
	}
	r := &record{state: rec.State, spec: rec.Spec, result: rec.Result, log: rec.Log}
	r.events = splitLines(rec.Events)
	return r, nil
}

func (s *Service) stored(id string) *store.Job {
	if s.st == nil {
		return nil
	}
	rec, err := s.st.Job(context.Background(), id)
	if err != nil {
		if !errors.Is(err, context.Canceled) && engine.ErrorCode(err) != engine.ENOTFOUND {
			s.opts.Logf("reading job %s: %v", id, err)
		}
		return nil
	}
	return rec
}

// persist writes a job's record to the store, if there is one; a write
// the store refuses is logged and returned.
func (s *Service) persist(j *job) error {
	if s.st == nil {
		return nil
	}
	j.mu.Lock()
	if j.dropped {
		j.mu.Unlock()
		return nil
	}
	st := j.st
	rec := store.Job{ID: st.ID, Kind: st.Kind, Network: st.Network, State: st.State, Error: st.Error, Spec: j.spec,
		Started: st.Started, Seconds: st.Seconds, Result: j.result, Events: joinLines(j.events), Log: j.log.String(), Runner: thisRunner}
	j.mu.Unlock()
	if Finished(st.State) && st.State != Done {
		rec.Result = nil
	}
	if err := s.st.PutJob(context.Background(), rec); err != nil {
		s.opts.Logf("storing job %s: %v", st.ID, err)
		return err
	}
	return nil
}

func (s *Service) withPosition(j *job, st Status) Status {
	if i := slices.Index(s.queue, j); i >= 0 {
		st.Position = i + 1
	}
	return st
}

func statusOf(rec *store.Job) Status {
	st := Status{ID: rec.ID, Kind: rec.Kind, Network: rec.Network, State: rec.State, Error: rec.Error,
		Started: rec.Started, Seconds: rec.Seconds, Events: len(splitLines(rec.Events))}
	switch rec.State {
	case Done:
		st.Fraction = 1
	case Running:
		// Run by another process: its record holds the seconds of its last
		// save, 0 until it ends; the time since it started is what it has run.
		if !rec.Started.IsZero() {
			st.Seconds = max(st.Seconds, time.Since(rec.Started).Seconds())
		}
	}
	return st
}
