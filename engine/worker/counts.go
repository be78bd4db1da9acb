package worker

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/ontime-routing/ontime/engine"
)

// Outcomes of a worker run, as the metrics count them: the work answered
// (done, or refused the input: answered), it passed its memory (memory), it
// was stopped by its time limit or its caller (stopped), or it ended
// without an answer (failed).
const (
	Answered = "answered"
	Memory   = "memory"
	Stopped  = "stopped"
	Failed   = "failed"
)

// Count is how many runs of a kind ended one way.
type Count struct {
	Kind, Outcome string
	N             int
}

var counts = struct {
	sync.Mutex
	n map[[2]string]int
}{n: map[[2]string]int{}}

func count(kind string, err error, stopped bool) {
	outcome := Answered
	var e *engine.Error
	switch {
	case stopped:
		outcome = Stopped
	case engine.ErrorCode(err) == engine.ETOOLARGE:
		outcome = Memory
	case err != nil && !errors.As(err, &e):
		outcome = Failed
	}
	counts.Lock()
	counts.n[[2]string{kind, outcome}]++
	counts.Unlock()
}

// Counts are this process's worker runs by kind and outcome, in order.
func Counts() []Count {
	counts.Lock()
	defer counts.Unlock()
	out := make([]Count, 0, len(counts.n))
	for k, n := range counts.n {
		out = append(out, Count{k[0], k[1], n})
	}
	slices.SortFunc(out, func(a, b Count) int { return strings.Compare(a.Kind+a.Outcome, b.Kind+b.Outcome) })
	return out
}
