//go:build cgo

package ort

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/testenv"
)

// Uploads that do not follow the interface are refused with what differs.
func TestCheckInterface(t *testing.T) {
	if _, err := FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	tiny, err := os.ReadFile(filepath.Join("..", "..", "models", "testdata", "tiny.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	// Renaming every occurrence keeps the graph consistent: a valid model
	// whose input is called "budgex".
	renamed := bytes.ReplaceAll(tiny, []byte("budget"), []byte("budgex"))
	for _, tc := range []struct {
		name  string
		model []byte
		links int
		want  string // "" : accepted
	}{
		{"the tiny model on its network", tiny, 5, ""},
		{"wrong link count", tiny, 76, "amask has 5 links, the network has 76"},
		{"wrong input name", renamed, 5, `no input named "budget"`},
		{"not ONNX at all", []byte("From,To,Cost\n1,2,3\n"), 5, "not an ONNX model"},
		{"a 0-byte file", nil, 5, "empty"},
	} {
		err := CheckInterface(tc.model, tc.links)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
