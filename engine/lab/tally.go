package lab

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ontime-routing/ontime/engine/store"
	"github.com/ontime-routing/ontime/engine/worker"
)

// Tally is what the lab counts for a service's metrics: no name of a
// network or a path, only counts.
type Tally struct {
	Jobs    map[JobKey]int // jobs kept (this process's and the store's) by kind and state
	Workers []worker.Count // worker runs by kind and outcome, since start
	Usage   Usage          // what the state directory stores
	Quota   Quota          // its limits
	// StoreBytes is the database's size on disk (its file and write-ahead
	// log).
	StoreBytes int64
}

// JobKey is a job's kind and state.
type JobKey struct{ Kind, State string }

// Tally counts what the metrics show.
func (l *Lab) Tally(ctx context.Context) (Tally, error) {
	t := Tally{Jobs: map[JobKey]int{}, Workers: worker.Counts()}
	for _, j := range l.Jobs().List("", "") {
		t.Jobs[JobKey{j.Kind, j.State}]++
	}
	st, err := l.store()
	if err != nil {
		return t, err
	}
	if t.Usage, err = l.Usage(ctx); err != nil {
		return t, err
	}
	if t.Quota, err = l.quota(ctx); err != nil {
		return t, err
	}
	for _, f := range []string{store.FileName, store.FileName + "-wal"} {
		if info, err := os.Stat(filepath.Join(st.Dir, f)); err == nil {
			t.StoreBytes += info.Size()
		}
	}
	return t, nil
}
