package lab

import (
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// Graph reads a network for its map and facts without building its
// link-time model, and Open then builds the model on that same read; a
// network that cannot be read is not kept, so that it can be read later.
func TestGraphReadsWithoutTheModel(t *testing.T) {
	dir := t.TempDir()
	saved := New(Options{StateDir: dir})
	saveGrid(t, saved)
	saved.Close()

	l := New(Options{StateDir: dir})
	defer l.Close()
	net, err := l.Graph("grid")
	if err != nil {
		t.Fatal(err)
	}
	if len(net.Links) == 0 || len(net.ODs) != 1 {
		t.Fatalf("read %d links and %d OD pairs", len(net.Links), len(net.ODs))
	}
	if _, building := l.Building("grid"); building {
		t.Error("a quick model said to be building")
	}
	e := l.entry("grid")
	select {
	case <-e.done:
		t.Fatal("Graph or Building built the link-time model")
	default:
	}
	again, err := l.Graph("grid")
	if err != nil || again != net {
		t.Fatalf("a second Graph read the network again (%v)", err)
	}
	n, err := l.Open("grid")
	if err != nil {
		t.Fatal(err)
	}
	if n.Net != net || n.Model == nil {
		t.Error("Open did not build the model on Graph's read")
	}

	if _, err := l.Graph("nosuch"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("a missing network: %v, want not found", err)
	}
	l.mu.Lock()
	_, kept := l.nets["nosuch"]
	l.mu.Unlock()
	if kept {
		t.Error("a network that could not be read is kept")
	}
	if _, err := l.Graph("../grid.json"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("a path: %v, want not found", err)
	}
}
