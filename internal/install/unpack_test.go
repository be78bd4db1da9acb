package install

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// Unpacking writes every file once under a directory named by their
// contents: the same files give the same directory (reused), changed files
// another.
func TestUnpack(t *testing.T) {
	root := t.TempDir()
	a := fstest.MapFS{"x.onnx": {Data: []byte("model")}, "x.card.json": {Data: []byte("{}")}}
	dir, err := unpackTo(a, root, "models")
	if err != nil {
		t.Fatal(err)
	}
	for n, f := range a {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != string(f.Data) {
			t.Errorf("%s: %q, %v", n, b, err)
		}
	}
	again, err := unpackTo(a, root, "models")
	if err != nil || again != dir {
		t.Errorf("second unpack: %s, %v (first %s)", again, err, dir)
	}
	a["x.onnx"] = &fstest.MapFile{Data: []byte("model 2")}
	other, err := unpackTo(a, root, "models")
	if err != nil || other == dir {
		t.Errorf("changed files unpacked to %s (first %s), %v", other, dir, err)
	}
}
