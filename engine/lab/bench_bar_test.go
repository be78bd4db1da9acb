package lab

import (
	"math"
	"testing"
	"time"
)

// A benchmark job's bar moves with the builds and the rollouts at once
// (the planners are evaluated while the learners train) and never back;
// the time left is unknown until every method is built, then the pace of
// the rollouts since, not counting those done beside the training.
func TestBenchBarWhileLearnersTrain(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		stage       string
		done, total int
		at          time.Duration
		fraction    float64
		left        float64 // -1: unknown
	}{
		{"methods:segac", 0, 4, 0, 0, -1},
		{"methods", 1, 4, time.Second, 0.0625, -1},
		{"methods", 3, 4, 2 * time.Second, 0.1875, -1},
		{"rollouts", 6, 40, 30 * time.Second, 0.1875 + 0.75*6/40, -1}, // the planners, beside segac
		{"methods", 4, 4, 60 * time.Second, 0.25 + 0.75*6/40, -1},
		{"rollouts", 10, 40, 80 * time.Second, 0.25 + 0.75*10/40, 20.0 / 4 * 30},
		{"rollouts", 40, 40, 200 * time.Second, 1, 0},
	}
	var bar benchBar
	prev := 0.0
	for i, s := range steps {
		f, left, known := bar.update(s.stage, s.done, s.total, t0.Add(s.at))
		if math.Abs(f-s.fraction) > 1e-12 || f < prev {
			t.Errorf("step %d (%s %d/%d): fraction %v, want %v (after %v)", i, s.stage, s.done, s.total, f, s.fraction, prev)
		}
		prev = f
		if known != (s.left >= 0) || known && math.Abs(left-s.left) > 1e-9 {
			t.Errorf("step %d (%s %d/%d): %v s left (known %v), want %v", i, s.stage, s.done, s.total, left, known, s.left)
		}
	}
}
