package ort

// A small reader and writer of ONNX graphs on the protobuf wire: enough to
// take a model's nodes apart and write subgraphs of them (split.go). Every
// field it does not use is carried over as it was.

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf fields used, from onnx.proto (ModelProto, GraphProto,
// NodeProto, TensorProto, ValueInfoProto, TypeProto); every other field is
// carried over as it was.
const (
	modelGraph         = 7
	graphNode          = 1
	graphInitializer   = 5
	graphInput         = 11
	graphOutput        = 12
	graphValueInfo     = 13
	graphSparseInit    = 15
	nodeInput          = 1
	nodeOutput         = 2
	nodeName           = 3
	nodeOpType         = 4
	tensorName         = 8
	valueInfoName      = 1
	nodeAttribute      = 5
	attrName           = 1
	attrFloat          = 2
	attrInt            = 3
	tensorDims         = 1
	tensorDataType     = 2
	tensorFloatData    = 4
	tensorRawData      = 9
	tensorDataLocation = 14
)

type onnxModel struct {
	before, after []byte // the model's other fields, before and after its graph
	graph         *onnxGraph
}

type onnxGraph struct {
	nodes        []*onnxNode
	initializers map[string][]byte // name → the whole field
	inputs       [][]byte          // whole fields, in order
	inputNames   []string
	outputs      [][]byte
	outNames     []string
	rest         []byte // name, doc string
}

type onnxNode struct {
	inputs, outputs []string
	name, op        string
	raw             []byte // the whole field, when unchanged
	other           []byte // fields besides inputs and outputs, in order
}

func parseModel(b []byte) (*onnxModel, error) {
	m := &onnxModel{}
	err := eachField(b, func(num protowire.Number, raw, val []byte) error {
		if num != modelGraph {
			if m.graph == nil {
				m.before = append(m.before, raw...)
			} else {
				m.after = append(m.after, raw...)
			}
			return nil
		}
		g, err := parseGraph(val)
		m.graph = g
		return err
	})
	if err == nil && m.graph == nil {
		err = errors.New("no graph")
	}
	return m, err
}

func parseGraph(b []byte) (*onnxGraph, error) {
	g := &onnxGraph{initializers: map[string][]byte{}}
	err := eachField(b, func(num protowire.Number, raw, val []byte) error {
		switch num {
		case graphNode:
			n, err := parseNode(raw, val)
			g.nodes = append(g.nodes, n)
			return err
		case graphInitializer:
			name, err := stringField(val, tensorName)
			g.initializers[name] = raw
			return err
		case graphInput, graphOutput:
			name, err := stringField(val, valueInfoName)
			if num == graphInput {
				g.inputs, g.inputNames = append(g.inputs, raw), append(g.inputNames, name)
			} else {
				g.outputs, g.outNames = append(g.outputs, raw), append(g.outNames, name)
			}
			return err
		case graphValueInfo: // shapes the runtime infers again
			return nil
		case graphSparseInit:
			return errors.New("sparse initializers")
		}
		g.rest = append(g.rest, raw...)
		return nil
	})
	return g, err
}

func parseNode(raw, b []byte) (*onnxNode, error) {
	n := &onnxNode{raw: raw}
	err := eachField(b, func(num protowire.Number, f, val []byte) error {
		switch num {
		case nodeInput:
			n.inputs = append(n.inputs, string(val))
		case nodeOutput:
			n.outputs = append(n.outputs, string(val))
		default:
			switch num {
			case nodeName:
				n.name = string(val)
			case nodeOpType:
				n.op = string(val)
			}
			n.other = append(n.other, f...)
		}
		return nil
	})
	return n, err
}

// eachField calls fn with each field's number, whole encoding and, for a
// length-delimited field, its contents.
func eachField(b []byte, fn func(num protowire.Number, raw, val []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		var val []byte
		if typ == protowire.BytesType {
			val, _ = protowire.ConsumeBytes(b[n:])
		}
		if err := fn(num, b[:n+m], val); err != nil {
			return err
		}
		b = b[n+m:]
	}
	return nil
}

func stringField(b []byte, want protowire.Number) (string, error) {
	s := ""
	err := eachField(b, func(num protowire.Number, _, val []byte) error {
		if num == want {
			s = string(val)
		}
		return nil
	})
	return s, err
}

// subgraphOps hold graphs of their own, which may read the outer graph's
// tensors: a cut through one is not followed here.
var subgraphOps = regexp.MustCompile(`^(If|Loop|Scan)$`)

// closure is the nodes that compute outputs, in an order that computes
// each input first, stopping at the tensors in stop and at the graph's
// inputs and initializers; override replaces a tensor's producer. It
// returns the graph inputs read, in the graph's order.
func (g *onnxGraph) closure(outputs, stop []string, override map[string]*onnxNode) ([]*onnxNode, []string, error) {
	producer := map[string]*onnxNode{}
	for _, n := range g.nodes {
		for _, o := range n.outputs {
			producer[o] = n
		}
	}
	for t, n := range override {
		producer[t] = n
	}
	need := map[*onnxNode]bool{}
	reads := map[string]bool{}
	seen := map[string]bool{}
	todo := slices.Clone(outputs)
	for len(todo) > 0 {
		t := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if slices.Contains(stop, t) || slices.Contains(g.inputNames, t) {
			reads[t] = true
			continue
		}
		if _, ok := g.initializers[t]; ok {
			continue
		}
		n := producer[t]
		if n == nil {
			return nil, nil, fmt.Errorf("tensor %s has no producer", t)
		}
		if subgraphOps.MatchString(n.op) {
			return nil, nil, fmt.Errorf("node %s (%s) holds a subgraph", n.name, n.op)
		}
		need[n] = true
		todo = append(todo, n.inputs...)
	}
	// The graph's nodes, then the replacements in their tensors' order:
	// the same model bytes every time.
	nodes := slices.Clone(g.nodes)
	for _, t := range slices.Sorted(maps.Keys(override)) {
		nodes = append(nodes, override[t])
	}
	picked := slices.DeleteFunc(nodes, func(n *onnxNode) bool { return !need[n] })
	// Order them: a node once every input it reads is computed.
	ready := map[string]bool{"": true}
	for t := range reads {
		ready[t] = true
	}
	for t := range g.initializers {
		ready[t] = true
	}
	var order []*onnxNode
	for len(picked) > 0 {
		var rest []*onnxNode
		for _, n := range picked {
			if !slices.ContainsFunc(n.inputs, func(t string) bool { return !ready[t] }) {
				order = append(order, n)
				for _, o := range n.outputs {
					ready[o] = true
				}
			} else {
				rest = append(rest, n)
			}
		}
		if len(rest) == len(picked) {
			return nil, nil, fmt.Errorf("node %s cannot be ordered", rest[0].name)
		}
		picked = rest
	}
	in := slices.DeleteFunc(slices.Concat(g.inputNames, stop), func(t string) bool { return !reads[t] })
	return order, in, nil
}

// inputInfos is the input declarations of the graph inputs among names.
func (g *onnxGraph) inputInfos(names []string) [][]byte {
	var out [][]byte
	for i, name := range g.inputNames {
		if slices.Contains(names, name) {
			out = append(out, g.inputs[i])
		}
	}
	return out
}

// subgraph encodes a graph of nodes with the given input and output
// declarations (whole fields), the initializers they read and the graph's
// name.
func (g *onnxGraph) subgraph(nodes []*onnxNode, inputs, outputs [][]byte) []byte {
	var b []byte
	used := map[string]bool{}
	for _, n := range nodes {
		b = append(b, n.encode()...)
		for _, t := range n.inputs {
			used[t] = true
		}
	}
	names := make([]string, 0, len(used))
	for t := range used {
		if _, ok := g.initializers[t]; ok {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	for _, t := range names {
		b = append(b, g.initializers[t]...)
	}
	for _, f := range inputs {
		b = append(b, f...)
	}
	for _, f := range outputs {
		b = append(b, f...)
	}
	return append(b, g.rest...)
}

// encode is the node's whole field (graph field 1).
func (n *onnxNode) encode() []byte {
	if n.raw != nil {
		return n.raw
	}
	var v []byte
	for _, t := range n.inputs {
		v = protowire.AppendTag(v, nodeInput, protowire.BytesType)
		v = protowire.AppendString(v, t)
	}
	for _, t := range n.outputs {
		v = protowire.AppendTag(v, nodeOutput, protowire.BytesType)
		v = protowire.AppendString(v, t)
	}
	return field(graphNode, append(v, n.other...))
}

// with is the model with graph g (encoded) in place of its own.
func (m *onnxModel) with(g []byte) []byte {
	b := slices.Clone(m.before)
	b = append(b, field(modelGraph, g)...)
	return append(b, m.after...)
}

// field is a length-delimited field num holding v.
func field(num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
}

// valueInfo declares a tensor of float (or bool) of the given rank with
// named dimensions (a ValueInfoProto: a graph's input or output).
func valueInfo(name string, isBool bool, rank int) []byte {
	elem := uint64(1) // FLOAT
	if isBool {
		elem = 9 // BOOL
	}
	var shape []byte
	for i := range rank {
		var dim []byte
		dim = protowire.AppendTag(dim, 2, protowire.BytesType) // dim_param
		dim = protowire.AppendString(dim, fmt.Sprintf("%s_d%d", name, i))
		shape = protowire.AppendTag(shape, 1, protowire.BytesType)
		shape = protowire.AppendBytes(shape, dim)
	}
	var tensor []byte
	tensor = protowire.AppendTag(tensor, 1, protowire.VarintType) // elem_type
	tensor = protowire.AppendVarint(tensor, elem)
	tensor = protowire.AppendTag(tensor, 2, protowire.BytesType) // shape
	tensor = protowire.AppendBytes(tensor, shape)
	var typ []byte
	typ = protowire.AppendTag(typ, 1, protowire.BytesType) // tensor_type
	typ = protowire.AppendBytes(typ, tensor)
	var vi []byte
	vi = protowire.AppendTag(vi, valueInfoName, protowire.BytesType)
	vi = protowire.AppendString(vi, name)
	vi = protowire.AppendTag(vi, 2, protowire.BytesType) // type
	vi = protowire.AppendBytes(vi, typ)
	return vi
}
