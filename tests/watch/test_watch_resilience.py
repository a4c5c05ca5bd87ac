"""Files that cannot be read for a moment, half-written files, and files that stay broken."""

from __future__ import annotations

import os

from bridge.watch import LiveVault
from bridge.watch.applier import looks_half_written
from tests.conftest import CEILING
from tests.watch.conftest import found, wait_until

JWT = "engineering/auth/jwt_expiry.md"


def test_a_half_written_binary_copy_then_completed(live: LiveVault) -> None:
    vault = live.bridge.store.root
    original = (vault / JWT).read_text()
    (vault / JWT).write_bytes(b"\x00\x00\x00 half a copy")
    wait_until(lambda: live.stats.retries >= 1)
    (vault / JWT).write_text(original + "\nCompleted with a tapirish ending.\n")
    wait_until(lambda: found(live.bridge, "tapirish") == [JWT])
    assert live.wait_idle(CEILING)
    assert live.problems == {} and live.stats.failures == 0
    view = live.bridge.lifecycle.view(JWT, "core", None, live.applier.clock())
    assert view.update_count == 1 and view.maturity.value == "core"


def test_a_note_unreadable_for_a_moment_is_read_by_a_retry(live: LiveVault) -> None:
    # The note is a link to a file in `attachments/`, which the watcher ignores: once the
    # first read failed, no event will ever come for the note again, only the retry reads it.
    vault = live.bridge.store.root
    (vault / "attachments").mkdir()
    target = vault / "attachments/payload.md"
    target.write_bytes(b"\x00 not readable as a note yet")
    (vault / "engineering/linked.md").symlink_to("../attachments/payload.md")
    wait_until(lambda: live.stats.retries >= 1)
    assert live.bridge.index.stamp("engineering/linked.md") is None
    target.write_text("# Linked\n\nNow it reads: walrusine.\n")
    wait_until(lambda: found(live.bridge, "walrusine") == ["engineering/linked.md"])
    assert live.problems == {}


def test_a_note_that_stays_unreadable_is_reported_and_unindexed(live: LiveVault) -> None:
    vault = live.bridge.store.root
    assert live.bridge.index.stamp(JWT) is not None
    (vault / JWT).write_bytes(b"\x00" * 64)
    wait_until(lambda: JWT in live.problems)
    assert live.problems[JWT].code == "binary"
    assert live.bridge.index.stamp(JWT) is None  # its old text is not served
    # The watcher goes on, and a fixed note comes back.
    (vault / JWT).write_text("# JWT expiry\n\nFixed: lemurian.\n")
    wait_until(lambda: found(live.bridge, "lemurian") == [JWT])
    assert live.problems == {}


def test_an_emptied_note_is_given_time_before_it_counts(live: LiveVault) -> None:
    vault = live.bridge.store.root
    original = (vault / JWT).read_text()
    with (vault / JWT).open("w", encoding="utf-8") as handle:
        handle.flush()
        os.fsync(handle.fileno())  # a slow writer: truncated, nothing written yet
        wait_until(lambda: live.stats.retries >= 1)
        handle.write(original + "\nRewritten slowly: ocelotish.\n")
    wait_until(lambda: found(live.bridge, "ocelotish") == [JWT])
    assert live.wait_idle(CEILING)
    view = live.bridge.lifecycle.view(JWT, "core", None, live.applier.clock())
    assert view.update_count == 1 and view.maturity.value == "core"


def test_a_deleted_note_between_event_and_read_is_a_delete(live: LiveVault) -> None:
    vault = live.bridge.store.root
    (vault / "fleeting.md").write_text("# Fleeting\n\nnarwhalish\n")
    (vault / "fleeting.md").unlink()
    (vault / "marker.md").write_text("# Marker\n\nmeerkatish\n")
    wait_until(lambda: found(live.bridge, "meerkatish") == ["marker.md"])
    assert live.wait_idle(CEILING)
    assert live.bridge.index.stamp("fleeting.md") is None
    assert live.stats.failures == 0


def test_half_written_text_is_recognised() -> None:
    assert looks_half_written("")
    assert looks_half_written("  \n")
    assert looks_half_written("---\ntitle: x\nstatus: sta")
    assert looks_half_written("\ufeff---\ntitle: x\n")
    assert not looks_half_written("---\ntitle: x\n---\n# Body\n")
    assert not looks_half_written("# Just a note\n")
    assert not looks_half_written("---\ntitle: x\n...\n")
