package ort

import (
	"errors"
	"fmt"
	"slices"
)

// A GPG-HT model reads the route prefix (edges, times, pad and the start
// token, which cur only shapes) in its encoder and the decision context
// (node, destination, budget, step, allowed links) in its decoder, whose
// cross-attention projects the encoder's memory to keys and values. Those
// keys and values depend on the prefix alone, so episodes at different
// budgets that drove the same links in the same times (a benchmark's three
// budgets on one pool, until their routes part) need them computed once.
// splitModel cuts the graph there into two models: the encoder (prefix →
// each decoder layer's cross-attention keys, values and padding mask) and
// the decoder (those, with the context → logits). Every node is the whole
// model's but for the decoder's self-attention over its one query, which
// is shortened exactly (oneQuerySelfAttention), so a row's logits are the
// whole model's; a policy still checks that bit for bit on a probe before
// it uses the pair.

// splitModel cuts model, or says why it cannot (a model from another
// exporter, or without the Transformer decoder: it then runs whole). With
// cutHead the decoder stops before the head where the head is a plain
// Gemm, and answers the head's input (Output.Logit makes the logits).
func splitModel(model []byte, cutHead bool) (*splitGraphs, error) {
	m, err := parseModel(model)
	if err != nil {
		return nil, err
	}
	g := m.graph
	byName := map[string]*onnxNode{}
	for _, n := range g.nodes {
		byName[n.name] = n
	}
	var memory []memoryTensor
	override := map[string]*onnxNode{} // tensor → the node the encoder computes it with
	for i := 0; ; i++ {
		p := fmt.Sprintf("/dec.%d/cross/", i)
		k, v, cast, batch, shape := byName[p+"MatMul"], byName[p+"MatMul_1"], byName[p+"Cast"], byName[p+"Gather"], byName[p+"Shape_2"]
		if k == nil && v == nil {
			break
		}
		if k == nil || v == nil || cast == nil || batch == nil || shape == nil ||
			len(k.inputs) != 2 || len(v.inputs) != 2 || len(cast.inputs) != 1 || len(batch.inputs) != 2 || len(shape.outputs) != 1 || len(batch.outputs) != 1 {
			return nil, fmt.Errorf("decoder layer %d: not the GPG-HT export's cross-attention", i)
		}
		memory = append(memory, memoryTensor{k.inputs[1], false}, memoryTensor{v.inputs[1], false}, memoryTensor{cast.inputs[0], true})
		// The keys' and values' reshape reads the batch size off the
		// decoder's query; the encoder reads it off its own memory (the
		// same number).
		b := *batch
		b.inputs = []string{shape.outputs[0], batch.inputs[1]}
		b.raw = nil
		override[batch.outputs[0]] = &b
	}
	if len(memory) == 0 {
		return nil, errors.New("no Transformer decoder cross-attention (/dec.0/cross/)")
	}
	names := make([]string, len(memory))
	for i, t := range memory {
		names[i] = t.name
	}
	enc, encIn, err := g.closure(names, nil, override)
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	for _, in := range encIn {
		if !slices.Contains([]string{"edges", "times", "pad", "cur"}, in) {
			return nil, fmt.Errorf("the encoder's part reads %s, not only the prefix", in)
		}
	}
	// The decoder answers the logits alone: a greedy choice reads them
	// (the probabilities' softmax over every link, 12% of a row, is left
	// to the whole model where two links come close).
	logits := slices.Index(g.outNames, "logits")
	if logits < 0 {
		return nil, errors.New("no output named logits")
	}
	decOut, decOutInfo := g.outNames[logits], g.outputs[logits]
	s := &splitGraphs{memory: names, encInputs: encIn}
	if cutHead {
		if head, in, err := g.headOf("logits"); err == nil {
			decOut, decOutInfo, s.head = in, field(graphOutput, valueInfo(in, false, 2)), head
		}
	}
	dec, decIn, err := g.closure([]string{decOut}, names, oneQuerySelfAttention(byName))
	if err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	for _, in := range decIn {
		if !slices.Contains(names, in) {
			s.decInputs = append(s.decInputs, in)
		}
	}
	s.decInputs = append(s.decInputs, names...)
	var memOut, memIn [][]byte
	for _, t := range memory {
		memOut = append(memOut, field(graphOutput, valueInfo(t.name, t.bool, 4)))
		memIn = append(memIn, field(graphInput, valueInfo(t.name, t.bool, 4)))
	}
	s.encoder = m.with(g.subgraph(enc, g.inputInfos(encIn), memOut))
	s.decoder = m.with(g.subgraph(dec, append(g.inputInfos(decIn), memIn...), [][]byte{decOutInfo}))
	s.outputs = []string{decOut}
	return s, nil
}

// oneQuerySelfAttention shortens each decoder layer's self-attention: over
// its one query, the softmax over one key is exactly 1 and the attention's
// output is exactly the value's projection (v(q), then o), so the output
// projection reads the value's projection straight, and the query and key
// projections, their product and softmax drop out of the decoder (about
// 5% of a decision). The answer is the same bits; the probe checks it.
func oneQuerySelfAttention(byName map[string]*onnxNode) map[string]*onnxNode {
	override := map[string]*onnxNode{}
	for i := 0; ; i++ {
		p := fmt.Sprintf("/dec.%d/self_att/", i)
		o, heads, v := byName[p+"o/MatMul"], byName[p+"Reshape_3"], byName[p+"v/Add"]
		if o == nil || heads == nil || v == nil {
			return override
		}
		if len(o.inputs) != 2 || len(o.outputs) != 1 || len(heads.outputs) != 1 || len(v.outputs) != 1 || o.inputs[0] != heads.outputs[0] {
			return override
		}
		short := *o
		short.inputs = []string{v.outputs[0], o.inputs[1]}
		short.raw = nil
		override[o.outputs[0]] = &short
	}
}

// splitGraphs is a model cut in two (ONNX bytes each) and the tensors that
// pass between them.
type splitGraphs struct {
	encoder, decoder []byte
	encInputs        []string // graph inputs the encoder reads
	decInputs        []string // graph inputs the decoder reads, then memory
	memory           []string // encoder outputs = decoder inputs
	outputs          []string // the decoder's: logits, or the head's input
	head             *linearHead
}

type memoryTensor struct {
	name string
	bool bool // the padding mask (else float keys or values)
}
