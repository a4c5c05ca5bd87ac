"""The entry model: lenient parsing of any note, and rendering that round-trips."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from bridge.core.entry import Entry, RawConcept, Relation, Snippet, parse_note, render_entry

UTC = dt.UTC


def full_entry() -> Entry:
    return Entry(
        title="Auth billing cycle",
        summary="Tokens are re-issued at the end of each monthly billing cycle.",
        tags=("auth", "billing"),
        status="stable",
        created=dt.datetime(2026, 11, 2, 9, 14, tzinfo=UTC),
        updated=dt.datetime(2026, 11, 20, 16, 40, tzinfo=UTC),
        author="agent:claude-code",
        relations=(
            Relation("security/auth/jwt_expiry", "tokens expire after 24h, billing renews them"),
            Relation("billing/plans/annual_plan", "same renewal, yearly cycle", alias="annual"),
            Relation("billing/plans/monthly", None, heading="Limits"),
        ),
        raw_concept=RawConcept(
            task="document how billing and auth interact",
            changes="renewal moved from daily to cycle end",
            source="src/billing/cycle.ts; conversation 2026-11-20 (turns D3:4, D3:7)",
            author="agent:claude-code, 2026-11-20T16:40:00Z",
        ),
        narrative="Billing runs on the 1st of each month.\n\n- a list\n- in the narrative",
        snippets=(Snippet("ts", "renewTokens(account, cycle.end)"), Snippet("", "```\nx\n```")),
        extra={"source_url": "https://example.com/x", "priority": 2},
    )


def test_render_then_parse_gives_the_same_entry() -> None:
    entry = full_entry()
    note = parse_note("billing/cycle/auth_billing.md", render_entry(entry))
    assert note.entry == entry
    assert note.problems == ()
    assert note.is_entry


def test_rendered_entry_follows_the_documented_layout() -> None:
    text = render_entry(full_entry())
    assert text.startswith("---\ntitle: Auth billing cycle\nsummary: ")
    assert "author: agent:claude-code\n" in text
    assert "\n# Auth billing cycle\n\n## Relations\n- [[security/auth/jwt_expiry]] - " in text
    assert "- [[billing/plans/annual_plan|annual]] - same renewal" in text
    assert "## Raw Concept\n- Task: document" in text
    assert "````\n```\nx\n```\n````" in text  # a fence longer than the code's own


@given(
    title=st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
        min_size=1,
        max_size=40,
    ).filter(lambda t: t.strip() == t and t),
    tags=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), max_size=4),
    narrative=st.from_regex(r"[A-Za-z0-9 ,.]{0,80}", fullmatch=True).map(str.strip),
)
def test_round_trip_holds_for_generated_entries(
    title: str, tags: list[str], narrative: str
) -> None:
    entry = Entry(title=title, tags=tuple(tags), narrative=narrative, status="draft")
    assert parse_note("x/y/z.md", render_entry(entry)).entry == entry


def test_any_note_gets_a_title_h1_then_frontmatter_then_stem() -> None:
    assert parse_note("a/b.md", "---\ntitle: Meta\n---\n# Heading\n").title == "Heading"
    assert parse_note("a/b.md", "---\ntitle: Meta\n---\ntext\n").title == "Meta"
    assert parse_note("a/daily note.md", "just text\n").title == "daily note"


def test_sections_match_case_insensitively_and_other_text_is_kept() -> None:
    text = (
        "# T\n\nIntro outside sections.\n\n## NARRATIVE\nStory.\n\n### Detail\nDeeper.\n\n"
        "## Other\nKept.\n\n## raw concept\n- task: lower\n- Owner: extra key\n"
    )
    note = parse_note("a/b/c.md", text)
    assert note.entry.narrative == "Story.\n\n### Detail\nDeeper."
    assert note.entry.raw_concept == RawConcept(task="lower", extra=(("Owner", "extra key"),))
    assert any(b.text == "Intro outside sections." for b in note.blocks)
    assert any(b.text == "Kept." for b in note.blocks)


def test_missing_keys_get_defaults_in_memory() -> None:
    note = parse_note("a/b.md", "# Only a heading\n")
    assert note.entry.status is None
    assert note.entry.tags == ()
    assert not note.is_entry


def test_malformed_yaml_is_indexed_as_text_and_blocks_writes() -> None:
    note = parse_note("bad.md", "---\ntitle: [unclosed\n---\n# Broken\n\npelican\n")
    assert [p.code for p in note.problems] == ["malformed_frontmatter"]
    assert "bad.md" in note.problems[0].message and "line" in note.problems[0].message
    assert not note.writable
    assert any("pelican" in b.text for b in note.blocks)
    assert any("title: [unclosed" in b.text for b in note.blocks)


def test_a_block_never_closed_is_malformed_but_a_leading_rule_is_not() -> None:
    note = parse_note("open.md", "---\ntitle: Open\nstatus: core\n\npelican\n")
    assert [p.code for p in note.problems] == ["malformed_frontmatter"]
    assert "never closed" in note.problems[0].message
    assert not note.writable
    assert any("pelican" in b.text for b in note.blocks)  # indexed as text, as before
    ruled = parse_note("ruled.md", "---\n\nA paragraph under a rule.\n")
    assert ruled.problems == ()


def test_two_frontmatter_blocks_are_reported() -> None:
    note = parse_note("two.md", "---\ntitle: A\n---\n---\nstatus: core\n---\n# Two\n")
    assert [p.code for p in note.problems] == ["duplicate_frontmatter"]
    assert note.frontmatter == {"title": "A"}
    assert note.entry.status is None


def test_empty_note_is_reported_but_harmless() -> None:
    note = parse_note("empty.md", "")
    assert [p.code for p in note.problems] == ["empty"]
    assert note.title == "empty"


def test_tags_and_dates_are_read_leniently() -> None:
    note = parse_note(
        "a.md", "---\ntags: '#one, two'\ncreated: 2026-01-05\nupdated: '2026-11-20T16:40:00'\n---\n"
    )
    assert note.entry.tags == ("one", "two")
    assert note.entry.created == dt.datetime(2026, 1, 5, tzinfo=UTC)
    assert note.entry.updated == dt.datetime(2026, 11, 20, 16, 40, tzinfo=UTC)


def test_block_positions_are_file_lines() -> None:
    text = "---\ntitle: x\n---\n# X\n\n- item ^blk-1\n"
    note = parse_note("x.md", text)
    item = next(b for b in note.blocks if b.kind == "list_item")
    assert text.split("\n")[note.body_line + item.start_line] == "- item ^blk-1"
    assert item.block_id == "blk-1"


def test_a_new_entry_has_no_empty_sections() -> None:
    entry = Entry(title="Keys", raw_concept=RawConcept(author="agent:x, 2026-11-20T16:40:00Z"))
    text = render_entry(entry)
    assert text.endswith("# Keys\n\n## Raw Concept\n- Author: agent:x, 2026-11-20T16:40:00Z\n")
    for heading in ("## Relations", "## Narrative", "## Snippets"):
        assert heading not in text
    assert parse_note("a/b/keys.md", text).entry == entry
    with_code = render_entry(Entry(title="Keys", snippets=(Snippet("py", "rotate()"),)))
    assert with_code.endswith("# Keys\n\n## Snippets\n```py\nrotate()\n```\n")
