package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// modelUpload reads a test model (models/testdata) and opens the example
// network in a lab with a state directory; it needs ONNX Runtime.
func modelUpload(t *testing.T, file string) ([]byte, *Lab, *Net) {
	t.Helper()
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "models", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	l := New(Options{StateDir: t.TempDir()})
	t.Cleanup(func() { l.Close() })
	n, err := l.Open(builtin.Example)
	if err != nil {
		t.Fatal(err)
	}
	return data, l, n
}

// An uploaded policy is checked, then offered as user:NAME wherever
// methods are, runs in a comparison, and can be renamed and deleted; bad
// uploads are refused with what does not match and store nothing.
func TestUserModels(t *testing.T) {
	tiny, l, n := modelUpload(t, "tiny.onnx")
	offered := func(method string) bool {
		return slices.ContainsFunc(n.Methods(), func(m MethodInfo) bool { return m.Name == method })
	}
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"empty", "empty.onnx", nil, "empty"},
		{"text", "notes.onnx", []byte("not a model"), "not an ONNX model"},
		{"renamed", "renamed.onnx", bytes.ReplaceAll(tiny, []byte("budget"), []byte("budgex")), `no input named "budget"`},
		{"Bad Name", "tiny.onnx", tiny, "lower-case"},
	} {
		if _, err := l.AddUserModel(context.Background(), n, tc.name, tc.file, tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if got := l.UserModels(n); len(got) != 0 {
		t.Fatalf("refused uploads were stored: %+v", got)
	}
	m, err := l.AddUserModel(context.Background(), n, "tiny", "tiny.onnx", tiny)
	if err != nil {
		t.Fatal(err)
	}
	if m.Method != "user:tiny" || !strings.Contains(m.Check, "validation realizations") || !offered("user:tiny") {
		t.Fatalf("accepted %+v; offered %v", m, offered("user:tiny"))
	}
	if _, err := l.AddUserModel(context.Background(), n, "tiny", "tiny.onnx", tiny); err == nil {
		t.Error("a second model of the same name was accepted")
	}
	c, err := n.Compare(context.Background(), CompareRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"let", "user:tiny"}})
	if err != nil || c.Rollouts[1].Err != "" {
		t.Fatalf("user:tiny does not run: %v %+v", err, c)
	}
	if err := l.RenameUserModel(n, "tiny", "mine"); err != nil {
		t.Fatal(err)
	}
	if offered("user:tiny") || !offered("user:mine") {
		t.Error("rename did not change the method")
	}
	if model, card, err := l.UserModelFile(n, "mine"); err != nil || !strings.HasSuffix(model, "mine.onnx") || !strings.HasSuffix(card, "mine.json") {
		t.Errorf("files %s %s %v", model, card, err)
	}
	if err := l.DeleteUserModel(n, "mine"); err != nil || offered("user:mine") {
		t.Errorf("delete: %v", err)
	}
}

// An uploaded graph that never ends (an unbounded Loop, the policy
// interface outside) is stopped when its uploader leaves, and leaves no
// file behind; so is one past AcceptTime (the same terminate flag).
func TestUploadedModelThatNeverEndsIsStopped(t *testing.T) {
	loop, l, n := modelUpload(t, "loop.onnx")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second) // the uploader leaves after a second
	defer cancel()
	// A model that went on would never return (the test binary's timeout).
	_, err := l.AddUserModel(ctx, n, "loop", "loop.onnx", loop)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("a never-ending model: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(l.stateModels(), "user", "*", "*"))
	if len(left) != 0 || len(l.UserModels(n)) != 0 {
		t.Errorf("left behind: %v %v", left, l.UserModels(n))
	}
}
