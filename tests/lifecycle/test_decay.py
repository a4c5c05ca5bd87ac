"""The decay job on real vaults copied from the template, with real state databases."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from bridge.core.entry import Problem
from bridge.core.lifecycle import DEFAULT, LifecycleParams
from bridge.core.maturity import Maturity, StatusMapping
from bridge.lifecycle.decay import DecayReport, run_decay
from bridge.state.db import DB_NAME, StateDB
from bridge.state.lifecycle_store import LifecycleStore, LifecycleView
from bridge.vault.store import NoteError, VaultStore
from tests.conftest import TEMPLATE, TRICKY, snapshot

START = "2026-12-01 04:00:00"
SSO = "engineering/auth/oauth/google_sso.md"  # draft
JWT = "engineering/auth/jwt_expiry.md"  # core
ROLLBACK = "engineering/deploy/rollback.md"  # draft, last updated 2026-08-21
CORES = {JWT, "billing/plans/annual_plan.md", "team/practices/code_review.md"}


def now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time(START) as frozen:
        yield frozen


def decay(
    vault: Path, state: Path, params: LifecycleParams = DEFAULT, store: VaultStore | None = None
) -> DecayReport:
    with StateDB.open(state) as db:
        lifecycle = LifecycleStore(db, StatusMapping(), params)
        return run_decay(store or VaultStore(vault), lifecycle, now())


def access(state: Path, path: str, status: str, times: int) -> None:
    with StateDB.open(state) as db:
        for _ in range(times):
            LifecycleStore(db).record_access({path: status}, now())


def views(vault: Path, state: Path, params: LifecycleParams = DEFAULT) -> dict[str, LifecycleView]:
    store = VaultStore(vault)
    items = []
    for path in store.iter_paths():
        entry = store.read(path).parse().entry
        items.append((path, entry.status, entry.updated))
    with StateDB.open(state) as db:
        return LifecycleStore(db, StatusMapping(), params).view_many(items, now())


def statuses(vault: Path) -> dict[str, str | None]:
    store = VaultStore(vault)
    return {p: store.read(p).parse().entry.status for p in store.iter_paths()}


def set_status(vault: Path, path: str, old: str, new: str) -> None:
    """A human edits `status` in Obsidian."""
    file = vault / path
    file.write_text(file.read_text().replace(f"status: {old}\n", f"status: {new}\n", 1))


def test_the_first_run_tracks_every_note_and_changes_no_file(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    before = snapshot(template_vault)
    report = decay(template_vault, tmp_path / "state")
    assert report.notes_seen == 18 and report.transitions == () and report.skipped == ()
    assert snapshot(template_vault) == before
    with StateDB.open(tmp_path / "state") as db:
        assert len(LifecycleStore(db).tracked_paths()) == 18
        assert LifecycleStore(db).last_run() == now()


def test_a_promotion_writes_only_that_status_and_a_second_run_changes_nothing(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    state = tmp_path / "state"
    decay(template_vault, state)
    access(state, SSO, "draft", 5)
    before = snapshot(template_vault)
    clock.tick(timedelta(hours=1))
    report = decay(template_vault, state)
    assert [(t.path, t.from_status, t.to_status) for t in report.transitions] == [
        (SSO, "draft", "stable")
    ]
    after = snapshot(template_vault)
    assert {p for p in after if after[p] != before[p]} == {SSO}
    assert after[SSO][0] == before[SSO][0].replace(b"status: draft\n", b"status: stable\n")
    clock.tick(timedelta(hours=5))
    again = decay(template_vault, state)
    assert again.transitions == ()
    assert snapshot(template_vault) == after


def test_core_notes_demote_after_seventy_quiet_days(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    state = tmp_path / "state"
    decay(template_vault, state)
    clock.tick(timedelta(days=69))
    assert decay(template_vault, state).transitions == ()  # 85 * 0.995**69 = 60.08
    clock.tick(timedelta(days=1))
    report = decay(template_vault, state)
    assert {t.path for t in report.transitions} == CORES
    assert all(t.to_maturity is Maturity.VALIDATED for t in report.transitions)
    assert all(statuses(template_vault)[p] == "stable" for p in CORES)
    with StateDB.open(state) as db:
        [change] = LifecycleStore(db).history(JWT)
    assert (change.to_maturity, change.reason) == (Maturity.VALIDATED, "decay")


def test_ten_days_of_downtime_equal_ten_daily_runs(tmp_path: Path) -> None:
    # Fast decay so ten days cross thresholds: cores demote, an accessed draft is promoted on
    # day 1.5 and has decayed below the promotion threshold by day 10, yet must stay promoted.
    params = LifecycleParams(daily_decay=0.95)
    daily, late = tmp_path / "daily", tmp_path / "late"
    shutil.copytree(TEMPLATE, daily)
    shutil.copytree(TEMPLATE, late)
    with freeze_time(START) as clock:
        for vault in (daily, late):
            decay(vault, tmp_path / f"{vault.name}-state", params)
        for day in range(1, 11):
            if day == 2:  # both vaults see the same queries on day 1.5
                clock.tick(timedelta(days=0.5))
                for vault in (daily, late):
                    access(tmp_path / f"{vault.name}-state", SSO, "draft", 8)
                clock.tick(timedelta(days=0.5))
            else:
                clock.tick(timedelta(days=1))
            decay(daily, tmp_path / "daily-state", params)
        assert decay(late, tmp_path / "late-state", params).transitions != ()
        daily_views = views(daily, tmp_path / "daily-state", params)
        late_views = views(late, tmp_path / "late-state", params)
    assert statuses(daily) == statuses(late)
    assert statuses(late)[SSO] == "stable" and late_views[SSO].importance < 65
    assert all(statuses(late)[p] == "stable" for p in CORES)
    for path, view in daily_views.items():
        other = late_views[path]
        assert (view.maturity, view.access_count) == (other.maturity, other.access_count)
        assert view.importance == pytest.approx(other.importance, rel=1e-12)


def test_a_human_status_edit_is_respected(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    state = tmp_path / "state"
    decay(template_vault, state)
    set_status(template_vault, JWT, "core", "draft")
    set_status(template_vault, ROLLBACK, "draft", "core")
    edited = snapshot(template_vault)
    clock.tick(timedelta(days=1))
    report = decay(template_vault, state)
    assert report.transitions == ()
    assert snapshot(template_vault) == edited
    after = views(template_vault, state)
    assert after[JWT].maturity is Maturity.DRAFT and after[JWT].importance < 65
    assert after[ROLLBACK].maturity is Maturity.CORE and after[ROLLBACK].importance >= 60
    with StateDB.open(state) as db:
        assert [c.reason for c in LifecycleStore(db).history(JWT)] == ["human"]
    clock.tick(timedelta(days=1))
    assert decay(template_vault, state).transitions == ()
    assert snapshot(template_vault) == edited


def test_losing_the_state_database_keeps_every_maturity(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    state = tmp_path / "state"
    decay(template_vault, state)
    access(state, SSO, "draft", 5)
    clock.tick(timedelta(days=70))
    assert decay(template_vault, state).transitions != ()
    before = snapshot(template_vault)
    for file in state.glob(f"{DB_NAME}*"):
        file.unlink()
    clock.tick(timedelta(days=1))
    report = decay(template_vault, state)
    assert report.transitions == ()
    assert snapshot(template_vault) == before
    assert statuses(template_vault)[SSO] == "stable"


def test_unknown_status_values_are_never_rewritten(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    state = tmp_path / "state"
    set_status(template_vault, ROLLBACK, "draft", "archived")
    before = snapshot(template_vault)
    decay(template_vault, state)
    access(state, ROLLBACK, "archived", 20)
    clock.tick(timedelta(days=1))
    assert decay(template_vault, state).transitions == ()
    assert snapshot(template_vault) == before
    assert views(template_vault, state)[ROLLBACK].maturity is Maturity.DRAFT


def test_bad_notes_are_reported_and_a_failed_write_is_retried(
    template_vault: Path,
    tmp_path: Path,
    clock: FrozenDateTimeFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = tmp_path / "state"
    shutil.copy(TRICKY / "malformed_yaml.md", template_vault / "malformed_yaml.md")
    # Not UTF-8 below a readable status: the job must not write it back either.
    latin = b"---\nstatus: draft\n---\n# Caf\xe9\n\nA note saved as Latin-1.\n"
    (template_vault / "latin.md").write_bytes(latin)
    decay(template_vault, state)
    access(state, SSO, "draft", 5)
    store = VaultStore(template_vault)

    def refuse(path: str, key: str, value: object) -> None:
        raise NoteError(Problem(path, "unreadable", f"{path}: permission denied"))

    monkeypatch.setattr(store, "set_frontmatter", refuse)
    report = decay(template_vault, state, store=store)
    assert {(s.path, s.code) for s in report.skipped} == {
        ("malformed_yaml.md", "malformed_frontmatter"),
        ("latin.md", "not_utf8"),
        (SSO, "unreadable"),
    }
    assert (template_vault / "latin.md").read_bytes() == latin
    assert report.transitions == () and statuses(template_vault)[SSO] == "draft"
    retried = decay(template_vault, state)
    assert [t.path for t in retried.transitions] == [SSO]
    assert statuses(template_vault)[SSO] == "stable"


def test_stale_candidates_and_deleted_notes(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    state = tmp_path / "state"
    decay(template_vault, state)
    (template_vault / JWT).unlink()
    clock.tick(timedelta(days=80))
    report = decay(template_vault, state)
    stale = {s.path: s for s in report.stale}
    assert ROLLBACK in stale and stale[ROLLBACK].importance == pytest.approx(50 * 0.995**80)
    assert stale[ROLLBACK].recency < 0.1
    assert "engineering/database/migrations.md" not in stale  # stable: importance still 43.6
    assert report.forgotten == (JWT,)
    with StateDB.open(state) as db:
        assert JWT not in LifecycleStore(db).tracked_paths()


class _EditWhileWaiting:
    """The writer's lock as the decay job meets it while a human saves a note: the save lands
    after the job read the vault and before it holds the lock."""

    def __init__(self, edit: Callable[[], None]) -> None:
        self.edit = edit
        self.held = False

    def __enter__(self) -> None:
        self.edit()
        self.held = True

    def __exit__(self, *exc: object) -> None:
        self.held = False


def test_a_note_saved_while_the_job_waits_for_the_lock_is_judged_as_saved(
    template_vault: Path, tmp_path: Path, clock: FrozenDateTimeFactory
) -> None:
    """The job reads the vault before taking the writer's lock (curation does not wait for
    its reading); a note saved meanwhile is read again under the lock, so the job judges it
    as it is: refreshed today, the old draft is no longer a stale candidate."""
    state = tmp_path / "state"
    decay(template_vault, state)
    clock.tick(timedelta(days=80))
    today = now().date().isoformat()

    def refresh() -> None:
        note = template_vault / ROLLBACK
        note.write_text(note.read_text().replace("updated: 2026-08-21", f"updated: {today}", 1))

    lock = _EditWhileWaiting(refresh)
    with StateDB.open(state) as db:
        lifecycle = LifecycleStore(db, StatusMapping(), DEFAULT)
        report = run_decay(VaultStore(template_vault), lifecycle, now(), lock=lock)
    assert f"updated: {today}" in (template_vault / ROLLBACK).read_text()
    assert ROLLBACK not in {s.path for s in report.stale}
    assert report.notes_seen == 18 and not lock.held
