"""One bridge per vault: a second serve touches nothing; CLI writers go through the running one."""

from __future__ import annotations

import datetime as dt
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore
from tests.conftest import CEILING, last_writer, seed_vectors
from tests.curate.helpers import make_repository, refuse_commits
from tests.watch.conftest import wait_until
from tests.watch.test_watch_serve import _lines, _serve, _wait_for

COMMAND = [sys.executable, "-c", "from bridge.cli import main; raise SystemExit(main())"]
PLAN = "billing/plans/team_plan.md"  # `status: stable` in the template
MARKER = "journal/2026-11-20.md"
BATCH = [
    {"type": "ADD", "path": "ops/keys/rotation.md", "title": "Key rotation"},
    {"type": "DELETE", "path": "journal/2026-11-20.md"},  # waits for review
]


def stop(proc: subprocess.Popen[str]) -> None:
    """SIGTERM, as a service manager stops serve; kill it only if it does not stop."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=CEILING)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _served_url(state: Path) -> str:
    return str(json.loads((state / "bridge.json").read_text())["url"])


@pytest.fixture
def serving(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> Iterator[tuple[Path, Path]]:
    """A live `serve` on a template copy, restarted rather than new: its notes' vectors are
    stored, so it does not spend a core embedding them while the test runs."""
    state = seed_vectors(template_vectors, tmp_path / "state")
    proc = _serve(template_vault, state)
    try:
        _wait_for(_lines(proc), "watching")
        yield template_vault, state
    finally:
        stop(proc)


def test_a_second_serve_exits_2_and_touches_nothing(serving: tuple[Path, Path]) -> None:
    vault, state = serving
    discovery = (state / "bridge.json").read_bytes()
    index_files = sorted(p.name for p in (state / "index").rglob("*"))
    second = subprocess.run(
        [*COMMAND, "serve", "--vault", str(vault), "--state-dir", str(state), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=CEILING,
    )
    assert second.returncode == 2
    pid = json.loads(discovery)["pid"]
    assert f"serve is already running for this vault (pid {pid}, port" in second.stderr
    assert (state / "bridge.json").read_bytes() == discovery  # the first one's, intact
    assert (state / "serve.pid").read_text().strip() == str(pid)
    assert sorted(p.name for p in (state / "index").rglob("*")) == index_files


def test_serve_names_itself_while_it_holds_the_vault_and_not_after(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = seed_vectors(template_vectors, tmp_path / "state")
    proc = _serve(template_vault, state)
    try:
        _wait_for(_lines(proc), "watching")
        assert (state / "serve.pid").read_text().strip() == str(proc.pid)
    finally:
        stop(proc)
    assert proc.returncode == 0
    assert not (state / "serve.pid").exists() and not (state / "bridge.json").exists()


def test_decay_from_cron_while_serve_runs_goes_through_it(serving: tuple[Path, Path]) -> None:
    vault, state = serving
    with StateDB.open(state) as db:  # uses earned since serve's own start-up decay run
        lifecycle = LifecycleStore(db)
        now = dt.datetime.now(dt.UTC)
        for _ in range(12):
            lifecycle.record_access({PLAN: "stable"}, now)
    args = ["decay", "--vault", str(vault), "--state-dir", str(state), "--json"]
    done = subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["through"] == _served_url(state)
    assert [t["path"] for t in report["transitions"]] == [PLAN]
    assert "status: core" in (vault / PLAN).read_text()
    # A person's edit after the decay write: once serve records it, its watcher has handled
    # every event before it, the decay write's included.
    assert last_writer(state, MARKER) != "human"
    with (vault / MARKER).open("a", encoding="utf-8") as handle:
        handle.write("\nA line added by hand after the decay run.\n")
    wait_until(lambda: last_writer(state, MARKER) == "human")
    assert last_writer(state, PLAN) != "human"  # the bridge's own write, not a person's


def test_without_serve_a_cli_writer_works_directly(template_vault: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    args = ["decay", "--vault", str(template_vault), "--state-dir", str(state), "--json"]
    done = subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=CEILING)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["through"] is None


def _cli(vault: Path, state: Path, *args: str) -> tuple[int, dict[str, object]]:
    argv = [*args, "--vault", str(vault), "--state-dir", str(state), "--json"]
    done = subprocess.run([*COMMAND, *argv], capture_output=True, text=True, timeout=CEILING)
    return done.returncode, json.loads(done.stdout or "{}")


def test_curate_and_review_from_the_cli_go_through_serve(
    serving: tuple[Path, Path], tmp_path: Path
) -> None:
    vault, state = serving
    url = _served_url(state)
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps(BATCH))
    code, batch = _cli(vault, state, "curate", "--operations", str(ops), "--agent", "bot")
    assert code == 0 and batch["through"] == url
    assert (vault / "ops/keys/rotation.md").is_file()
    review_id = batch["results"][1]["review_id"]  # type: ignore[index]
    code, decided = _cli(vault, state, "review", "reject", str(review_id), "--reason", "keep it")
    assert code == 0 and decided["through"] == url and decided["state"] == "rejected"
    assert (vault / "journal/2026-11-20.md").is_file()
    assert last_writer(state, "ops/keys/rotation.md") == "agent:bot"  # serve recorded it


def test_import_and_reindex_from_the_cli_go_through_serve(
    serving: tuple[Path, Path], tmp_path: Path
) -> None:
    vault, state = serving
    url = _served_url(state)
    chat = tmp_path / "chat.json"
    turns = [{"speaker": "Ana", "id": "D1:1", "text": "The zephyrine rollout starts Monday."}]
    chat.write_text(
        json.dumps({"name": "team", "sessions": [{"date": "2026-11-02", "turns": turns}]})
    )
    code, imported = _cli(vault, state, "import", str(chat))
    assert code == 0 and imported["through"] == url
    (written,) = imported["written"]  # type: ignore[misc]
    assert (vault / written).is_file()
    assert last_writer(state, written) != "human"  # the bridge's own write
    code, reindexed = _cli(vault, state, "reindex")
    assert code == 0 and reindexed["through"] == url and reindexed["notes"] >= 19
    code, found = _cli(vault, state, "search", "zephyrine")
    assert code == 0 and [s["path"] for s in found["sources"]] == [written]  # type: ignore[index]


def test_questions_from_the_cli_are_answered_by_serve(serving: tuple[Path, Path]) -> None:
    vault, state = serving
    url = _served_url(state)
    code, answer = _cli(vault, state, "query", "when does the annual plan renew")
    assert code == 0 and answer["through"] == url
    first = answer["sources"][0]["path"]  # type: ignore[index]
    # serve gave the answer: it knows the query_id an agent credits a source with (a query
    # it never answered is a 404)
    token = (state / "token").read_text().strip()
    credited = httpx.post(
        f"{url}/v1/feedback",
        json={"query_id": answer["query_id"], "path": first},
        headers={"Authorization": f"Bearer {token}"},
        timeout=CEILING,
    )
    assert credited.status_code == 200, credited.text
    code, refused = _cli(vault, state, "search", "plan", "--scope", "../outside")
    assert code == 2 and refused == {}
    # more sources than the API gives at once: answered here, as without serve
    code, many = _cli(vault, state, "search", "plan", "--limit", "500")
    assert code == 0 and many["through"] is None and many["sources"]


def test_a_refused_git_commit_is_reported_alike_here_and_through_serve(
    template_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template_vectors: Path
) -> None:
    vault, state = template_vault, seed_vectors(template_vectors, tmp_path / "state")
    make_repository(vault)
    refuse_commits(vault, "no commits today")
    monkeypatch.setenv("VAULT_BRIDGE_GIT_COMMIT", "true")  # for the CLI and for serve
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps([{"type": "ADD", "path": "ops/keys/local.md", "title": "Local"}]))
    code, local = _cli(vault, state, "curate", "--operations", str(ops), "--agent", "bot")
    assert code == 0 and local["through"] is None
    assert "no commits today" in str(local["git"])

    proc = _serve(vault, state)
    try:
        _wait_for(_lines(proc), "watching")
        url = _served_url(state)
        ops.write_text(json.dumps(BATCH))
        code, served = _cli(vault, state, "curate", "--operations", str(ops), "--agent", "bot")
        assert code == 0 and served["through"] == url
        assert list(served) == list(local)  # the same document, wherever it was applied
        assert "no commits today" in str(served["git"])
        review_id = served["results"][1]["review_id"]  # type: ignore[index]
        code, decided = _cli(vault, state, "review", "approve", str(review_id))
        assert code == 0 and decided["through"] == url and decided["state"] == "approved"
        assert "no commits today" in str(decided["git"])
    finally:
        stop(proc)


def test_a_serve_on_a_taken_port_says_who_holds_it_and_indexes_nothing(
    serving: tuple[Path, Path], tmp_path: Path
) -> None:
    import shutil
    import socket

    from tests.conftest import TEMPLATE

    vault, state = serving
    info = json.loads((state / "bridge.json").read_text())
    other = tmp_path / "other_vault"
    shutil.copytree(TEMPLATE, other)
    other_state = state.parent / "other_state"  # beside the first one's, as by default

    def second(port: int) -> subprocess.CompletedProcess[str]:
        args = ["serve", "--vault", str(other), "--state-dir", str(other_state)]
        return subprocess.run(
            [*COMMAND, *args, "--port", str(port)], capture_output=True, text=True, timeout=CEILING
        )

    done = second(info["port"])
    assert done.returncode == 2
    assert (
        f"port {info['port']} on 127.0.0.1 is in use by the vault-bridge serving {vault} "
        f"(pid {info['pid']})" in done.stderr
    )
    assert not (other_state / "index").exists()  # checked before a single note was read
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = second(taken.getsockname()[1])
    assert done.returncode == 2 and "is in use by another program" in done.stderr
    assert not (other_state / "index").exists()


def test_serve_says_it_is_embedding_how_far_and_when_it_is_ready(
    template_vault: Path, tmp_path: Path
) -> None:
    # A fresh state dir: every note is embedded in the background after the banner.
    proc = _serve(template_vault, tmp_path / "state")
    try:
        seen = _wait_for(_lines(proc), "embedding: ready")
    finally:
        stop(proc)
    said = "".join(seen)
    assert "embedding: 18 notes with" in said and "in the background" in said
    assert "embedding: ready, 18 notes (" in said
