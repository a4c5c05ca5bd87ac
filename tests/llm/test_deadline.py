"""The LLM's time budget is one deadline, set when the request arrives, that nothing escapes.

Real sockets stand in for unreachable model servers (one that accepts and never answers, one that
refuses); a scripted completion that advances a fake clock shows where the attempts stop. No test
here measures a duration: each waits for the outcome and checks what it says, or checks the
deadline each request was given.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.llm.answerer import LLMAnswerer
from bridge.llm.client import LLMClient, LLMConfig, LLMTimeoutError
from bridge.llm.loader import LitellmLoader, litellm_now
from bridge.query.models import QueryResult
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from tests.conftest import snapshot
from tests.llm.conftest import MODEL, Script

QUESTION = "How long do JWT access tokens live?"
OUT_OF_TIME = "did not answer in time"
ROUTE_TO_THE_MODEL: dict[str, Any] = {"tier_direct_confidence": 1.0, "ood_confidence": 0.0}
TIER = {3: {"tier_one_call_confidence": 0.0}, 4: {"tier_one_call_confidence": 1.0}}


@pytest.fixture
def litellm_loaded() -> None:
    """These tests are about the requests: the import, which has its own test, is done first."""
    litellm_now()


@pytest.fixture
def silent_server(litellm_loaded: None) -> Iterator[str]:
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
    thread.join(120)
    for conn in held:
        conn.close()
    server.close()


@pytest.fixture
def closed_port(litellm_loaded: None) -> str:
    """The address of a local port that nothing listens on: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _bridge(vault: Path, state: Path, **settings: Any) -> Bridge:
    bridge = open_bridge(Settings(vault=vault, state_dir=state, **settings))
    bridge.sync()
    return bridge


def _answerer(bridge: Bridge) -> LLMAnswerer:
    found = bridge.engine.answerer
    assert isinstance(found, LLMAnswerer)
    return found


def _ask_unreachable(vault: Path, state: Path, api_base: str, **settings: Any) -> QueryResult:
    """The question, asked of a model server at `api_base` that will not answer it."""
    bridge = _bridge(
        vault,
        state,
        llm_model="openai/unreachable",
        llm_api_base=api_base,
        llm_api_key_env="UNREACHABLE_KEY",
        **ROUTE_TO_THE_MODEL,
        **settings,
    )
    try:
        return bridge.engine.query(QUESTION)
    finally:
        bridge.close()


@pytest.fixture(autouse=True)
def _a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNREACHABLE_KEY", "not-a-real-key")


@pytest.mark.parametrize("tier", [3, 4])
def test_a_silent_server_ends_the_query_with_the_budget(
    template_vault: Path,
    tmp_path: Path,
    silent_server: str,
    tier: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = _ask_unreachable(
        template_vault,
        tmp_path / "state",
        silent_server,
        llm_timeout_seconds=1,
        llm_query_budget_seconds=2,
        llm_retries=5,
        **TIER[tier],
    )
    assert result.tier == tier and result.answer is None and result.sources
    assert result.message is not None and OUT_OF_TIME in result.message
    assert "a budget of 2 s" in result.message
    assert capsys.readouterr().out == ""  # nothing from litellm on stdout


def test_a_refused_connection_in_tier_4_is_out_of_time_not_retried_on_a_new_budget(
    template_vault: Path, tmp_path: Path, closed_port: str
) -> None:
    # Every attempt is refused at once; the back-off pauses use up the 3 s budget. The retries
    # then stop on the deadline, which tier 4 used to take for "no function calling" and answer
    # it with a tier 3 call on a fresh budget (a 20 s budget took 40.8 s).
    result = _ask_unreachable(
        template_vault,
        tmp_path / "state",
        closed_port,
        llm_query_budget_seconds=3,
        llm_retries=10,
        **TIER[4],
    )
    assert result.tier == 4 and result.answer is None and result.sources
    assert result.message is not None and OUT_OF_TIME in result.message
    assert "failed 11 times" not in result.message  # what it said, after 2 x the budget


class FakeClock:
    """Monotonic seconds that move only when the scripted model or a back-off pause moves them."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed_bridge(template_vault: Path, tmp_path: Path, clock: FakeClock) -> Iterator[Bridge]:
    """The mock model with a 10 s budget, generous retries, and the fake clock at its boundary."""
    bridge = _bridge(
        template_vault,
        tmp_path / "state",
        llm_model=MODEL,
        llm_timeout_seconds=60,
        llm_budget_seconds=10,
        llm_query_budget_seconds=10,
        llm_retries=10,
        llm_correction_rounds=10,
        **ROUTE_TO_THE_MODEL,
        **TIER[4],
    )
    clients = [_answerer(bridge).client, bridge.curator.client if bridge.curator else None]
    for client in clients:
        assert client is not None
        client.clock = clock
        client.sleep = clock.advance
    yield bridge
    bridge.close()


def _slow(clock: FakeClock, seconds: float, reply: str) -> Any:
    """A scripted model that takes `seconds` of the fake clock, then gives `reply`."""

    def answer(_kwargs: dict[str, Any]) -> str:
        clock.advance(seconds)
        return reply

    return answer


def _timeouts(script: Script) -> list[float]:
    """The request timeout each call was given: what was left of the deadline."""
    return [call["timeout"] for call in script.calls]


def test_tier_4_retries_stop_at_the_deadline(
    timed_bridge: Bridge, script: Script, clock: FakeClock
) -> None:
    # Each failing attempt takes 4 s; back-off pauses of 1 s then 2 s (cut to what is left).
    script.default = _slow(clock, 4, "litellm.InternalServerError")
    result = timed_bridge.engine.query(QUESTION, arrived=clock())
    assert result.tier == 4 and result.answer is None
    assert result.message is not None and OUT_OF_TIME in result.message
    assert _timeouts(script) == [10, 5]  # attempt 1 at 0 s, attempt 2 at 5 s, then no time left


def test_the_budget_counts_from_when_the_request_arrived(
    timed_bridge: Bridge, script: Script, clock: FakeClock
) -> None:
    script.default = _slow(clock, 0, "Tokens live 24 hours @engineering/auth/jwt_expiry.md")
    result = timed_bridge.engine.query(QUESTION, arrived=clock() - 7)  # it waited 7 s in a queue
    assert result.answer is not None and result.answer.startswith("Tokens live 24 hours")
    assert _timeouts(script) == [3]


def test_the_fallback_to_tier_3_uses_what_is_left_of_the_same_budget(
    timed_bridge: Bridge, script: Script, clock: FakeClock
) -> None:
    # The tier 4 call is refused (no function calling) after 6 s: the tier 3 answer that
    # replaces it gets the 4 s left, not a new 10 s.
    refused = litellm_now().BadRequestError(
        message="tools are not supported", model=MODEL, llm_provider="openai"
    )

    def model(kwargs: dict[str, Any]) -> Any:
        if "tools" in kwargs:
            clock.advance(6)
            return {"mock_response": refused}
        return "Tokens live 24 hours @engineering/auth/jwt_expiry.md"

    script.default = model
    result = timed_bridge.engine.query(QUESTION, arrived=clock())
    assert result.tier == 4 and result.answer is not None
    assert result.answer.startswith("Tokens live 24 hours")
    assert _timeouts(script) == [10, 4]


def test_correction_rounds_stop_at_the_deadline_and_write_nothing(
    timed_bridge: Bridge, script: Script, clock: FakeClock
) -> None:
    before = snapshot(timed_bridge.store.root)
    script.default = _slow(clock, 4, "Sorry, I cannot produce JSON.")
    curator = timed_bridge.curator
    assert curator is not None
    outcome = curator.curate("Partner API keys rotate yearly.", "agent:test", clock())
    assert outcome.error is not None and OUT_OF_TIME in outcome.error
    assert _timeouts(script) == [10, 6, 2]  # 3 of the 11 rounds fitted in the 10 s
    assert snapshot(timed_bridge.store.root) == before


def test_waiting_for_litellm_to_load_counts_against_the_budget() -> None:
    # An import that has not finished (a busy machine took 37 s) must not hold the task past
    # its deadline: the caller gives up, and the import goes on for the next request.
    release = threading.Event()

    def slow_import() -> Any:
        release.wait(300)
        return litellm_now()

    client = LLMClient(LLMConfig(MODEL, budget_seconds=0.5), loader=LitellmLoader(slow_import))
    outcome: list[BaseException] = []
    caller = threading.Thread(
        target=lambda: _record(outcome, lambda: client.complete([], client.budget()))
    )
    try:
        caller.start()
        caller.join(120)
        assert not caller.is_alive(), "the call waited for the import past its budget"
    finally:
        release.set()
    (error,) = outcome
    assert isinstance(error, LLMTimeoutError) and "still loading" in str(error)


def _record(into: list[BaseException], call: Any) -> None:
    try:
        call()
    except BaseException as exc:
        into.append(exc)


@pytest.mark.parametrize("model", ["llama3", "nonsense-model", "notaprovider/model"])
def test_a_model_litellm_does_not_know_fails_at_once_with_a_clear_error(
    template_vault: Path,
    tmp_path: Path,
    script: Script,
    model: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bridge = _bridge(
        template_vault, tmp_path / "state", llm_model=model, **ROUTE_TO_THE_MODEL, **TIER[4]
    )
    try:
        result = bridge.engine.query(QUESTION)
        curator = bridge.curator
        assert curator is not None
        outcome = curator.curate("Partner API keys rotate yearly.", "agent:test")
    finally:
        bridge.close()
    assert result.answer is None and result.sources  # the excerpts still come back
    for message in (result.message, outcome.error):
        assert message is not None and f"litellm does not know the model `{model}`" in message
        assert "provider/model" in message
    assert script.calls == []  # no request was made, so none was retried
    assert capsys.readouterr().out == ""  # and litellm's "Provider List" banner stayed quiet


def test_the_fake_model_curates_and_answers_without_a_service(
    template_vault: Path, tmp_path: Path
) -> None:
    bridge = _bridge(
        template_vault, tmp_path / "state", llm_model="fake", **ROUTE_TO_THE_MODEL, **TIER[3]
    )
    try:
        curator = bridge.curator
        assert curator is not None
        outcome = curator.curate("Partner API keys rotate every twelve months.", "agent:try")
        (result,) = outcome.batch.results
        assert result.status == "applied" and result.path.startswith("inbox/fake/")
        assert "rotate every twelve months" in (template_vault / result.path).read_text()
        answer = bridge.engine.query(QUESTION)
        assert answer.tier == 3 and answer.answer is not None
        assert answer.answer.startswith("(fake model) From @")
        assert answer.answered_from  # the cited note is credited as used
        assert json.dumps(answer.model_dump(mode="json"))  # a plain, serialisable answer
    finally:
        bridge.close()


def test_on_the_defaults_a_hung_model_holds_a_query_20_s_and_a_curation_longer(
    template_vault: Path, tmp_path: Path, script: Script, clock: FakeClock
) -> None:
    # A provider that never answers: each request takes all the time it is given. On the
    # defaults (60 s per request, 2 retries) this held a query 206 s; a person waits ~20.
    bridge = _bridge(
        template_vault, tmp_path / "state", llm_model=MODEL, **ROUTE_TO_THE_MODEL, **TIER[4]
    )
    try:
        for client in (_answerer(bridge).client, bridge.curator.client if bridge.curator else None):
            assert client is not None
            client.clock, client.sleep = clock, clock.advance

        def hang(kwargs: dict[str, Any]) -> Any:
            clock.advance(kwargs["timeout"])
            return {"mock_timeout": True, "timeout": 0.001}

        script.default = hang
        started = clock()
        result = bridge.engine.query(QUESTION, arrived=started)
        assert result.answer is None and result.message is not None
        assert OUT_OF_TIME in result.message and "a budget of 20 s" in result.message
        assert clock() - started <= 20 and _timeouts(script) == [20]
        script.calls.clear()
        curator = bridge.curator
        assert curator is not None
        started = clock()
        outcome = curator.curate("Partner API keys rotate yearly.", "agent:test", started)
        assert outcome.error is not None and OUT_OF_TIME in outcome.error
        assert 60 < clock() - started <= 300  # retried, within the curation's own budget
    finally:
        bridge.close()


def test_a_curation_task_whose_model_failed_is_failed_not_done(
    template_vault: Path, tmp_path: Path, closed_port: str
) -> None:
    from tests.api.conftest import served
    from tests.watch.conftest import wait_until

    bridge = _bridge(
        template_vault,
        tmp_path / "state",
        llm_model="openai/unreachable",
        llm_api_base=closed_port,
        llm_api_key_env="UNREACHABLE_KEY",
        llm_budget_seconds=2,
    )
    try:
        with served(bridge) as api:
            started = api.client.post(
                "/v1/curate", json={"content": "Keys rotate yearly."}, headers=api.auth
            )
            assert started.status_code == 202
            url = f"/v1/tasks/{started.json()['task_id']}"

            def ended() -> dict[str, Any] | None:
                task: dict[str, Any] = api.client.get(url, headers=api.auth).json()
                return task if task["state"] in ("done", "failed") else None

            wait_until(ended)
            task = ended()
            assert task is not None and task["state"] == "failed"
            assert task["error"] and OUT_OF_TIME in task["error"]
            assert task["result"]["counts"]["total"] == 0  # nothing was applied
    finally:
        bridge.close()
