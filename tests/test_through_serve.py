"""Every CLI writer accepts through a running `serve` exactly what it accepts alone.

One vault has a live `serve` (the normal setup: the CLI sends its work over the API); a twin
vault has none (the CLI works directly). Each command runs on both, with the same input, and
must end the same way: same exit code, same outcome, same reason when it refuses.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bridge.cli import main
from tests.conftest import TEMPLATE, isolated_environ, seed_vectors
from tests.test_one_bridge import stop
from tests.watch.test_watch_serve import _lines, _serve, _wait_for


@dataclass(frozen=True)
class Ran:
    code: int
    doc: Any
    err: str


@dataclass(frozen=True)
class Twins:
    """The same vault twice: `served` has a live serve at `url`, `alone` has none."""

    served: tuple[Path, Path]
    alone: tuple[Path, Path]
    url: str
    files: Path

    def run(self, where: tuple[Path, Path], *args: str) -> Ran:
        """The CLI's `main` in this process (the suite's isolated environment): the code a
        `vault-bridge` process runs, without a process start-up per command (one second
        each, ~50 of them in this module; tests/test_one_bridge.py runs real processes)."""
        vault, state = where
        argv = [*args, "--vault", str(vault), "--state-dir", str(state), "--json"]
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
        doc = json.loads(out.getvalue()) if out.getvalue().strip() else None
        return Ran(code, doc, err.getvalue())

    def both(self, *args: str) -> tuple[Ran, Ran]:
        """The command through the running serve, then alone; the served one said so."""
        remote, local = self.run(self.served, *args), self.run(self.alone, *args)
        if remote.code == 0:
            assert remote.doc["through"] == self.url, remote
            assert local.doc["through"] is None, local
        return remote, local

    def file(self, name: str, data: Any) -> str:
        path = self.files / name
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return str(path)


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory, template_vectors: Path) -> Iterator[Twins]:
    base = tmp_path_factory.mktemp("twins")
    for name in ("served", "alone"):
        shutil.copytree(TEMPLATE, base / name / "vault")
        seed_vectors(template_vectors, base / name / "state")  # both warm, alike
    (base / "files").mkdir()
    env = isolated_environ(base)  # a module fixture: the suite's isolation, by hand
    served = (base / "served" / "vault", base / "served" / "state")
    proc = _serve(*served, env=env)
    try:
        _wait_for(_lines(proc), "watching")
        url = str(json.loads((served[1] / "bridge.json").read_text())["url"])
        alone = (base / "alone" / "vault", base / "alone" / "state")
        yield Twins(served, alone, url, base / "files")
    finally:
        stop(proc)


def same_refusal(twins: Twins, remote: Ran, local: Ran, reason: str) -> None:
    """Both refused with exit 2 and the same reason; neither leaked where the vault lives."""
    assert (remote.code, local.code) == (2, 2), (remote, local)
    assert reason in remote.err and reason in local.err, (remote.err, local.err)
    for ran, (vault, _) in ((remote, twins.served), (local, twins.alone)):
        assert str(vault) not in ran.err, ran.err


def add(path: str) -> dict[str, Any]:
    return {"type": "ADD", "path": path, "title": "Key rotation", "narrative": "Keys rotate."}


def test_curate_operations_in_both_documented_forms(twins: Twins) -> None:
    bare = twins.file("bare.json", [add("ops/keys/bare.md")])
    wrapped = twins.file("wrapped.json", {"operations": [add("ops/keys/wrapped.md")]})
    for ops, path in ((bare, "ops/keys/bare.md"), (wrapped, "ops/keys/wrapped.md")):
        remote, local = twins.both("curate", "--operations", ops)
        assert (remote.code, local.code) == (0, 0), (remote, local)
        assert (
            remote.doc["counts"]
            == local.doc["counts"]
            == {
                "applied": 1,
                "pending_review": 0,
                "failed": 0,
                "total": 1,
            }
        )
        assert (twins.served[0] / path).is_file() and (twins.alone[0] / path).is_file()
    # One item that is no operation fails alone; the rest of the batch is applied.
    mixed = twins.file("mixed.json", [42, add("ops/keys/mixed.md")])
    remote, local = twins.both("curate", "--operations", mixed)
    assert (remote.code, local.code) == (1, 1), (remote, local)
    assert [r["status"] for r in remote.doc["results"]] == ["failed", "applied"]
    assert remote.doc["results"] == local.doc["results"]


def test_curate_batches_beyond_the_api_limits_are_refused_alike(twins: Twins) -> None:
    many = twins.file("many.json", [{"type": "ADD"}] * 1001)
    remote, local = twins.both("curate", "--operations", many)
    same_refusal(twins, remote, local, "at most 1000 operations")
    big = add("ops/keys/huge.md") | {"narrative": "word " * (1024 * 1024)}  # 5 MiB
    remote, local = twins.both("curate", "--operations", twins.file("big.json", [big]))
    same_refusal(twins, remote, local, "4 MiB")
    assert not (twins.served[0] / "ops/keys/huge.md").exists()
    assert not (twins.alone[0] / "ops/keys/huge.md").exists()
    shape = twins.file("shape.json", {"ops": []})
    remote, local = twins.both("curate", "--operations", shape)
    same_refusal(twins, remote, local, "operations must be a JSON list")


def test_curate_operations_take_the_files_author_unless_agent_is_given(twins: Twins) -> None:
    def author_of(path: str) -> set[str]:
        vaults = (twins.served[0], twins.alone[0])
        return {
            line
            for v in vaults
            for line in (v / path).read_text().splitlines()
            if line.startswith("author:")
        }

    named = {"operations": [add("ops/keys/named.md")], "author": "agent:my-bot"}
    remote, local = twins.both("curate", "--operations", twins.file("named.json", named))
    assert (remote.code, local.code) == (0, 0), (remote, local)
    assert author_of("ops/keys/named.md") == {"author: agent:my-bot"}
    overridden = {"operations": [add("ops/keys/flag.md")], "author": "agent:my-bot"}
    ops = twins.file("flag.json", overridden)
    remote, local = twins.both("curate", "--operations", ops, "--agent", "reviewer")
    assert (remote.code, local.code) == (0, 0), (remote, local)
    assert author_of("ops/keys/flag.md") == {"author: agent:reviewer"}
    for bad, reason in ((42, "author must be a string"), ("two words", "must be one word")):
        wrong = {"operations": [add("ops/keys/bad.md")], "author": bad}
        remote, local = twins.both("curate", "--operations", twins.file("bad.json", wrong))
        same_refusal(twins, remote, local, reason)


def test_curate_text_without_an_llm(twins: Twins) -> None:
    remote, local = twins.both("curate", "API keys rotate yearly")
    same_refusal(twins, remote, local, "VAULT_BRIDGE_LLM_MODEL")
    # The CLI's own words both ways: CLI commands to run, not the API's routes.
    assert remote.err == local.err, (remote.err, local.err)
    assert "vault-bridge curate --prompt" in remote.err and "POST /v1" not in remote.err


def test_review_decisions_end_alike(twins: Twins) -> None:
    delete = twins.file("delete.json", [{"type": "DELETE", "path": "journal/2026-11-20.md"}])
    remote, local = twins.both("curate", "--operations", delete)
    assert (remote.code, local.code) == (0, 0)
    ids = (remote.doc["results"][0]["review_id"], local.doc["results"][0]["review_id"])
    assert ids[0] == ids[1] is not None
    review = str(ids[0])
    remote, local = twins.both("review", "reject", review, "--reason", "keep it")
    assert (remote.code, local.code) == (0, 0)
    assert remote.doc["state"] == local.doc["state"] == "rejected"
    remote, local = twins.both("review", "approve", review)  # already decided
    same_refusal(twins, remote, local, f"review {review} is already rejected")
    remote, local = twins.both("review", "reject", review, "--reason", "again")
    same_refusal(twins, remote, local, f"review {review} is already rejected")
    remote, local = twins.both("review", "approve", "987654")
    same_refusal(twins, remote, local, "987654")
    for beyond in ("0", str(2**64)):  # no review can have it: a usage error in both
        remote, local = twins.both("review", "reject", beyond, "--reason", "x")
        same_refusal(twins, remote, local, "Invalid value")


def chat(name: object, *sessions: list[dict[str, str]]) -> dict[str, Any]:
    return {"name": name, "sessions": [{"date": "2026-11-02", "turns": t} for t in sessions]}


TURN = [{"speaker": "Ana", "id": "D1:1", "text": "The zephyrine rollout starts Monday."}]


def test_import_accepts_and_refuses_alike(twins: Twins) -> None:
    team = twins.file("team.json", chat("team", TURN))
    remote, local = twins.both("import", team)
    assert (remote.code, local.code) == (0, 0)
    assert remote.doc["written"] == local.doc["written"] == ["conversations/team/session_01.md"]
    remote, local = twins.both("import", team)  # the same file again changes nothing
    assert (remote.code, local.code) == (0, 0)
    for ran in (remote, local):
        assert (ran.doc["written"], ran.doc["unchanged"], ran.doc["kept"]) == ([], 1, [])
    note = "billing/plans/team_plan.md"
    cases = [
        (["--root", ""], "give a folder"),
        (["--root", "../outside"], "leaves the vault"),
        (["--root", "/tmp"], "absolute"),
        (["--root", note], f"`{note}` is a file, not a folder"),
    ]
    for extra, reason in cases:
        remote, local = twins.both("import", team, *extra)
        same_refusal(twins, remote, local, reason)
    for name in ("", "..", "a\x00b"):
        remote, local = twins.both("import", twins.file("odd.json", chat(name, TURN)))
        same_refusal(twins, remote, local, "transcript name")
    twice = twins.file("twice.json", [chat("dup", TURN), chat("dup", TURN)])
    remote, local = twins.both("import", twice)
    same_refusal(twins, remote, local, "conversations/dup")
    remote, local = twins.both("import", twins.file("text.json", '"just words"'))
    same_refusal(twins, remote, local, "expected a transcript object")
    for vault, _ in (twins.served, twins.alone):
        assert sorted(p.name for p in (vault / "conversations").iterdir()) == ["team"]


def test_decay_reindex_and_overviews_end_alike(twins: Twins) -> None:
    remote, local = twins.both("decay")
    assert (remote.code, local.code) == (0, 0)
    assert remote.doc["notes_seen"] == local.doc["notes_seen"]
    remote, local = twins.both("reindex")
    assert (remote.code, local.code) == (0, 0)
    assert remote.doc["notes"] == local.doc["notes"]
    remote, local = twins.both("overviews", "--write")
    assert remote.code == local.code
    assert remote.doc["counts"] == local.doc["counts"]
    remote, local = twins.both("overviews", "--write", "--folder", "billing")
    assert remote.code == local.code and remote.doc["counts"] == local.doc["counts"]
    remote, local = twins.both("overviews", "--write", "--folder", "/etc")
    same_refusal(twins, remote, local, "absolute")


def test_setup_connect_points_the_plugin_at_the_running_bridge(
    twins: Twins, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`serve` listens on its own port (not the settings' 27182): the plugin gets that one."""
    vault, state = twins.served
    argv = ["setup", "--vault", str(vault), "--state-dir", str(state), "--connect"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    data = json.loads((vault / ".obsidian/plugins/vault-bridge/data.json").read_text())
    assert data == {"url": twins.url, "token": (state / "token").read_text().strip()}
    assert out["connect"] == {"url": twins.url, "running": True}
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert f"the bridge running at {twins.url}" in text
    assert "Start the bridge" not in text  # it runs: the next steps do not ask for it
