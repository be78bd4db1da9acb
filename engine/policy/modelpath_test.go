package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// A model that is missing, or whose card is missing or damaged, is said by
// its name, never by its path: the message reaches anonymous clients (the
// API, /readyz), and it named the state directory (issue 71: 8).
func TestModelErrorsNameNoPath(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	net.Name = "mine"
	m, _ := linktime.New(net)
	dir := filepath.Join(t.TempDir(), "secret-state", "models")
	os.MkdirAll(dir, 0o755)
	meth, _ := Lookup("gpght")
	check := func(what string) {
		t.Helper()
		_, _, err := meth.New(&Env{Net: net, Model: m, ModelsDir: dir})
		if err == nil || strings.Contains(err.Error(), "secret-state") || strings.Contains(engine.ErrorMessage(err), "secret-state") || !strings.Contains(err.Error(), "mine.") {
			t.Errorf("%s: %v", what, err)
		}
	}
	check("no model")
	os.WriteFile(filepath.Join(dir, "mine.onnx"), []byte("not a model"), 0o644)
	check("no card")
	os.WriteFile(filepath.Join(dir, "mine.card.json"), []byte("{"), 0o644)
	check("a damaged card")
}
