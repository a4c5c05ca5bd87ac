"""A model server that accepts and never answers cannot hold a query past its budget."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.runtime import open_bridge
from bridge.settings import Settings


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A local socket that accepts connections, reads, and never replies."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)  # keep it open, say nothing

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    server.close()


def test_a_silent_server_ends_the_query_within_its_budget(
    template_vault: Path,
    tmp_path: Path,
    silent_server: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SILENT_KEY", "not-a-real-key")
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        llm_model="openai/silent",
        llm_api_base=silent_server,
        llm_api_key_env="SILENT_KEY",
        llm_timeout_seconds=1,
        llm_budget_seconds=2,
        llm_retries=5,
        tier_direct_min=1.0,  # so the question goes to the model
        tier_direct_sure=1.0,
        tier_one_call_min=0.0,
    )
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        started = time.monotonic()
        result = bridge.engine.query("How long do JWT access tokens live?")
        elapsed = time.monotonic() - started
    finally:
        bridge.close()
    assert result.tier == 3 and result.answer is None
    assert result.message is not None and "could not answer" in result.message
    assert elapsed < 2 + 10  # bounded by the budget (generous: this is no speed test)
    assert capsys.readouterr().out == ""  # nothing from litellm on stdout


def test_the_fake_model_curates_and_answers_without_a_service(
    template_vault: Path, tmp_path: Path
) -> None:
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        llm_model="fake",
        tier_direct_min=1.0,
        tier_direct_sure=1.0,
        tier_one_call_min=0.0,
    )
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        curator = bridge.curator
        assert curator is not None
        outcome = curator.curate("Partner API keys rotate every twelve months.", "agent:try")
        (result,) = outcome.batch.results
        assert result.status == "applied" and result.path.startswith("inbox/fake/")
        assert "rotate every twelve months" in (template_vault / result.path).read_text()
        answer = bridge.engine.query("How long do JWT access tokens live?")
        assert answer.tier == 3 and answer.answer is not None
        assert answer.answer.startswith("(fake model) From @")
        assert answer.answered_from  # the cited note is credited as used
        assert json.dumps(answer.model_dump(mode="json"))  # a plain, serialisable answer
    finally:
        bridge.close()
