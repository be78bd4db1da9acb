package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine/policy"
)

// checkpoint is a saved model state with its greedy on-time flags on the
// validation pool (factor-major, then validation pair, then realization).
type checkpoint struct {
	Name  string
	Path  string
	flags []uint8
	Means []float64 // per validation factor
}

// Mean is the on-time rate over every validation episode.
func (c *checkpoint) Mean() float64 {
	n := 0
	for _, f := range c.flags {
		n += int(f)
	}
	return float64(n) / float64(len(c.flags))
}

// validate scores a checkpoint on the validation pool.
func (s *session) validate(ctx context.Context, name, path string, factors, perFactor int, seed uint64) (*checkpoint, error) {
	out := path + ".val"
	if _, err := s.run(ctx, "validate", "--state", path, "--out", out, "--seed", fmt.Sprint(seed), "--batch", "4096"); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	if len(b) != factors*perFactor {
		return nil, fmt.Errorf("%w: %s has %d flags, want %d", errNoFlags, out, len(b), factors*perFactor)
	}
	c := &checkpoint{Name: name, Path: path, flags: b}
	for f := range factors {
		n := 0
		for _, x := range b[f*perFactor : (f+1)*perFactor] {
			n += int(x)
		}
		c.Means = append(c.Means, float64(n)/float64(perFactor))
	}
	return c, nil
}

var errNoFlags = errors.New("validation flags missing")

// beats is the checkpoint rule, fixed before any test result is seen: a
// later checkpoint replaces the best only if it beats it on the validation
// pool by more than one paired standard error.
func beats(g policy.PairedGain) bool { return g.Diff > g.SE }

// compare pairs two checkpoints' flags episode by episode: the mean
// on-time difference next − best and its paired standard error.
func compare(next, best *checkpoint) policy.PairedGain {
	n := float64(len(next.flags))
	sum, sq := 0.0, 0.0
	for i, x := range next.flags {
		d := float64(x) - float64(best.flags[i])
		sum += d
		sq += d * d
	}
	mean := sum / n
	v := (sq/n - mean*mean) * n / math.Max(n-1, 1)
	return policy.PairedGain{Diff: mean, SE: math.Sqrt(math.Max(v, 0) / n)}
}

// roundName names the checkpoint of each improvement round ("round2"): a
// file name, and the card's record.
const roundName = "round%d"

// CheckpointLabel is a checkpoint's name in words, for pages: "round2" is
// "round 2", "imitation" "the imitation checkpoint"; an unknown name is
// itself.
func CheckpointLabel(name string) string {
	if name == "imitation" {
		return "the imitation checkpoint"
	}
	if rest, ok := strings.CutPrefix(name, "round"); ok {
		if k, err := strconv.Atoi(rest); err == nil {
			return fmt.Sprintf("round %d", k)
		}
	}
	return name
}
