"""In-place entry edits: only what the patch names changes, human formatting survives."""

from __future__ import annotations

import datetime as dt

from bridge.core.entry import parse_note
from bridge.core.entry_edit import EntryPatch, RelationLine, patch_entry, rewrite_links
from bridge.core.paths import link_target
from bridge.core.relations import LinkResolver, WikiLink
from tests.conftest import TRICKY

NOW = dt.datetime(2026, 12, 1, 9, 30, tzinfo=dt.UTC)


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    import difflib

    out = []
    for line in difflib.ndiff(before.split("\n"), after.split("\n")):
        if line.startswith(("- ", "+ ")):
            out.append((line[0], line[2:]))
    return out


def test_patch_touches_only_named_parts_of_a_hand_formatted_note() -> None:
    text = (TRICKY / "human_formatted.md").read_text()
    patch = EntryPatch(
        summary="A new summary",
        relations=(RelationLine("code_links", "new reason"), RelationLine("extra/one", "added")),
        narrative="Rewritten narrative.",
        updated=NOW,
        author="agent:t",
    )
    after = patch_entry(text, patch)
    changes = changed_lines(text, after)
    removed = [line for sign, line in changes if sign == "-"]
    added = [line for sign, line in changes if sign == "+"]
    assert removed == [
        "updated: 2026-11-20T16:40:00+01:00",
        "Lower-case section heading.",
        "",
        "Text between sections stays where it is.",
        "- [[code_links#Code links|see code]] - heading and alias",
    ]
    assert "- [[code_links#Code links|see code]] - new reason" in added
    assert "- [[extra/one]] - added" in added
    assert "summary: A new summary" in added and "author: agent:t" in added
    # Comments, odd keys, quoting and the lower-case heading are untouched.
    for kept in (
        "# a comment the human wrote",
        'weird key: "kept"',
        "## narrative",
        "## RELATIONS",
    ):
        assert kept in after
    note = parse_note("x.md", after)
    assert note.entry.narrative == "Rewritten narrative."
    assert note.entry.extra["weird key"] == "kept"


def test_crlf_and_missing_sections_are_handled() -> None:
    text = "---\r\ntitle: T\r\n---\r\n# T\r\n\r\n## Narrative\r\nold\r\n"
    after = patch_entry(
        text, EntryPatch(relations=(RelationLine("a/b/c", "why"),), raw_concept=(("Task", "t"),))
    )
    assert "\n" not in after.replace("\r\n", "")
    lines = after.split("\r\n")
    # New sections go in entry order: before Narrative.
    assert lines.index("## Relations") < lines.index("## Raw Concept") < lines.index("## Narrative")
    assert "- [[a/b/c]] - why" in lines and "- Task: t" in lines and "old" in lines


def test_raw_concept_lines_are_set_by_key_and_others_kept() -> None:
    text = "# T\n\n## Raw Concept\n- Task: old task\n- Ticket: PB-1\n\n## Narrative\nx\n"
    after = patch_entry(text, EntryPatch(raw_concept=(("task", "new"), ("Source", "chat"))))
    assert "- Task: new" not in after  # the existing key keeps its spelling
    assert "- task: new" in after and "- Ticket: PB-1" in after and "- Source: chat" in after
    assert "old task" not in after


def test_an_existing_relation_without_a_new_reason_is_left_alone() -> None:
    text = "# T\n\n## Relations\n- [[a/b]] - original\n"
    assert patch_entry(text, EntryPatch(relations=(RelationLine("a/b"),))) == text


def test_rewrite_links_keeps_alias_heading_block_and_skips_code() -> None:
    text = (
        '---\nrelated: ["[[old/note]]"]\n---\n# N\n\n'
        "See [[old/note|the old one]], [[note#Part]] and ![[old/note#^blk]].\n"
        "Not `[[old/note]]` in code.\n\n```md\n[[old/note]]\n```\n[[other/thing]]\n"
    )
    resolver = LinkResolver(["old/note.md", "new/place.md", "other/thing.md"])

    def spell(link: WikiLink, path: str) -> str:
        return link_target(path)

    out = rewrite_links(
        text, lambda t: resolver.resolve(t, "x/y.md"), {"old/note.md": "new/place.md"}, spell
    )
    assert '["[[new/place]]"]' in out
    assert "[[new/place|the old one]]" in out and "[[new/place#Part]]" in out
    assert "![[new/place#^blk]]" in out
    assert "`[[old/note]]`" in out and "```md\n[[old/note]]\n```" in out
    assert "[[other/thing]]" in out


def test_sections_an_update_gives_find_their_place_and_empty_ones_are_not_added() -> None:
    text = "# T\n\n## Raw Concept\n- Author: agent:x\n"  # a new entry: no empty sections
    with_code = patch_entry(text, EntryPatch(snippets=(("py", "rotate()"),)))
    assert with_code == text + "\n## Snippets\n```py\nrotate()\n```\n"
    both = patch_entry(with_code, EntryPatch(narrative="Why keys rotate."))
    lines = both.split("\n")
    assert lines.index("## Raw Concept") < lines.index("## Narrative") < lines.index("## Snippets")
    assert patch_entry(text, EntryPatch(narrative="")) == text  # nothing to say: no heading
