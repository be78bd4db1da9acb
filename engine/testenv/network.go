package testenv

import (
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Network loads a built-in network (from dataDir; "" for the embedded
// ones) with its link-time model, or fails the test: the prologue of most
// engine tests.
func Network(tb testing.TB, name, dataDir string) (*engine.Network, *linktime.Gaussian) {
	tb.Helper()
	net, err := builtin.Load(name, dataDir)
	if err != nil {
		tb.Fatal(err)
	}
	model, err := linktime.New(net)
	if err != nil {
		tb.Fatal(err)
	}
	return net, model
}
