"""Writes loop.onnx: a model with the policy interface whose graph is a Loop
that never ends (no trip count, a condition that stays true). The upload
check must stop it at its time limit. Run with /usr/bin/python3 (onnx)."""
from onnx import TensorProto as T, helper as h

from policy_io import save

body = h.make_graph(
    [h.make_node("Identity", ["cond_in"], ["cond_out"]),
     h.make_node("Add", ["v_in", "one"], ["v_out"])],
    "forever",
    [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cond_in", T.BOOL, []),
     h.make_tensor_value_info("v_in", T.FLOAT, [])],
    [h.make_tensor_value_info("cond_out", T.BOOL, []), h.make_tensor_value_info("v_out", T.FLOAT, [])],
    [h.make_tensor("one", T.FLOAT, [], [1.0])])
nodes = [
    h.make_node("Constant", [], ["yes"], value=h.make_tensor("yes", T.BOOL, [], [True])),
    h.make_node("Constant", [], ["zero"], value=h.make_tensor("zero", T.FLOAT, [], [0.0])),
    h.make_node("Loop", ["", "yes", "zero"], ["v"], body=body),
    h.make_node("Cast", ["amask"], ["m"], to=T.FLOAT),
    h.make_node("Mul", ["v", "zero"], ["v0"]),
    h.make_node("Add", ["m", "v0"], ["logits"]),
    h.make_node("Softmax", ["logits"], ["probs"], axis=-1),
]
save(nodes, "loop")  # models/testdata/loop.onnx
