"""The other adapters of the embedder port, offline: fastembed from a local model folder, and
litellm against an embeddings endpoint on loopback (a real HTTP server whose vectors come
from the bundled model), plus `off` and a model name that names nothing."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from bridge.runtime import embed_config, open_bridge
from bridge.semantic import bundled
from bridge.semantic.factory import embedder_for
from bridge.settings import Settings

ON_CALL = "team/practices/incidents/on_call.md"
PARAPHRASE = "who gets woken up at night when the site goes down?"


@pytest.fixture
def minilm_folder(tmp_path: Path) -> Path:
    """The bundled model's files laid out as fastembed reads a model folder."""
    folder = tmp_path / "minilm"
    folder.mkdir()
    shutil.copy(bundled.installed_file(bundled.WEIGHTS), folder / "model.onnx")
    shutil.copy(bundled.installed_file(bundled.TOKENIZER), folder / "tokenizer.json")
    config = {"model_max_length": bundled.MAX_TOKENS, "do_lower_case": True}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def test_fastembed_loads_a_model_from_a_folder_without_the_network(
    template_vault: Path, tmp_path: Path, minilm_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        embed_model="fastembed:sentence-transformers/all-MiniLM-L6-v2",
        embed_model_path=minilm_folder,
        embed_cache_dir=tmp_path / "cache",
    )
    lazy = embedder_for(embed_config(settings))
    assert lazy is not None and lazy.identity.languages == frozenset({"en"})
    texts = ["Sync your notes across devices", "who is on call tonight?"]
    theirs = lazy.embed(texts, "passage")
    ours = bundled.bundled_embedder().embed(texts, "passage")
    assert np.allclose(theirs, ours, atol=1e-4)  # the same model gives the same vectors
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=True)
        assert bridge.engine.search(PARAPHRASE, limit=3).sources[0].path == ON_CALL
    finally:
        bridge.close()


class _Embeddings(BaseHTTPRequestHandler):
    """`POST /v1/embeddings` as OpenAI-compatible servers (Ollama, vLLM) answer it."""

    model = bundled.bundled_embedder()
    calls: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.calls.append(self.headers.get("Authorization", ""))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self.model.embed(texts, "passage")
        answer = {
            "object": "list",
            "model": body["model"],
            "data": [
                {"object": "embedding", "index": i, "embedding": v.tolist()}
                for i, v in enumerate(vectors)
            ],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_litellm_embeds_through_an_endpoint_with_the_key_from_its_variable(
    template_vault: Path, tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_EMBED_KEY", "sk-local-test")
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        embed_model="litellm:openai/minilm",
        embed_api_base=endpoint,
        embed_api_key_env="MY_EMBED_KEY",
    )
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        status = bridge.prepare_semantic(embed=True)
        assert status is not None and status["state"] == "ready" and status["sections"]
        assert bridge.engine.search(PARAPHRASE, limit=3).sources[0].path == ON_CALL
        assert _Embeddings.calls and all(c == "Bearer sk-local-test" for c in _Embeddings.calls)
    finally:
        bridge.close()


def test_off_turns_the_channel_off_and_an_unknown_name_is_a_clear_error(
    template_vault: Path, tmp_path: Path
) -> None:
    assert embedder_for(embed_config(Settings(vault=template_vault, embed_model="off"))) is None
    with pytest.raises(ValueError, match="fastembed:<model>"):
        Settings(vault=template_vault, embed_model="minilm-please")
