//go:build cgo

package ort

import (
	"errors"
	"fmt"
	"os"

	onnx "github.com/yalue/onnxruntime_go"
)

// Stages is s in two parts, or why its model runs whole.
func Stages(s Session) (TwoStage, error) {
	ss, ok := s.(*session)
	if !ok {
		return nil, errors.New("not an ONNX Runtime session")
	}
	if ss.enc == nil {
		return nil, ss.splitErr
	}
	return ss, nil
}

// openStages cuts the model in two and opens both parts with open; it
// checks on a probe that they answer as the whole model does.
func (s *session) openStages(model string, open func(data []byte, in, out []string) (*onnx.DynamicAdvancedSession, error)) error {
	data, err := os.ReadFile(model)
	if err != nil {
		return err
	}
	// On the CPU the head's few logits a decision reads are made in Go
	// (Output.Logit); a GPU, which may multiply in lower precision, keeps
	// its head.
	cut, err := splitModel(data, s.device == "cpu")
	if err != nil {
		return err
	}
	enc, err := open(cut.encoder, cut.encInputs, cut.memory)
	if err != nil {
		return fmt.Errorf("opening its encoder: %w", err)
	}
	dec, err := open(cut.decoder, cut.decInputs, cut.outputs)
	if err != nil {
		enc.Destroy()
		return fmt.Errorf("opening its decoder: %w", err)
	}
	s.enc, s.dec, s.cut = enc, dec, cut
	return nil
}

// batchTensor is the model input name of b.
func batchTensor(name string, b *Batch) (onnx.Value, error) {
	B, L, E := int64(b.B), int64(b.L), int64(b.E)
	switch name {
	case "edges":
		return newTensor(onnx.NewShape(B, L), b.Edges)
	case "times":
		return newTensor(onnx.NewShape(B, L), b.Times)
	case "pad":
		return newTensor(onnx.NewShape(B, L), b.Pad)
	case "cur":
		return newTensor(onnx.NewShape(B), b.Cur)
	case "dest":
		return newTensor(onnx.NewShape(B), b.Dest)
	case "budget":
		return newTensor(onnx.NewShape(B), b.Budget)
	case "step":
		return newTensor(onnx.NewShape(B), b.Step)
	case "amask":
		return newTensor(onnx.NewShape(B, E), b.AMask)
	}
	return nil, fmt.Errorf("no input %s in the model interface", name)
}

func destroyAll(vals []onnx.Value) {
	for _, v := range vals {
		if v != nil {
			v.Destroy()
		}
	}
}

func (s *session) Encode(b *Batch) (*Memory, error) {
	var in []onnx.Value
	defer func() { destroyAll(in) }()
	for _, name := range s.cut.encInputs {
		v, err := batchTensor(name, b)
		if err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	outs := make([]onnx.Value, len(s.cut.memory)) // allocated by ONNX Runtime
	if err := s.run(s.enc, in, outs); err != nil {
		destroyAll(outs)
		return nil, err
	}
	m := &Memory{release: func() { destroyAll(outs) }}
	for i, v := range outs {
		t := memoryTensorData{dims: v.GetShape()}
		switch x := v.(type) {
		case *onnx.Tensor[float32]:
			t.f32 = x.GetData()
		case *onnx.Tensor[bool]:
			t.bits = x.GetData()
		default:
			m.Release()
			return nil, fmt.Errorf("encoder output %s: a %T", s.cut.memory[i], v)
		}
		if len(t.dims) == 0 || t.dims[0] != int64(b.B) {
			m.Release()
			return nil, fmt.Errorf("encoder output %s: shape %v for %d rows", s.cut.memory[i], t.dims, b.B)
		}
		m.tensors = append(m.tensors, t)
	}
	return m, nil
}

func (s *session) Decide(b *Batch, m *Memory, rows []int) (*Output, error) {
	if len(rows) != b.B {
		return nil, fmt.Errorf("%d memory rows for %d rows", len(rows), b.B)
	}
	var vals []onnx.Value
	defer func() { destroyAll(vals) }()
	for _, name := range s.cut.decInputs[:len(s.cut.decInputs)-len(s.cut.memory)] {
		v, err := batchTensor(name, b)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	for _, t := range m.tensors {
		shape := onnx.NewShape(append([]int64{int64(b.B)}, t.dims[1:]...)...)
		per := 1
		for _, d := range t.dims[1:] {
			per *= int(d)
		}
		var v onnx.Value
		var err error
		if t.bits != nil {
			v, err = newTensor(shape, gather(t.bits, per, rows))
		} else {
			v, err = newTensor(shape, gather(t.f32, per, rows))
		}
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	B, width := int64(b.B), int64(b.E)
	if s.cut.head != nil {
		width = int64(s.cut.head.d)
	}
	answer := make([]float32, B*width)
	out, err := newTensor(onnx.NewShape(B, width), answer)
	if err != nil {
		return nil, err
	}
	vals = append(vals, out)
	if err := s.run(s.dec, vals[:len(vals)-1], vals[len(vals)-1:]); err != nil {
		return nil, err
	}
	if s.cut.head != nil {
		return &Output{hidden: answer, head: s.cut.head}, nil
	}
	return &Output{Logits: answer}, nil
}

// gather is rows of x (per values a row), in the order asked.
func gather[T any](x []T, per int, rows []int) []T {
	out := make([]T, 0, per*len(rows))
	for _, r := range rows {
		out = append(out, x[r*per:(r+1)*per]...)
	}
	return out
}
