package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/store"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// waitFor polls a job until it reaches one of states.
func waitFor(t *testing.T, s *Service, id string, states ...string) Status {
	t.Helper()
	var st Status
	testenv.WaitFor(t, fmt.Sprintf("job %s in %v", id, states), func() bool {
		var err error
		if st, err = s.Get(id); err != nil {
			t.Fatal(err)
		}
		return slices.Contains(states, st.State)
	})
	return st
}

// blocker is a task that reports, emits an event, then waits to be released
// or canceled.
func blocker(id string, release chan struct{}) Task {
	return Task{ID: id, Kind: "test", Network: "n", Spec: map[string]string{"id": id},
		Run: func(ctx context.Context, p *Progress) (any, error) {
			p.Report("work", 1, 2, 0.5)
			p.Event(map[string]int{"point": 1})
			fmt.Fprintln(p.Log(), "working on", id)
			select {
			case <-release:
				return map[string]string{"done": id}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}
}

// One job runs at a time; the next queues with its position; cancel stops
// a running job and removes a queued one; results, events and logs are
// kept; a panic fails its job only.
func TestQueueCancelAndResults(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(ctx, st, Options{})
	relA, relB := make(chan struct{}), make(chan struct{})
	a, _ := s.Submit(blocker("a", relA))
	b, _ := s.Submit(blocker("b", relB))
	c, _ := s.Submit(blocker("c", make(chan struct{})))
	if b.State != Queued || b.Position != 1 || c.Position != 2 {
		t.Fatalf("b %+v, c %+v: want queued at 1 and 2", b, c)
	}
	if again, _ := s.Submit(blocker("a", nil)); again.ID != a.ID || again.State == Queued && again.Position == 0 {
		t.Fatalf("resubmitting a: %+v", again)
	}
	// Running comes before the task's first report: wait for the report
	// (a loaded machine once read the status in between).
	running := waitFor(t, s, "a", Running)
	testenv.WaitFor(t, "a's first report", func() bool {
		running, _ = s.Get("a")
		return running.Stage != ""
	})
	if running.Stage != "work" || running.Fraction != 0.5 {
		t.Errorf("a reports %+v", running)
	}
	if st, _ := s.Cancel("c"); st.State != Canceled {
		t.Errorf("canceling queued c: %+v", st)
	}
	close(relA)
	waitFor(t, s, "a", Done)
	var res map[string]string
	if err := s.Result("a", &res); err != nil || res["done"] != "a" {
		t.Errorf("a's result %v, %v", res, err)
	}
	waitFor(t, s, "b", Running)
	if st, _ := s.Cancel("b"); st.ID != "b" {
		t.Errorf("cancel b: %+v", st)
	}
	if st := waitFor(t, s, "b", Canceled); st.Error == "" {
		t.Errorf("canceled b says nothing: %+v", st)
	}
	if _, err := s.Cancel("a"); err == nil {
		t.Error("canceling a finished job succeeded")
	}
	ev, _ := s.Events("a", 0)
	if log, _ := s.Log("a"); len(ev) != 1 || string(ev[0]) != `{"point":1}` || log != "working on a\n" {
		t.Errorf("a's events %s, log %q", ev, log)
	}

	boom := Task{ID: "p", Kind: "test", Network: "n", Run: func(context.Context, *Progress) (any, error) { panic("boom") }}
	s.Submit(boom)
	if st := waitFor(t, s, "p", Failed); st.Error == "" {
		t.Errorf("panicking job: %+v", st)
	}
	fail := Task{ID: "f", Kind: "test", Network: "n", Run: func(context.Context, *Progress) (any, error) { return nil, errors.New("no python") }}
	s.Submit(fail)
	if st := waitFor(t, s, "f", Failed); st.Error != "no python" {
		t.Errorf("failing job: %+v", st)
	}
	if got := s.List("test", "n"); len(got) != 5 {
		t.Errorf("listed %d jobs, want 5", len(got))
	}
}

// After a restart the finished job, its result and events are in the
// store, the one that was running is interrupted and can be submitted
// again.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := New(ctx, st, Options{Concurrency: 2})
	rel := make(chan struct{})
	s.Submit(blocker("fin", rel))
	s.Submit(blocker("run", make(chan struct{})))
	waitFor(t, s, "run", Running)
	close(rel)
	waitFor(t, s, "fin", Done)
	// The process is killed: its store is closed with "run" still running.
	st.Close()
	stop()
	s.Wait()

	st, err = store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s = New(context.Background(), st, Options{})
	if n, err := s.Recover(); err != nil || n != 1 {
		t.Errorf("recovered %d, %v; want 1", n, err)
	}
	if got, _ := s.Get("run"); got.State != Interrupted {
		t.Errorf("running job after restart: %+v", got)
	}
	var res map[string]string
	if err := s.Result("fin", &res); err != nil || res["done"] != "fin" {
		t.Errorf("finished job after restart: %v, %v", res, err)
	}
	if ev, _ := s.Events("fin", 0); len(ev) != 1 {
		t.Errorf("events after restart: %s", ev)
	}
	rel2 := make(chan struct{})
	close(rel2)
	if again, _ := s.Submit(blocker("run", rel2)); again.State == Interrupted {
		t.Errorf("an interrupted job could not be restarted: %+v", again)
	}
	waitFor(t, s, "run", Done)
}

// Finished jobs beyond Keep of a kind are evicted, from memory and store.
func TestEviction(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(context.Background(), st, Options{Keep: 2})
	for i := range 4 {
		id := fmt.Sprint("j", i)
		s.Submit(Task{ID: id, Kind: "k", Network: "n", Run: func(context.Context, *Progress) (any, error) { return 1, nil }})
		waitFor(t, s, id, Done)
		time.Sleep(2 * time.Millisecond) // distinct start times
	}
	if got := s.List("k", ""); len(got) != 2 || got[0].ID != "j3" || got[1].ID != "j2" {
		t.Errorf("after eviction: %+v", got)
	}
	if _, err := s.Get("j0"); err == nil {
		t.Error("j0 was not evicted")
	}
}

// Active jobs are bounded per owner and in total; a refusal says which
// bound, resubmitting an active job is not a new one, and a finished job
// gives its slot back.
func TestActiveBounds(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s := New(ctx, nil, Options{MaxActive: 3, MaxPerOwner: 2})
	release := make(chan struct{})
	defer close(release)
	task := func(id, owner string) Task { t := blocker(id, release); t.Owner = owner; return t }
	for _, id := range []string{"a1", "a2"} {
		if _, err := s.Submit(task(id, "10.0.0.1")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Submit(task("a1", "10.0.0.1")); err != nil {
		t.Fatalf("the same job again is not a new one: %v", err)
	}
	_, err := s.Submit(task("a3", "10.0.0.1"))
	if engine.ErrorCode(err) != engine.ETOOMANY || !strings.Contains(err.Error(), "for one address") {
		t.Fatalf("third job of one owner: %v", err)
	}
	if _, err := s.Submit(task("b1", "10.0.0.2")); err != nil {
		t.Fatal(err)
	}
	_, err = s.Submit(task("c1", "10.0.0.3"))
	if engine.ErrorCode(err) != engine.ETOOMANY || !strings.Contains(err.Error(), "3 jobs are queued or running") {
		t.Fatalf("job over the total: %v", err)
	}
	if _, err := s.Cancel("a2"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "a2", Canceled)
	if _, err := s.Submit(task("a3", "10.0.0.1")); err != nil {
		t.Fatalf("a canceled job gives its slot back: %v", err)
	}

	free := New(ctx, nil, Options{MaxActive: -1, MaxPerOwner: -1})
	for i := range 40 {
		if _, err := free.Submit(task(fmt.Sprint("f", i), "x")); err != nil {
			t.Fatalf("no bounds: %v", err)
		}
	}
}

// A store that refuses writes (a full disk) fails what it cannot hold,
// visibly: a new job is refused with the store's error instead of being
// accepted and lost, and a job whose result cannot be stored ends failed,
// never done with nothing behind it.
func TestStoreRefusalsFailVisibly(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := New(context.Background(), st, Options{})
	release := make(chan struct{})
	first, err := s.Submit(blocker("a", release))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, first.ID, Running)
	st.Close() // every write fails from here on
	if _, err := s.Submit(blocker("b", make(chan struct{}))); err == nil {
		t.Error("a job the store cannot hold was accepted")
	}
	close(release)
	got := waitFor(t, s, first.ID, Done, Failed)
	if got.State != Failed || !strings.Contains(got.Error, "could not be stored") {
		t.Errorf("a result the store refused: %s %q", got.State, got.Error)
	}
	s.Wait()
}

// Await follows a job of this process: a finished one at once, a running
// one canceled when the caller's context ends (the command line's Ctrl-C),
// a queued one canceled without running; its log reaches LogCopy too.
func TestAwait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var copied strings.Builder
	var mu sync.Mutex
	s := New(ctx, nil, Options{LogCopy: writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return copied.Write(p)
	})})
	quick, _ := s.Submit(Task{ID: "quick", Kind: "k", Run: func(ctx context.Context, p *Progress) (any, error) {
		fmt.Fprintln(p.Log(), "hello from the job")
		return 1, nil
	}})
	if st, err := s.Await(context.Background(), quick.ID); err != nil || st.State != Done {
		t.Fatalf("quick: %+v %v", st, err)
	}
	mu.Lock()
	if !strings.Contains(copied.String(), "hello from the job") {
		t.Errorf("log copy: %q", copied.String())
	}
	mu.Unlock()
	block := func(ctx context.Context, p *Progress) (any, error) { <-ctx.Done(); return nil, ctx.Err() }
	slow, _ := s.Submit(Task{ID: "slow", Kind: "k", Run: block})
	waiting, _ := s.Submit(Task{ID: "waiting", Kind: "k", Run: block}) // queued behind slow (one at a time)
	stopped, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	if st, _ := s.Await(stopped, waiting.ID); st.State != Canceled {
		t.Errorf("queued job after the caller stopped: %+v", st)
	}
	if st, _ := s.Await(stopped, slow.ID); st.State != Canceled {
		t.Errorf("running job after the caller stopped: %+v", st)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A task that states its own time left replaces the fraction's estimate;
// one that cannot tell yet shows none rather than a wrong one (a benchmark
// whose methods took a second showed 1 s, then 55 s, then 18 s).
func TestEstimate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := New(ctx, nil, Options{})
	step := make(chan func(*Progress))
	next := make(chan struct{})
	s.Submit(Task{ID: "e", Kind: "k", Run: func(ctx context.Context, p *Progress) (any, error) {
		for f := range step {
			f(p)
			next <- struct{}{}
		}
		return nil, nil
	}})
	do := func(f func(*Progress)) Status {
		step <- f
		<-next
		st, _ := s.Get("e")
		return st
	}
	if st := do(func(p *Progress) { p.Report("a", 1, 2, 0.5) }); st.ETA <= 0 {
		t.Errorf("from the fraction: ETA %v", st.ETA)
	}
	if st := do(func(p *Progress) { p.Estimate(0, false) }); st.ETA != 0 {
		t.Errorf("not known yet: ETA %v", st.ETA)
	}
	if st := do(func(p *Progress) { p.Estimate(10, true) }); st.ETA > 10 || st.ETA < 9 {
		t.Errorf("stated 10 s: ETA %v", st.ETA)
	}
	close(step)
}
