package lab

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/jobs"
)

// JobKind is what the lab knows about one kind of job. The pages, the CLI
// and the restart button ask it; nothing outside this table switches on a
// kind's name.
type JobKind struct {
	Name   string `json:"name"`   // stored with each job
	Title  string `json:"title"`  // what a page calls its jobs
	Curve  bool   `json:"curve"`  // its page draws the training curve
	Report bool   `json:"report"` // a done job's results are a benchmark report of its network
	// restart starts a failed, canceled or interrupted job of the kind
	// again from its stored spec.
	restart func(l *Lab, n *Net, id, owner string) (jobs.Status, error)
}

var jobKinds = []JobKind{
	{Name: trainKind, Title: "Training", Curve: true, restart: func(l *Lab, n *Net, id, owner string) (jobs.Status, error) {
		var spec TrainJob
		if err := l.Jobs().Spec(id, &spec); err != nil {
			return jobs.Status{}, err
		}
		return l.StartTraining(n, spec.Request, owner)
	}},
	{Name: jobKind, Title: "Benchmark", Report: true, restart: func(l *Lab, n *Net, id, owner string) (jobs.Status, error) {
		var spec benchJob
		if err := l.Jobs().Spec(id, &spec); err != nil {
			return jobs.Status{}, err
		}
		st, err := l.StartBench(n, spec.BenchSpec, owner)
		return st.Status, err
	}},
	{Name: learnersKind, Title: "Learners", restart: func(l *Lab, n *Net, _, owner string) (jobs.Status, error) {
		// The learners are the registry's at the time of the restart.
		return l.StartLearners(n, owner)
	}},
}

// JobKinds lists every kind of job, in the order pages show them.
func JobKinds() []JobKind { return jobKinds }

// KindOf returns the kind of job called name.
func KindOf(name string) (JobKind, bool) {
	for _, k := range jobKinds {
		if k.Name == name {
			return k, true
		}
	}
	return JobKind{Name: name, Title: name}, false
}

// Restart starts a failed, canceled or interrupted job again with its
// stored spec (same ID: the same run), whatever its kind.
func (l *Lab) Restart(id, owner string) (jobs.Status, error) {
	st, err := l.Jobs().Get(id)
	if err != nil {
		return st, err
	}
	if !jobs.Finished(st.State) || st.State == jobs.Done {
		return st, engine.Errorf(engine.ECONFLICT, "job %s is %s: only a failed, canceled or interrupted job starts again", id, st.State)
	}
	k, ok := KindOf(st.Kind)
	if !ok || k.restart == nil {
		return st, engine.Errorf(engine.EINVALID, "job %s is of kind %q, which cannot start again", id, st.Kind)
	}
	n, err := l.Open(st.Network)
	if err != nil {
		return st, err
	}
	return k.restart(l, n, id, owner)
}

// TrainingJobs lists a network's training jobs, newest first.
func (l *Lab) TrainingJobs(network string) []jobs.Status { return l.Jobs().List(trainKind, network) }
