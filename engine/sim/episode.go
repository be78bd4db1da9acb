package sim

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine"
)

// Task is one origin-destination pair with a budget in minutes and a cap on
// the number of links per episode (0: no cap).
type Task struct {
	OD     engine.OD
	Budget float64
	Cap    int
	// Depart is the departure's time of day, minutes after midnight, on a
	// network whose law changes over the day (engine.Network.Timed): each
	// link's time is its law's at the clock time it is entered. Unread on
	// a static network.
	Depart float64
}

// Deadline is the clock time by which the task must arrive.
func (t Task) Deadline() float64 { return t.Depart + t.Budget }

// End says how an episode ended.
type End uint8

const (
	Arrived  End = iota // reached the destination; on time iff Time ≤ budget
	OverTime            // the time spent exceeded the budget before arriving
	DeadEnd             // stuck at a node with no outgoing link
	CapHit              // the cap's number of links traversed without arriving
)

// Result is one episode's outcome.
type Result struct {
	End    End
	OnTime bool
	Time   float64
	Links  int
	// HandedOver: the policy's fallback drove the episode's end
	// (engine.HandsOver): the policy alone could not have arrived within
	// the step cap from where it was.
	HandedOver bool
	// Revisit: the route drove some link more than once. Under independent
	// links no planner gains by it (a loop only spends time), so the
	// invariant battery counts it (ontime verify).
	Revisit bool
}

// History selects what the policy is shown of the route prefix, for the
// history-control experiments.
type History uint8

const (
	Realized  History = iota // what the traveller really saw
	NoHistory                // an empty prefix (remaining budget still true)
	Shuffled                 // the prefix's links with times from another realization of the pool
)

func (h History) String() string {
	return [...]string{"realized history", "no history", "shuffled history"}[h]
}

// Runner runs batches of episodes on one network. It keeps scratch buffers,
// so use one Runner per goroutine.
type Runner struct {
	Net     *engine.Network
	History History

	obs    []engine.Observation
	ptrs   []*engine.Observation
	shown  [][]engine.Step
	active []int
	links  []int
	trace  []engine.Step
	views  []engine.Observation
	seen   []int  // seen[e] == stamp: link e is on the route being checked
	handed []bool // handed[j]: episode j follows its policy's fallback
	stamp  int

	// oracle results for the current pool, reused across budgets
	oraclePool *Pool
	oracleKey  oracleKey
	oracleT    []float64
}

// Run plays one episode per realization of pool (all stepping together, so a
// BatchPolicy decides for the whole batch at once) and writes the results.
func (r *Runner) Run(p engine.Policy, task Task, pool *Pool, out []Result) error {
	if o, ok := p.(engine.Oracle); ok {
		r.runOracle(o, task, pool, out)
		return nil
	}
	start := engine.Observation{Node: task.OD.Origin, Destination: task.OD.Destination, Remaining: task.Budget, Clock: task.Depart}
	return r.RunFrom(p, task, &start, pool, out)
}

// RunFrom plays the rest of episodes that have reached the state start (its
// prefix already traversed, its budget left) under the same rules as Run,
// one per realization of pool; a realization must agree with the prefix's
// times. Rollout policies play their continuations with it, so the episode
// rule exists once.
func (r *Runner) RunFrom(p engine.Policy, task Task, start *engine.Observation, pool *Pool, out []Result) error {
	return r.run(p, []Task{task}, start, pool, [][]Result{out})
}

// RunTasks plays tasks (one OD pair's budgets, say) on pool, out[t] for
// tasks[t]: a batch policy's episodes of every task step together, so it
// decides for all of them at once (a learned policy encodes a route prefix
// that several budgets drove once). Each episode's result is the one Run
// gives it: a batch policy decides each row alone.
func (r *Runner) RunTasks(p engine.Policy, tasks []Task, pool *Pool, out [][]Result) error {
	if !StepsTogether(p) || len(tasks) < 2 {
		for t, task := range tasks {
			if err := r.Run(p, task, pool, out[t]); err != nil {
				return err
			}
		}
		return nil
	}
	od := tasks[0].OD
	for _, task := range tasks {
		if task.OD != od {
			return fmt.Errorf("RunTasks: tasks of OD pairs %v and %v", od, task.OD)
		}
	}
	start := engine.Observation{Node: od.Origin, Destination: od.Destination}
	for _, task := range tasks[1:] {
		if task.Depart != tasks[0].Depart {
			return fmt.Errorf("RunTasks: tasks departing at %s and %s", engine.FormatClock(tasks[0].Depart), engine.FormatClock(task.Depart))
		}
	}
	start.Clock = tasks[0].Depart
	return r.run(p, tasks, &start, pool, out)
}

// StepsTogether says whether RunTasks plays p's tasks as one batch: p
// decides for many episodes at once (an oracle is scored per pool).
func StepsTogether(p engine.Policy) bool {
	_, oracle := p.(engine.Oracle)
	_, batch := p.(engine.BatchPolicy)
	return batch && !oracle
}

// run plays every task's episodes from start (its budget left is each
// task's budget less what start's prefix took) stepping together:
// episode j is task j / n on realization j % n.
func (r *Runner) run(p engine.Policy, tasks []Task, start *engine.Observation, pool *Pool, out [][]Result) error {
	n := pool.Size
	total := n * len(tasks)
	caps := make([]int, len(tasks))
	capN := start.Step
	for t, task := range tasks {
		caps[t] = max(StepCap(r.Net, task.Cap), start.Step)
		capN = max(capN, caps[t])
	}
	spent := 0.0
	if len(tasks) > 1 {
		for _, st := range start.Prefix {
			spent += st.Time
		}
	}
	if cap(r.obs) < total {
		r.obs = make([]engine.Observation, total)
		r.ptrs = make([]*engine.Observation, total)
		r.shown = make([][]engine.Step, total)
		r.active = make([]int, 0, total)
		r.links = make([]int, total)
		r.views = make([]engine.Observation, total)
		r.handed = make([]bool, total)
	}
	if cap(r.trace) < total*capN {
		r.trace = make([]engine.Step, total*capN)
	}
	r.active = r.active[:0]
	for j := range total {
		remaining := start.Remaining
		if len(tasks) > 1 {
			remaining = tasks[j/n].Budget - spent
		}
		r.obs[j] = engine.Observation{Node: start.Node, Destination: start.Destination, Remaining: remaining, Step: start.Step,
			Prefix: append(r.trace[j*capN:j*capN:(j+1)*capN], start.Prefix...), Clock: start.Clock + spent}
		out[j/n][j%n] = Result{}
		r.handed[j] = false
		r.active = append(r.active, j)
	}
	donor := func(j int) []float64 { return pool.Row((j%n + 1) % n) }
	timed := r.Net.Timed()
	for len(r.active) > 0 {
		// Episodes at a node with no way out end before the policy is asked.
		k := 0
		for _, j := range r.active {
			if res, dead := Stuck(r.Net, tasks[j/n], &r.obs[j]); dead {
				res.Revisit = r.revisits(r.obs[j].Prefix)
				res.HandedOver = r.handed[j]
				out[j/n][j%n] = res
				continue
			}
			r.active[k] = j
			k++
		}
		r.active = r.active[:k]
		if k == 0 {
			break
		}
		ptrs := r.ptrs[:k]
		for a, j := range r.active {
			ptrs[a] = r.view(j, donor)
		}
		links := r.links[:k]
		if bp, ok := p.(engine.BatchPolicy); ok {
			bp.ActBatch(ptrs, links)
			if f, ok := p.(interface{ Err() error }); ok {
				if err := f.Err(); err != nil {
					return err
				}
			}
		} else {
			for a, o := range ptrs {
				links[a] = p.Act(o)
			}
		}
		if ho, ok := p.(engine.HandsOver); ok {
			r.handOver(ho, tasks, caps, n, links)
		}
		k = 0
		for a, j := range r.active {
			o := &r.obs[j]
			e := links[a]
			if e < 0 || e >= len(r.Net.Links) || r.Net.Links[e].From != o.Node {
				return fmt.Errorf("policy chose link %d, which does not leave node %s", e, r.Net.Nodes[o.Node].ID)
			}
			x := pool.Row(j % n)[e]
			if timed {
				x = r.Net.Clock.Time(e, o.Clock, x, r.Net.Links[e].Mean)
			}
			if res, done := Advance(r.Net, tasks[j/n], caps[j/n], o, e, x); done {
				res.Revisit = r.revisits(o.Prefix)
				res.HandedOver = r.handed[j]
				out[j/n][j%n] = res
				continue
			}
			r.active[k] = j
			k++
		}
		r.active = r.active[:k]
	}
	return nil
}

// handOver applies engine.HandsOver's rule to the active episodes' chosen
// links: an episode outside the policy's training (Fallback answers for
// it) that is already handed over, or whose chosen link would leave
// it fewer links to the cap than the fewest that reach the destination
// from the link's end, takes the fallback's link instead (LET's where its
// path fits in the links left, else the fewest-links route's), from then
// on. Where the destination cannot be reached at all, the policy's link
// stands.
func (r *Runner) handOver(ho engine.HandsOver, tasks []Task, caps []int, n int, links []int) {
	for a, j := range r.active {
		o := &r.obs[j]
		let, fewest := ho.Fallback(o)
		if fewest == nil || fewest.Next[o.Node] < 0 {
			continue
		}
		left := caps[j/n] - o.Step // links the episode may still take
		if !r.handed[j] {
			if h := fewest.Hops[r.Net.Links[links[a]].To]; h >= 0 && 1+h <= left {
				continue
			}
			r.handed[j] = true
		}
		links[a] = fewest.Next[o.Node]
		if h := let.Hops[o.Node]; h >= 0 && h <= left {
			links[a] = let.Next[o.Node]
		}
	}
}

// revisits says whether a route drives some link twice, in one pass over it.
func (r *Runner) revisits(route []engine.Step) bool {
	if len(r.seen) < len(r.Net.Links) {
		r.seen, r.stamp = make([]int, len(r.Net.Links)), 0
	}
	r.stamp++
	for _, s := range route {
		if r.seen[s.Link] == r.stamp {
			return true
		}
		r.seen[s.Link] = r.stamp
	}
	return false
}

// StepCap is the episode rule's cap on links for a task capped at taskCap
// on net: the task's cap, or the network's EpisodeCap when it has none. The
// trainer's spec carries the result.
func StepCap(net *engine.Network, taskCap int) int {
	if taskCap > 0 {
		return taskCap
	}
	return net.EpisodeCap()
}

// Advance is the episode rule, written once: from o, take link e, which
// took t minutes, and say whether the episode ended and how. The rule:
// arriving with budget left (≥ 0) is on time; running out of budget ends the
// episode late; so does the capN-th link without arriving. (A node with no
// way out ends it as a dead end before a policy is asked: see Stuck.)
func Advance(net *engine.Network, task Task, capN int, o *engine.Observation, e int, t float64) (Result, bool) {
	o.Prefix = append(o.Prefix, engine.Step{Link: e, Time: t})
	o.Step++
	o.Remaining -= t
	o.Clock += t
	o.Node = net.Links[e].To
	spent := task.Budget - o.Remaining
	switch {
	case o.Node == task.OD.Destination && o.Remaining >= 0:
		return Result{End: Arrived, OnTime: true, Time: spent, Links: o.Step}, true
	case o.Remaining < 0:
		return Result{End: OverTime, Time: spent, Links: o.Step}, true
	case o.Step >= capN:
		return Result{End: CapHit, Time: spent, Links: o.Step}, true
	}
	return Result{}, false
}

// Stuck says whether an episode at o cannot go on (no link leaves its
// node), and its result if so.
func Stuck(net *engine.Network, task Task, o *engine.Observation) (Result, bool) {
	if len(net.Out(o.Node)) > 0 {
		return Result{}, false
	}
	return Result{End: DeadEnd, Time: task.Budget - o.Remaining, Links: o.Step}, true
}

// view is what the policy is shown of episode i under r.History.
func (r *Runner) view(i int, donor func(int) []float64) *engine.Observation {
	o := &r.obs[i]
	switch r.History {
	case NoHistory:
		v := *o
		v.Prefix = nil
		r.shown[i] = nil
		return r.stash(i, v)
	case Shuffled:
		d := donor(i)
		s := append(r.shown[i][:0], o.Prefix...)
		for k := range s {
			s[k].Time = d[s[k].Link]
		}
		r.shown[i] = s
		v := *o
		v.Prefix = s
		return r.stash(i, v)
	}
	return o
}

// stash keeps a modified observation alive in a per-episode slot.
func (r *Runner) stash(i int, v engine.Observation) *engine.Observation {
	r.views[i] = v
	return &r.views[i]
}

// runOracle scores an oracle: its best time per realization does not depend
// on the budget, so it is computed once per pool and OD pair.
func (r *Runner) runOracle(o engine.Oracle, task Task, pool *Pool, out []Result) {
	key := oracleKey{task.OD.Origin, task.OD.Destination, task.Depart}
	if r.oraclePool != pool || r.oracleKey != key || len(r.oracleT) != pool.Size {
		r.oracleT = r.oracleT[:0]
		co, clocked := o.(engine.ClockOracle)
		timed := r.Net.Timed() && clocked
		for i := range pool.Size {
			if timed {
				r.oracleT = append(r.oracleT, co.BestTimeAt(task.OD, task.Cap, pool.Row(i), task.Depart))
			} else {
				r.oracleT = append(r.oracleT, o.BestTime(task.OD, task.Cap, pool.Row(i)))
			}
		}
		r.oraclePool, r.oracleKey = pool, key
	}
	for i, t := range r.oracleT {
		out[i] = Result{End: Arrived, OnTime: t <= task.Budget, Time: t}
		if t > task.Budget {
			out[i].End = OverTime
		}
	}
}

// oracleKey keys an oracle's times on a pool: the pair and the departure.
type oracleKey struct {
	origin, destination int
	depart              float64
}

// Tasks lists one task per OD pair and budget factor (OD-major): the budget
// is the factor times the pair's LET time, the cap the network's.
//
// On a network whose law changes over the day, the tasks leave at the
// clock's default departure and the LET time is the time-dependent one
// leaving then (TasksAt for another departure).
func Tasks(net *engine.Network, ods []engine.OD, factors []float64) []Task {
	if net.Timed() {
		return TasksAt(net, ods, factors, net.Clock.Depart)
	}
	var tasks []Task
	for _, od := range ods {
		let := net.LET(od.Destination).Time[od.Origin]
		for _, f := range factors {
			tasks = append(tasks, Task{OD: od, Budget: f * let, Cap: net.StepCap})
		}
	}
	return tasks
}

// TasksAt lists the tasks leaving at clock time depart on a network whose
// law changes over the day: each budget is the factor times the pair's
// time-dependent LET time leaving then (the earliest expected arrival).
func TasksAt(net *engine.Network, ods []engine.OD, factors []float64, depart float64) []Task {
	var tasks []Task
	for _, od := range ods {
		let := TimedLETTime(net, od, depart)
		for _, f := range factors {
			tasks = append(tasks, Task{OD: od, Budget: f * let, Cap: net.StepCap, Depart: depart})
		}
	}
	return tasks
}

// TimedLETTime is od's time-dependent LET time leaving at depart: the
// earliest arrival on expected link times at the hours they are entered,
// less the departure.
func TimedLETTime(net *engine.Network, od engine.OD, depart float64) float64 {
	_, at := net.EarliestArrival(od.Origin, od.Destination, depart, net.MeanTimeAt())
	return at - depart
}

// OnTimeRate is p's mean on-time rate over tasks on one pool.
func OnTimeRate(net *engine.Network, p engine.Policy, tasks []Task, pool *Pool) (float64, error) {
	r := &Runner{Net: net}
	out := make([]Result, pool.Size)
	total := 0.0
	for _, t := range tasks {
		if err := r.Run(p, t, pool, out); err != nil {
			return 0, err
		}
		for _, x := range out {
			if x.OnTime {
				total++
			}
		}
	}
	return total / float64(len(tasks)*pool.Size), nil
}
