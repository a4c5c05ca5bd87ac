"""The bundled model's graph with int8 weights kept int8: its lookup always, its products on
request (`embed_int8_kernels`).

The pinned file stores each weight matrix as int8 with a float scale per row or column, and
turns it back into float32 in the graph (`Cast` then `Mul`). onnxruntime folds those into
float32 constants when it loads the file, and multiplies in float32, so the int8 file costs
float32's memory and time. Rewritten here, in memory, after the file's sha256 is checked:

* each `MatMul(x, Mul(Cast(W_int8), scale))` becomes onnxruntime's `MatMulNBits` with 8-bit
  weights: the file's values (offset by 128, its zero point) and the column's scale repeated
  over blocks of `BLOCK` rows. `accuracy_level` 4 quantizes the activations to int8 per block
  for integer kernels;
* the token-embedding table (30,522 x 384) is gathered as int8 and its rows scaled after the
  lookup (exact on its own).

The integer kernels take less memory and time, but the vectors move a little from the file's,
and the ranking with them (`bench/embed_graphs.py` measures both). Off by default, as
ranking is not traded for speed; their vectors have their own identity (`KERNELS`) and are
never mixed with the file's.

The lookup alone (`products=False`) is the default graph: the table's rows are the same
float32 values whether scaled before the lookup or after, so the vectors are the file's bit
for bit, and the table is held as int8, a quarter of the folded float32.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

KERNELS = "int8-kernels-1"  # part of the model identity; bumped whenever `rewrite` changes
LOOKUP = "int8-lookup-1"  # names the lookup-only graph's kept copy (its vectors: the file's)
BLOCK = 128  # rows per scale block of MatMulNBits (a power of two; 384 and 1536 divide by it)
ACCURACY = 4  # MatMulNBits: int8 activations and integer kernels
_MS = "com.microsoft"


def rewrite(model_bytes: bytes, products: bool = True) -> bytes:
    """The model with an int8 embedding lookup and, with `products`, int8 matrix products
    (module doc).

    Raises ValueError when the graph has none of the patterns: then it is not the file this
    rewrite was written for, and using it unrewritten would mislabel its vectors.
    """
    import onnx

    model = onnx.load_from_string(model_bytes)
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    users: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            users[name] = users.get(name, 0) + 1

    def dequantized(name: str) -> tuple[Any, Any, Any, Any] | None:
        """(Mul node, Cast node, int8 initializer, scale initializer) when `name` is
        `Mul(Cast(int8 constant), float constant)` used once."""
        mul = producers.get(name)
        if mul is None or mul.op_type != "Mul" or users.get(name) != 1:
            return None
        cast = producers.get(mul.input[0])
        if cast is None or cast.op_type != "Cast" or users.get(mul.input[0]) != 1:
            return None
        weight, scale = initializers.get(cast.input[0]), initializers.get(mul.input[1])
        if weight is None or scale is None or weight.data_type != onnx.TensorProto.INT8:
            return None
        return mul, cast, weight, scale

    replaced: dict[int, list[Any]] = {}
    gone: set[int] = set()
    added: list[Any] = []
    for node in graph.node:
        if node.op_type == "MatMul" and products:
            found = dequantized(node.input[1])
            if found is None:
                continue
            mul, cast, weight, scale = found
            nodes, tensors = _matmul_nbits(node, weight, scale)
        elif node.op_type == "Gather" and _axis(node) == 0:
            found = dequantized(node.input[0])
            if found is None:
                continue
            mul, cast, weight, scale = found
            nodes, tensors = _int8_gather(node, weight.name, scale.name), []
        else:
            continue
        replaced[id(node)] = nodes
        gone.update((id(mul), id(cast)))
        added.extend(tensors)
    if not replaced:
        raise ValueError("no int8 weight pattern in this graph")
    rebuilt: list[Any] = []
    for node in graph.node:
        if id(node) not in gone:
            rebuilt.extend(replaced.get(id(node), [node]))
    del graph.node[:]
    graph.node.extend(rebuilt)
    graph.initializer.extend(added)
    used = {name for node in graph.node for name in node.input}
    kept = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    if not any(op.domain == _MS for op in model.opset_import):
        model.opset_import.append(onnx.helper.make_opsetid(_MS, 1))
    return bytes(model.SerializeToString())


def _axis(node: Any) -> int:
    return next((int(a.i) for a in node.attribute if a.name == "axis"), 0)


def _matmul_nbits(node: Any, weight: Any, scale: Any) -> tuple[list[Any], list[Any]]:
    """`MatMulNBits` computing `x @ (W * scale)` from the int8 `W` [K, N], per-column scale."""
    from onnx import helper, numpy_helper

    w = numpy_helper.to_array(weight)
    s = numpy_helper.to_array(scale).astype(np.float32).reshape(-1)
    if w.ndim != 2 or s.shape[0] != w.shape[1]:
        raise ValueError(f"{weight.name}: not a [K, N] matrix with a scale per column")
    k, n = w.shape
    blocks = -(-k // BLOCK)
    offset = (w.astype(np.int16) + 128).astype(np.uint8).T  # [N, K], zero point 128
    if blocks * BLOCK != k:
        offset = np.pad(offset, ((0, 0), (0, blocks * BLOCK - k)), constant_values=128)
    packed = numpy_helper.from_array(offset.reshape(n, blocks, BLOCK), f"{node.name}_w8")
    scales = numpy_helper.from_array(np.repeat(s, blocks), f"{node.name}_w8_scale")
    product = helper.make_node(
        "MatMulNBits",
        [node.input[0], packed.name, scales.name],
        list(node.output),
        name=f"{node.name}_nbits",
        domain=_MS,
        K=k,
        N=n,
        bits=8,
        block_size=BLOCK,
        accuracy_level=ACCURACY,
    )
    return [product], [packed, scales]


def _int8_gather(node: Any, table: str, scale: str) -> list[Any]:
    """Rows of the int8 table and their scales gathered, then scaled (exact)."""
    from onnx import TensorProto, helper

    out, ids = node.output[0], node.input[1]
    steps: Iterable[Any] = (
        helper.make_node("Gather", [table, ids], [f"{out}_i8"], name=f"{node.name}_i8", axis=0),
        helper.make_node("Gather", [scale, ids], [f"{out}_sc"], name=f"{node.name}_sc", axis=0),
        helper.make_node(
            "Cast", [f"{out}_i8"], [f"{out}_f"], name=f"{node.name}_f", to=TensorProto.FLOAT
        ),
        helper.make_node("Mul", [f"{out}_f", f"{out}_sc"], [out], name=f"{node.name}_mul"),
    )
    return list(steps)
