//go:build cgo

package ort

import (
	"fmt"
	"strings"

	onnx "github.com/yalue/onnxruntime_go"
)

// port is one input or output of the documented interface.
type port struct {
	name  string
	dtype onnx.TensorElementDataType
	rank  int
	links bool // the last dimension is the network's link count
}

var interfacePorts = []port{
	{"edges", onnx.TensorElementDataTypeInt64, 2, false}, {"times", onnx.TensorElementDataTypeFloat, 2, false},
	{"pad", onnx.TensorElementDataTypeBool, 2, false}, {"cur", onnx.TensorElementDataTypeInt64, 1, false},
	{"dest", onnx.TensorElementDataTypeInt64, 1, false}, {"budget", onnx.TensorElementDataTypeFloat, 1, false},
	{"step", onnx.TensorElementDataTypeInt64, 1, false}, {"amask", onnx.TensorElementDataTypeBool, 2, true},
	{"logits", onnx.TensorElementDataTypeFloat, 2, true}, {"probs", onnx.TensorElementDataTypeFloat, 2, true},
}

var dtypeNames = map[onnx.TensorElementDataType]string{onnx.TensorElementDataTypeInt64: "int64",
	onnx.TensorElementDataTypeFloat: "float32", onnx.TensorElementDataTypeBool: "bool"}

// CheckInterface reads a model's inputs and outputs and lists every way
// they differ from the documented interface (models/README.md) for a
// network of the given link count; nil when they match.
func CheckInterface(model []byte, links int, opts ...Option) error {
	o := options{}
	for _, f := range opts {
		f(&o)
	}
	if o.library == "" {
		lib, err := FindLibrary()
		if err != nil {
			return err
		}
		o.library = lib
	}
	if err := initEnv(o.library); err != nil {
		return err
	}
	if len(model) == 0 {
		return fmt.Errorf("the file is empty")
	}
	ins, outs, err := onnx.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return fmt.Errorf("not an ONNX model ONNX Runtime 1.24.3 can load: %v", err)
	}
	have := map[string]onnx.InputOutputInfo{}
	for _, p := range append(ins, outs...) {
		have[p.Name] = p
	}
	var bad []string
	for _, want := range interfacePorts {
		got, ok := have[want.name]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("no %s named %q", kindOf(want.name), want.name))
		case got.DataType != want.dtype:
			bad = append(bad, fmt.Sprintf("%s is %s, the interface says %s", want.name, dtypeName(got.DataType), dtypeNames[want.dtype]))
		case len(got.Dimensions) != want.rank:
			bad = append(bad, fmt.Sprintf("%s has %d dimensions, the interface says %d", want.name, len(got.Dimensions), want.rank))
		case want.links && got.Dimensions[want.rank-1] > 0 && int(got.Dimensions[want.rank-1]) != links:
			bad = append(bad, fmt.Sprintf("%s has %d links, the network has %d", want.name, got.Dimensions[want.rank-1], links))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the model does not follow the policy interface (models/README.md): %s", strings.Join(bad, "; "))
	}
	return nil
}

func kindOf(name string) string {
	if name == "logits" || name == "probs" {
		return "output"
	}
	return "input"
}

func dtypeName(t onnx.TensorElementDataType) string {
	if s, ok := dtypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("element type %d", t)
}
