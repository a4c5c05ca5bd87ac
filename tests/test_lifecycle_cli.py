"""`vault-bridge decay` and `vault-bridge lifecycle` as a script and a person see them."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from bridge.cli import main
from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore
from tests.conftest import snapshot

JWT = "engineering/auth/jwt_expiry.md"  # core
JWT_UPDATED = datetime(2026, 10, 14, 8, 30, tzinfo=UTC)
SSO = "engineering/auth/oauth/google_sso.md"  # draft


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time("2026-12-01 04:00:00") as frozen:
        yield frozen


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main([*argv, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict)
    return code, out


def test_decay_json_reports_the_run(
    template_vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    clock: FrozenDateTimeFactory,
) -> None:
    where = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "state")]
    code, out = run_json(capsys, "decay", *where)
    assert code == 0
    assert out["ran_at"] == "2026-12-01T04:00:00+00:00"
    assert (out["notes_seen"], out["transitions"], out["skipped"]) == (18, [], [])
    before = snapshot(template_vault)
    clock.tick(timedelta(days=70))
    code, out = run_json(capsys, "decay", *where)
    assert code == 0
    transitions = out["transitions"]
    assert isinstance(transitions, list)
    jwt = next(t for t in transitions if t["path"] == JWT)
    assert (jwt["from"], jwt["to"]) == ("core", "stable")
    assert jwt["importance"] == pytest.approx(85 * 0.995**70, abs=1e-3)
    changed = {p for p, v in snapshot(template_vault).items() if before[p] != v}
    assert changed == {t["path"] for t in transitions}
    stale = out["stale"]
    assert isinstance(stale, list)
    assert all(set(s) == {"path", "importance", "recency"} for s in stale)


def test_decay_prints_a_summary(
    template_vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    clock: FrozenDateTimeFactory,
) -> None:
    assert main(["decay", "--vault", str(template_vault), "--state-dir", str(tmp_path)]) == 0
    assert "18 notes, 0 status changes" in capsys.readouterr().out


def test_lifecycle_json_explains_one_note(
    template_vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    clock: FrozenDateTimeFactory,
) -> None:
    state = tmp_path / "state"
    with StateDB.open(state) as db:
        LifecycleStore(db).record_access({JWT: "core"}, datetime.now(UTC))
    clock.tick(timedelta(days=10))
    where = ["--vault", str(template_vault), "--state-dir", str(state)]
    code, out = run_json(capsys, "lifecycle", f"@{JWT}", *where)
    assert code == 0
    assert out["importance"] == pytest.approx(88 * 0.995**10, abs=1e-3)
    assert (out["maturity"], out["status"]) == ("core", "core")
    assert (out["access_count"], out["update_count"]) == (1, 0)
    assert out["last_update"] == "2026-10-14T08:30:00+00:00"
    days = (datetime.now(UTC) - JWT_UPDATED).total_seconds() / 86_400
    assert out["recency"] == pytest.approx(math.exp(-days / 30), abs=1e-6)
    forecast = out["forecast"]
    assert isinstance(forecast, dict)
    assert forecast["to"] == "validated" and forecast["to_status"] == "stable"
    assert forecast["text"].startswith("demotes to stable in ")
    code, again = run_json(capsys, "lifecycle", JWT.removesuffix(".md"), *where)
    assert code == 0 and again == out


def test_lifecycle_explains_in_words(
    template_vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    clock: FrozenDateTimeFactory,
) -> None:
    argv = ["lifecycle", SSO, "--vault", str(template_vault), "--state-dir", str(tmp_path)]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "50.0 of 100" in text
    assert "last updated 18 days ago" in text  # updated 2026-11-12T16:03Z, 18.5 days
    assert "draft (status: draft)" in text
    assert "next stays draft: decay never goes below draft; uses and updates promote it" in text
    assert "if nothing else happens" not in text  # only after a change that is coming


def test_lifecycle_of_a_note_with_unreadable_frontmatter_says_so(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = template_vault / "team" / "broken.md"
    broken.write_text("---\ntitle: Broken\ntags: [a, b\nstatus: core\n---\n# Broken\n")
    argv = ["lifecycle", "team/broken.md", "--vault", str(template_vault), "--state-dir"]
    assert main([*argv, str(tmp_path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "not a lifecycle word" not in text and "`none`" not in text
    assert "the frontmatter cannot be read (malformed YAML frontmatter at line 3:" in text
    assert main([*argv, str(tmp_path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["frontmatter_problem"].startswith("team/broken.md: malformed YAML")
    assert document["forecast"]["text"] == (
        "no change: the bridge writes no status into frontmatter it cannot read"
    )


def test_lifecycle_of_a_missing_note_exits_2(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--vault", str(template_vault), "--state-dir", str(tmp_path)]
    assert main(["lifecycle", "no/such/note", *argv]) == 2
    assert "no note `no/such/note.md`" in capsys.readouterr().err
    assert main(["lifecycle", "../escape.md", *argv]) == 2
    assert "leaves the vault" in capsys.readouterr().err


def test_lifecycle_says_uses_and_a_missing_status_in_words(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A note that was the first source of an answer was "never returned as a query source",
    # and one without `status` had "status `none` is not a lifecycle word".
    plain = template_vault / "team" / "plain.md"
    plain.write_text("# Plain\n\nNo frontmatter at all.\n")
    argv = ["lifecycle", "team/plain.md", "--vault", str(template_vault), "--state-dir"]
    assert main([*argv, str(tmp_path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "`none`" not in text and "not a lifecycle word" not in text
    assert "the note has no `status`" in text
    assert "used never yet (a use: its text answered, it was opened from the results" in text
    assert "as a query source" not in text
