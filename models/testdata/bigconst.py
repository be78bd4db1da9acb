"""Writes bigconst.onnx: a model of a few hundred bytes with the policy
interface whose graph declares an 8 GB constant (ConstantOfShape of 2^31
floats, summed into the logits times zero). ONNX Runtime folds such a
constant when it makes a session, or allocates it on each run: checking
or trying the model takes more memory than the worker may have, and must
never happen in the server. Run with /usr/bin/python3 (onnx)."""
from onnx import TensorProto as T, helper as h

from policy_io import save

nodes = [
    h.make_node("Constant", [], ["shape"], value=h.make_tensor("shape", T.INT64, [1], [1 << 31])),
    h.make_node("ConstantOfShape", ["shape"], ["big"], value=h.make_tensor("v", T.FLOAT, [1], [1.0])),
    h.make_node("ReduceSum", ["big"], ["s"], keepdims=0),
    h.make_node("Constant", [], ["zero"], value=h.make_tensor("zero", T.FLOAT, [], [0.0])),
    h.make_node("Mul", ["s", "zero"], ["s0"]),
    h.make_node("Cast", ["amask"], ["m"], to=T.FLOAT),
    h.make_node("Add", ["m", "s0"], ["logits"]),
    h.make_node("Softmax", ["logits"], ["probs"], axis=-1),
]
save(nodes, "bigconst")  # models/testdata/bigconst.onnx
