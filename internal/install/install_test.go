package install

import (
	"os"
	"path/filepath"
	"testing"
)

// From a directory inside the checkout, the committed models and the
// trainer are found upwards; a name that is nowhere is not.
func TestFindUpwards(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := Find("models", IsDir); !ok || p != filepath.Join(root, "models") {
		t.Errorf("models: %q, %v; want %s", p, ok, filepath.Join(root, "models"))
	}
	if p, ok := Find(filepath.Join("models", "train", "train.py"), nil); !ok || p != filepath.Join(root, "models", "train", "train.py") {
		t.Errorf("trainer: %q, %v", p, ok)
	}
	if _, ok := Find("models", func(os.FileInfo) bool { return false }); ok {
		t.Error("a candidate want refuses was accepted")
	}
	if p, ok := Find("no-such-file-anywhere.ontime", nil); ok {
		t.Errorf("found %s", p)
	}
}
