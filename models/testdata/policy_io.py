"""The policy interface's inputs and outputs, and how a test model is
written (opset 17, IR 8, checked): shared by the scripts that write the
hostile test models (loop.py, bigconst.py)."""
import onnx
from onnx import TensorProto as T, helper as h

ins = [h.make_tensor_value_info(n, t, s) for n, t, s in [
    ("edges", T.INT64, ["B", "L"]), ("times", T.FLOAT, ["B", "L"]), ("pad", T.BOOL, ["B", "L"]),
    ("cur", T.INT64, ["B"]), ("dest", T.INT64, ["B"]), ("budget", T.FLOAT, ["B"]),
    ("step", T.INT64, ["B"]), ("amask", T.BOOL, ["B", "E"])]]
outs = [h.make_tensor_value_info(n, T.FLOAT, ["B", "E"]) for n in ("logits", "probs")]


def save(nodes, name):
    """Writes name.onnx from nodes that read ins and write outs."""
    g = h.make_graph(nodes, name, ins, outs)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, name + ".onnx")
