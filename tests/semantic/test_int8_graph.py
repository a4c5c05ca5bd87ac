"""The bundled model's rewritten graphs (`bridge.semantic.int8_graph`): the default one (the
embedding table looked up as int8) gives the file's vectors exactly; the integer kernels
(`embed_int8_kernels`) stay near them and apart from them; a rewritten graph is kept, and a
file the rewrite was not written for is refused."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from bridge.semantic import bundled, int8_graph
from bridge.semantic.lazy import LazyEmbedder
from tests.conftest import open_test_bridge

TEXTS = [
    "how long do JWT tokens live?",
    "Sync your notes across devices",
    "who gets woken up at night when the site goes down?",
    "The on-call engineer is paged by the alerting system and answers within fifteen minutes.",
    "Refresh tokens are rotated on every use; access tokens expire after one hour.",
    "Notizen zwischen Geräten synchronisieren",
    "a b c " * 100,  # past the model's window: cut at 256 tokens
]


def test_integer_kernels_stay_near_the_models_vectors_under_their_own_identity() -> None:
    exact = bundled.bundled_embedder()
    fast = bundled.bundled_embedder(kernels=True)
    theirs, mine = exact.embed(TEXTS, "passage"), fast.embed(TEXTS, "passage")
    cosines = (theirs * mine).sum(axis=1)
    assert cosines.min() >= 0.998, cosines
    # The same passage is the nearest to each question either way.
    questions = TEXTS[:3]
    near_theirs = (exact.embed(questions, "query") @ theirs[3:5].T).argmax(axis=1)
    near_mine = (fast.embed(questions, "query") @ mine[3:5].T).argmax(axis=1)
    assert list(near_theirs) == list(near_mine)
    # Their vectors go to another vector file: never mixed with the exact graph's.
    assert fast.identity.key != exact.identity.key


def _plain_matmul_model() -> bytes:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 2], np.ones(8, dtype=np.float32))
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [x], [y], [w])
    return bytes(helper.make_model(graph).SerializeToString())


def test_a_graph_without_int8_weights_is_refused() -> None:
    onnx.checker.check_model(onnx.load_from_string(_plain_matmul_model()))
    with pytest.raises(ValueError, match="no int8 weight pattern"):
        int8_graph.rewrite(_plain_matmul_model())


def test_the_rewritten_graph_is_kept_and_a_damaged_copy_made_again(tmp_path: Path) -> None:
    weights = bundled.installed_file(bundled.WEIGHTS)
    kept = bundled.rewritten_graph(weights, tmp_path)
    assert isinstance(kept, Path) and kept.parent == tmp_path
    first = kept.read_bytes()
    assert kept.name.split(".")[-2] == hashlib.sha256(first).hexdigest()
    assert first == bundled.rewritten_graph(weights, None)  # what is kept is the rewrite
    # A later start finds it without the `onnx` library (its import alone is 0.5-1.6 s).
    code = (
        "import sys; from pathlib import Path; from bridge.semantic import bundled; "
        "w = bundled.installed_file(bundled.WEIGHTS); "
        f"g = bundled.rewritten_graph(w, Path({str(tmp_path)!r})); "
        "print(g, 'onnx' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(kept), "False"]
    # A damaged copy (a crash cannot leave one, a disk can) is not used: made again.
    kept.write_bytes(first[: len(first) // 2])
    again = bundled.rewritten_graph(weights, tmp_path)
    assert isinstance(again, Path) and again.read_bytes() == first
    assert [p.read_bytes() == first for p in tmp_path.glob("*.onnx")] == [True]


def test_the_default_graph_gives_the_files_vectors_bit_for_bit(tmp_path: Path) -> None:
    """The default graph looks the embedding table up as int8 (35 MB less once loaded,
    bench/embed_graphs.py): its vectors must be the file's exactly, so the vectors a vault
    already has are kept (same identity) and never embedded again."""
    weights = bundled.installed_file(bundled.WEIGHTS)
    tokenizer = bundled.installed_file(bundled.TOKENIZER)
    as_released = bundled.OnnxEmbedder(weights, tokenizer, bundled.identity())
    default = bundled.bundled_embedder(cache=tmp_path)
    for kind in ("query", "passage"):
        assert np.array_equal(default.embed(TEXTS, kind), as_released.embed(TEXTS, kind))
    assert default.identity.key == as_released.identity.key
    [kept] = tmp_path.glob("*.onnx")
    assert int8_graph.LOOKUP in kept.name


def test_each_rewrite_keeps_its_own_copy_and_drops_only_its_earlier_ones(tmp_path: Path) -> None:
    weights = bundled.installed_file(bundled.WEIGHTS)
    stale = tmp_path / f"{bundled.NAME}-{bundled.WEIGHTS[2][:16]}-int8-lookup-0.abc.onnx"
    stale.write_bytes(b"an earlier version's rewrite")
    bundled.rewritten_graph(weights, tmp_path, kernels=True)
    bundled.rewritten_graph(weights, tmp_path, kernels=False)
    names = sorted(p.name for p in tmp_path.glob("*.onnx"))
    assert [int8_graph.KERNELS in n for n in names].count(True) == 1
    assert [int8_graph.LOOKUP in n for n in names].count(True) == 1
    assert not stale.exists()


def test_a_rewrite_an_earlier_version_kept_in_the_state_dir_is_removed(
    template_vault: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    old = state / "semantic" / f"{bundled.NAME}-{bundled.WEIGHTS[2][:16]}-int8-kernels-1.ab.onnx"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"a rewrite kept per vault before")
    bridge = open_test_bridge(template_vault, state)
    try:
        semantic = bridge.semantic
        assert semantic is not None and isinstance(semantic.embedder, LazyEmbedder)
        assert len(semantic.embedder.embed(["a question"], "query")) == 1
        assert not old.exists()
        assert [p.name for p in old.parent.glob("*.onnx")] == []
    finally:
        bridge.close()
