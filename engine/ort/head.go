package ort

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Logit is row's logit of link e, and how far the whole model's float32
// logit may lie from it: 0 where the model answered its logits. Made from
// the head, it is summed exactly enough in float64 that the bound is the
// float32 Gemm's own rounding, whatever its order of summation or fused
// multiply-adds: (d+1)·u/(1−(d+1)·u) times the sum of the terms' sizes,
// u = 2⁻²⁴ (Higham, Accuracy and Stability, §3.1).
func (o *Output) Logit(row, e, E int) (logit, bound float64) {
	if o.head == nil {
		return float64(o.Logits[row*E+e]), 0
	}
	h, d := o.head, o.head.d
	x, w := o.hidden[row*d:(row+1)*d], h.w[e*d:(e+1)*d]
	logit, size := float64(h.b[e]), math.Abs(float64(h.b[e]))
	for k, xk := range x {
		t := float64(xk) * float64(w[k]) // exact: two float32s' product
		logit += t
		size += math.Abs(t)
	}
	return logit, h.gamma * size
}

// linearHead is y = W x + b, W stored by output (E × d).
type linearHead struct {
	w, b  []float32
	d     int
	gamma float64 // the bound's factor for d+1 terms, with room for float64's own rounding
}

func newLinearHead(w, b []float32, d int) *linearHead {
	const u = 0x1p-24
	n := float64(d + 1)
	return &linearHead{w: w, b: b, d: d, gamma: n*u/(1-n*u) + 1e-12}
}

// headOf is the linear map that computes tensor out, when it is a Gemm of
// the export's kind (Y = A Bᵀ + C, B and C initializers, E × d and E), and
// the tensor it reads (A, B × d).
func (g *onnxGraph) headOf(out string) (*linearHead, string, error) {
	var n *onnxNode
	for _, m := range g.nodes {
		if len(m.outputs) == 1 && m.outputs[0] == out {
			n = m
		}
	}
	if n == nil || n.op != "Gemm" || len(n.inputs) != 3 {
		return nil, "", fmt.Errorf("%s is not made by a Gemm", out)
	}
	attrs, err := n.attributes()
	if err != nil {
		return nil, "", err
	}
	want := map[string]float64{"alpha": 1, "beta": 1, "transA": 0, "transB": 1}
	for name, v := range attrs {
		if w, ok := want[name]; !ok || v != w {
			return nil, "", fmt.Errorf("the head's Gemm has %s = %v", name, v)
		}
	}
	if _, ok := attrs["transB"]; !ok {
		return nil, "", errors.New("the head's Gemm does not read its weights by output (transB)")
	}
	wDims, w, err := g.floatInitializer(n.inputs[1])
	if err != nil {
		return nil, "", err
	}
	bDims, b, err := g.floatInitializer(n.inputs[2])
	if err != nil {
		return nil, "", err
	}
	if len(wDims) != 2 || len(bDims) != 1 || bDims[0] != wDims[0] || int64(len(w)) != wDims[0]*wDims[1] || int64(len(b)) != bDims[0] {
		return nil, "", fmt.Errorf("the head's weights are %v and its bias %v", wDims, bDims)
	}
	return newLinearHead(w, b, int(wDims[1])), n.inputs[0], nil
}

// attributes are a node's numeric attributes (ints and floats).
func (n *onnxNode) attributes() (map[string]float64, error) {
	out := map[string]float64{}
	err := eachField(n.other, func(num protowire.Number, _, val []byte) error {
		if num != nodeAttribute {
			return nil
		}
		name, v := "", math.NaN()
		err := eachField(val, func(num protowire.Number, raw, val []byte) error {
			switch num {
			case attrName:
				name = string(val)
			case attrFloat:
				if x, n := protowire.ConsumeFixed32(raw[protowire.SizeTag(num):]); n > 0 {
					v = float64(math.Float32frombits(x))
				}
			case attrInt:
				if x, n := protowire.ConsumeVarint(raw[protowire.SizeTag(num):]); n > 0 {
					v = float64(int64(x))
				}
			}
			return nil
		})
		out[name] = v
		return err
	})
	return out, err
}

// floatInitializer is a float32 initializer's dimensions and values, from
// its raw_data (little-endian) or float_data.
func (g *onnxGraph) floatInitializer(name string) ([]int64, []float32, error) {
	whole, ok := g.initializers[name]
	if !ok {
		return nil, nil, fmt.Errorf("%s is not an initializer", name)
	}
	var dims []int64
	var data []float32
	typ := uint64(0)
	err := eachField(whole, func(_ protowire.Number, _, tensor []byte) error {
		return eachField(tensor, func(num protowire.Number, raw, val []byte) error {
			body := raw[protowire.SizeTag(num):]
			switch num {
			case tensorDims:
				if val != nil { // packed
					for len(val) > 0 {
						x, n := protowire.ConsumeVarint(val)
						if n < 0 {
							return protowire.ParseError(n)
						}
						dims, val = append(dims, int64(x)), val[n:]
					}
				} else if x, n := protowire.ConsumeVarint(body); n > 0 {
					dims = append(dims, int64(x))
				}
			case tensorDataType:
				typ, _ = protowire.ConsumeVarint(body)
			case tensorFloatData, tensorRawData: // both little-endian float32s
				for ; len(val) >= 4; val = val[4:] {
					data = append(data, math.Float32frombits(binary.LittleEndian.Uint32(val)))
				}
			case tensorDataLocation:
				return fmt.Errorf("%s: its data is outside the model", name)
			}
			return nil
		})
	})
	if err == nil && typ != 1 {
		err = fmt.Errorf("%s: element type %d, not float", name, typ)
	}
	return dims, data, err
}
