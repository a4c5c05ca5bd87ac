"""A question about one speaker of a transcript gets that speaker's own turn first."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import open_test_bridge, write_entries

TRANSCRIPT = """---
participants: [Caroline, Melanie]
---
# Session 4

- Melanie: Caroline, I paint sunsets, painting watercolours every weekend, Caroline!
- Caroline: I paint portraits in oil.
- Melanie: The lake was lovely this morning.
"""


def test_the_named_speakers_turn_comes_before_a_turn_that_names_her(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    write_entries(vault, 30)
    note = vault / "chats" / "session_4.md"
    note.parent.mkdir()
    note.write_text(TRANSCRIPT)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        result = bridge.engine.search("What does Caroline paint?", scope="chats")
        blocks = result.sources[0].blocks
        # Melanie's turn says "Caroline" and "paint" twice each; Caroline's says them once.
        assert blocks[0].text.startswith("Caroline: I paint portraits")
        assert any(b.text.startswith("Melanie: Caroline") for b in blocks[1:])
        other = bridge.engine.search("What does Melanie paint?", scope="chats")
        assert other.sources[0].blocks[0].text.startswith("Melanie: Caroline, I paint sunsets")
    finally:
        bridge.close()
