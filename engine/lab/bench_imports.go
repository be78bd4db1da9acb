package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/jobs"
)

// ImportBench stores a report computed elsewhere (a sweep merged from a
// cluster's parts) as a finished benchmark job of its network, so that the
// dashboard's benchmarks page shows it like a local run. key identifies it
// (the same key again returns the stored job); source says where it came
// from. It goes through the one jobs service, like every job.
func (l *Lab) ImportBench(ctx context.Context, key, source string, rep *bench.Report) (JobStatus, error) {
	if err := l.StateError(); err != nil {
		return JobStatus{}, err
	}
	h := sha256.Sum256([]byte("import|" + key))
	spec := BenchSpec{Methods: rep.Methods, Budgets: rep.Budgets, Pools: len(rep.Provenance.Pools)}
	if len(rep.Provenance.Pools) > 0 {
		spec.PoolSize = rep.Provenance.Pools[0].Size
	}
	st, err := l.Jobs().Submit(jobs.Task{ID: hex.EncodeToString(h[:6]), Kind: jobKind, Network: rep.Network,
		Spec: benchJob{BenchSpec: spec, Source: source},
		Run:  func(context.Context, *jobs.Progress) (any, error) { return rep, nil }})
	if err != nil {
		return JobStatus{}, err
	}
	for !jobs.Finished(st.State) {
		select {
		case <-ctx.Done():
			return JobStatus{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if st, err = l.Jobs().Get(st.ID); err != nil {
			return JobStatus{}, err
		}
	}
	if st.State != jobs.Done {
		return JobStatus{}, engine.Errorf(engine.EINTERNAL, "storing the report of %s: job %s %s: %s", source, st.ID, st.State, st.Error)
	}
	return JobStatus{Status: st}, nil
}
