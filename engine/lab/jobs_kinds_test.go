package lab

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/store"
)

// Every kind of job starts again after it was interrupted (the restart
// button asks the kinds table): a stored job of each kind, with the spec
// its kind stores, is accepted again. A learners job could not (issue 27).
func TestRestartEveryKind(t *testing.T) {
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	st, err := l.store()
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]any{
		trainKind:    TrainJob{Request: tinyRequest()},
		jobKind:      benchJob{BenchSpec: BenchSpec{Methods: []string{"let"}, Budgets: []float64{1}, Pools: 2, PoolSize: 20}},
		learnersKind: map[string]any{"learners": []string{"pql"}},
	}
	for _, k := range JobKinds() {
		if k.Name == trainKind && l.TrainingAvailable(builtin.Example) != "" {
			// The built-in networks do not train; TestTrainingJob restarts a
			// canceled training job on a stored network.
			continue
		}
		spec, ok := specs[k.Name]
		if !ok {
			t.Errorf("kind %s: this test has no stored spec for it", k.Name)
			continue
		}
		raw, _ := json.Marshal(spec)
		id := "old-" + k.Name
		if err := st.PutJob(context.Background(), store.Job{ID: id, Kind: k.Name, Network: builtin.Example, State: jobs.Interrupted, Spec: raw, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
		re, err := l.Restart(id, "")
		if err != nil {
			t.Errorf("kind %s: restart: %v", k.Name, err)
			continue
		}
		if re.Kind != k.Name || re.State == jobs.Failed {
			t.Errorf("kind %s: restarted as %+v", k.Name, re)
		}
		l.Jobs().Cancel(re.ID) // accepted is what this test asks; no need to finish
		waitJob(t, l, re.ID, jobs.Canceled, jobs.Done, jobs.Failed)
	}
}
