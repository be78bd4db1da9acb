//go:build cgo

package policy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// BenchmarkONNXDecisions measures a Sioux Falls policy model on the CPU:
// latency per decision at batch 1 and decisions/s at batches 256 and 2000,
// with route prefixes of 0-6 links (issue 26 sets batches 1 and 256 beside
// BenchmarkRolloutDecision). Models: $ONTIME_BENCH_MODELS (comma-separated),
// else models/sfn.onnx.
//
//	go test -run '^$' -bench ONNXDecisions ./engine/policy/
func BenchmarkONNXDecisions(b *testing.B) {
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(b, err.Error())
	}
	net, err := builtin.Load("sfn", testenv.DataDir(b))
	if err != nil {
		b.Fatal(err)
	}
	models := []string{filepath.Join("..", "..", "models", "sfn.onnx")}
	if v := os.Getenv("ONTIME_BENCH_MODELS"); v != "" {
		models = strings.Split(v, ",")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	obs := func(n int) []*engine.Observation {
		out := make([]*engine.Observation, n)
		for i := range out {
			if i%3 > 0 { // the same prefix under three budgets, as a benchmark's budgets step together
				o := *out[i-1]
				o.Remaining += 2
				out[i] = &o
				continue
			}
			o := &engine.Observation{Node: rng.IntN(len(net.Nodes)), Destination: 14, Remaining: 40}
			for k := rng.IntN(7); k > 0; k-- {
				l := net.Out(o.Node)[rng.IntN(len(net.Out(o.Node)))]
				o.Prefix = append(o.Prefix, engine.Step{Link: l, Time: net.Links[l].Mean})
				o.Node = net.Links[l].To
				o.Step++
			}
			out[i] = o
		}
		return out
	}
	for _, model := range models {
		p, err := NewONNXPolicy(net, model, ONNXOptions{})
		if err != nil {
			b.Fatal(err)
		}
		// "whole" runs the model uncut; "parts" as it runs when it can be
		// cut (encoder, then a decoder answering logits): each prefix comes
		// three times, at three budgets.
		stages := p.stages
		for _, way := range []string{"parts", "whole"} {
			p.stages = stages
			if way == "whole" {
				p.stages = nil
			} else if stages == nil {
				continue
			}
			for _, batch := range []int{1, 256, 2000} {
				b.Run(fmt.Sprintf("%s/%s/batch%d", filepath.Base(model), way, batch), func(b *testing.B) {
					o := obs(batch)
					links := make([]int, batch)
					b.ResetTimer()
					for range b.N {
						p.ActBatch(o, links)
					}
					b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "decisions/s")
				})
			}
		}
		p.Close()
	}
}
