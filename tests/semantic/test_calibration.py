"""The off-topic line, measured on the vault itself with everyday probe questions."""

from __future__ import annotations

import sqlite3
import statistics
from pathlib import Path

import pytest

from bridge.runtime import open_bridge
from bridge.semantic.calibration import is_stale, probe_stats
from bridge.settings import Settings
from tests.conftest import write_notes


def test_a_question_is_measured_in_spreads_above_unrelated_questions_of_this_vault() -> None:
    narrow = probe_stats([0.1, 0.15, 0.2, 0.12])
    broad = probe_stats([0.3, 0.45, 0.25, 0.35])
    assert narrow is not None and broad is not None
    assert narrow.mean == pytest.approx(statistics.fmean([0.1, 0.15, 0.2, 0.12]))
    assert narrow.line == pytest.approx(narrow.mean + 2 * narrow.sd)
    # The same cosine is close in a narrow vault, not in a broad one.
    assert narrow.z(0.4) > 3 > broad.z(0.4)
    assert probe_stats([]) is None  # nothing embedded: nothing measured


def test_the_line_is_worked_out_again_once_the_vault_has_moved_by_a_tenth() -> None:
    assert not is_stale(1000, 1100)
    assert is_stale(1000, 1101)
    assert is_stale(1000, 899)
    assert is_stale(0, 2)


NARROW = {
    "publish/Permalinks.md": (
        "# Permalinks\n\nYou can rename the URL of a published note with a permalink. Add a "
        "`permalink` property to the note's frontmatter, for example `permalink: about`, and "
        "the page is served at that address instead of its folder path.\n"
    ),
    "publish/Custom domains.md": (
        "# Custom domains\n\nYou can serve your published site from a domain or subdomain you "
        "own. Add a CNAME record at your DNS provider that points to the publishing servers, "
        "then enter the domain in the site options.\n"
    ),
    "publish/Analytics.md": (
        "# Analytics\n\nTo count visitors of your published site, enable Google Analytics in "
        "the site options and paste your tracking code.\n"
    ),
    "sync/Version history.md": (
        "# Version history\n\nSync keeps earlier versions of every note. Open the version "
        "history of a note to compare it with an older version and restore that one if you "
        "need it.\n"
    ),
    "sync/Encryption.md": (
        "# Encryption\n\nRemote vaults are end-to-end encrypted with a password only you "
        "know; the service cannot read your notes.\n"
    ),
    "sync/Storage.md": (
        "# Storage limits\n\nEach plan includes a fixed amount of storage; more can be bought "
        "from the account page, up to 100 GB.\n"
    ),
}


def test_a_narrow_vault_answers_a_paraphrase_the_broad_line_would_call_off_topic(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", NARROW)
    settings = Settings(vault=vault, state_dir=tmp_path / "state")
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=True)
        line = bridge.semantic_status()["off_topic_line"]
        assert isinstance(line, float)
        # None of its words is in the vault: meaning alone finds the note.
        asked = bridge.engine.query("I deleted something by accident, can I get the old text back?")
        assert not asked.ood
        assert asked.sources[0].path == "sync/Version history.md"
        for off_topic in (
            "What is the capital of Australia?",
            "In what year did the Berlin Wall fall?",
        ):
            assert bridge.engine.query(off_topic).ood, off_topic
    finally:
        bridge.close()
    # Kept with the vectors: the next process knows the line before its first question.
    again = open_bridge(settings)
    try:
        again.prepare_semantic(embed=False)
        assert again.semantic_status()["off_topic_line"] == line
    finally:
        again.close()
    # A line that cannot be read is measured again, not a failure.
    (vectors,) = (tmp_path / "state" / "semantic").glob("*.sqlite")
    with sqlite3.connect(vectors) as db:
        db.execute("UPDATE meta SET value = 'not json' WHERE key = 'off_topic_probes'")
    third = open_bridge(settings)
    try:
        third.prepare_semantic(embed=False)
        assert third.engine.query("In what year did the Berlin Wall fall?").ood
        assert third.semantic_status()["off_topic_line"] == line
    finally:
        third.close()
