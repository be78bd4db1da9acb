package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A failed write leaves the old file and no temporary behind.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(w io.Writer) error { w.Write([]byte("half")); return boom }); err != boom {
		t.Fatalf("err %v", err)
	}
	got, _ := os.ReadFile(path)
	left, _ := filepath.Glob(filepath.Join(dir, ".ontime-*"))
	if string(got) != "one" || len(left) != 0 {
		t.Errorf("file %q, temporaries %v", got, left)
	}
}
