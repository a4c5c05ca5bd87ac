"""`vault-bridge query`, `search` and `reindex` as scripts use them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bridge.cli import main
from tests.conftest import CEILING
from tests.test_one_bridge import COMMAND


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def test_query_json(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s"), "--json"]
    code, out = run(capsys, "query", "How long do JWT access tokens live?", *common)
    assert code == 0
    assert out["tier"] == 2 and out["ood"] is False
    assert {"query", "answer", "latency_ms", "sources", "generation"} <= set(out)
    source = out["sources"][0]  # type: ignore[index]
    assert {"path", "title", "status", "score", "excerpt", "via"} <= set(source)


def test_search_limit_and_budget(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s"), "--json"]
    code, out = run(
        capsys, "search", "billing tokens", "--limit", "2", "--budget-words", "30", *common
    )
    assert code == 0
    assert len(out["sources"]) <= 2  # type: ignore[arg-type]
    assert out["words"] <= 30  # type: ignore[operator]


def test_human_output_shows_the_badge(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "query",
            "refund window annual plan",
            "--vault",
            str(template_vault),
            "--state-dir",
            str(tmp_path / "s"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "tier 2" in out and "annual_plan" in out


def test_reindex_rebuilds(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s"), "--json"]
    code, out = run(capsys, "reindex", *common)
    assert code == 0 and out["notes"] == 18
    # A fresh state dir: every note embedded, as docs/cli.md says (it had embedded none).
    semantic = out["semantic"]
    assert (semantic["state"], semantic["embedded"], semantic["pending"]) == ("ready", 18, 0)
    assert semantic["sections"] > 18
    code, again = run(capsys, "reindex", *common)
    assert again["notes"] == 18 and again["semantic"]["embedded"] == 18


def test_a_scope_that_names_no_folder_is_a_usage_error(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s")]
    for command in ("query", "search"):
        assert main([command, "rollback", "--scope", "nosuch", *common]) == 2
        captured = capsys.readouterr()
        assert "no notes in a folder `nosuch`" in captured.err and captured.out == ""
    code, out = run(capsys, "query", "rollback", "--scope", "engineering/", *common, "--json")
    assert code == 0 and out["sources"]  # a real folder, written with a trailing slash


def test_a_query_no_note_matches_says_the_memory_holds_nothing(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """However small the vault, a question no note holds a word of is "nothing in memory"."""
    common = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s"), "--json"]
    code, out = run(capsys, "query", "quantum chromodynamics lattice", *common)
    assert code == 0 and out["sources"] == [] and out["ood"] is True
    assert str(out["answer"]).startswith("Nothing in memory about this")


def test_search_has_no_tier_and_a_query_without_words_says_why(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s")]
    assert main(["search", "JWT refresh", *common]) == 0
    out = capsys.readouterr().out
    assert "jwt_expiry" in out and "words" in out and "tier" not in out  # search has no tiers
    for command in ("query", "search"):
        assert main([command, "what do we do about it?", *common]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert "The query has no searchable words" in out and "No sources." in out
        assert "tier" not in out, out


def test_tables_sent_to_a_pipe_keep_whole_paths(template_vault: Path, tmp_path: Path) -> None:
    """A log or `| grep` got `engineering/auth/jwt_expi…`: a path nobody could copy."""
    deep = "engineering/infrastructure/observability/alerting_runbook_for_the_on_call_rotation.md"
    (template_vault / deep).parent.mkdir(parents=True)
    (template_vault / deep).write_text("# Alerting runbook\n\nPage the zebrafinch rotation.\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    argv = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "s")]
    for command in (["search", "zebrafinch"], ["doctor"]):
        if command == ["doctor"]:
            (template_vault / deep).write_text("# Alerting runbook\n\nSee [[nowhere]].\n")
        done = subprocess.run(
            [*COMMAND, *command, *argv], capture_output=True, text=True, timeout=CEILING, env=env
        )
        assert deep in done.stdout and "…" not in done.stdout, done.stdout
