"""A note's properties are read through python-frontmatter, with the bridge's own YAML step."""

from __future__ import annotations

import datetime as dt

import frontmatter
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core import frontmatter as fm
from bridge.core.entry import parse_note
from bridge.core.properties import HANDLER, NoteHandler, read

# Pieces of notes: fences (closed by `---` or `...`, a run of dashes that is no fence), line
# endings, a byte order mark, blank first lines, simple and YAML-only values, impossible dates.
_FIRST = ["", "\ufeff", "\n", " "]
_FENCE = ["---\n", "---\r\n", "--- \n", "----\n"]
_LINES = [
    "title: A\n",
    "title: A\r\n",
    "tags: [a, b]\n",
    "created: 2026-02-30\n",
    "updated: 2026-07-16T22:50:33Z\n",
    "n: 12\n",
    "q: 'quoted # not a comment'\n",
    "list:\n  - x\n  - 'y'\n",
    "# a comment\n",
    "----\n",
    "\n",
]
_CLOSE = ["---\n", "...\n", "---", "--- \r\n", ""]
_BODY = ["", "# Body\n", "\n---\nkey: later\n---\n", "text\r\n"]


@st.composite
def notes(draw: st.DrawFn) -> str:
    return (
        draw(st.sampled_from(_FIRST))
        + draw(st.sampled_from(_FENCE))
        + "".join(draw(st.lists(st.sampled_from(_LINES), max_size=5)))
        + draw(st.sampled_from(_CLOSE))
        + draw(st.sampled_from(_BODY))
    )


def _bridge_reading(text: str) -> dict[str, object] | str:
    """What the bridge reads from a note without python-frontmatter: its block, its loader."""
    parts = fm.split(text)
    try:
        return fm.load(parts.yaml_text) if parts.has_block else {}
    except fm.FrontmatterError as exc:
        return type(exc).__name__


def _read(text: str) -> dict[str, object] | str:
    try:
        return read(text)
    except fm.FrontmatterError as exc:
        return type(exc).__name__


@given(notes())
@settings(max_examples=500, deadline=None)
def test_reading_through_python_frontmatter_finds_what_the_bridge_splits(text: str) -> None:
    """The library finds the block where Obsidian does (a `---` first line, closed by `---` or
    `...`), never a run of dashes, and the YAML step is the bridge's own."""
    assert repr(_read(text)) == repr(_bridge_reading(text))
    if not text[:1].isspace():  # the library strips a note before it reads it
        try:
            post = frontmatter.loads(text, handler=HANDLER)
        except fm.FrontmatterError as exc:
            assert _read(text) == type(exc).__name__
        else:
            assert repr(post.metadata) == repr(_read(text))


def test_an_impossible_date_stays_text_where_the_librarys_own_handler_fails() -> None:
    text = "---\ntitle: Plan\ncreated: 2026-02-30\n---\n# Plan\n"
    with pytest.raises(ValueError):
        frontmatter.loads(text)  # the stock YAML handler builds the date and crashes
    post = frontmatter.loads(text, handler=NoteHandler())
    assert post.metadata == {"title": "Plan", "created": "2026-02-30"}
    assert read(text) == post.metadata
    assert parse_note("plan.md", text).frontmatter == post.metadata


def test_an_alias_bomb_is_refused_through_the_library() -> None:
    chain = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n"
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    text = f"---\n{chain}---\n# Bomb\n"
    with pytest.raises(fm.FrontmatterTooComplexError):
        frontmatter.loads(text, handler=HANDLER)
    note = parse_note("bomb.md", text)
    assert note.frontmatter == {} and [p.code for p in note.problems] == ["yaml_too_complex"]


def test_the_handler_reads_and_never_writes() -> None:
    """Writing never re-serialises a block (`set_key` edits one key's lines)."""
    post = frontmatter.loads("---\ncreated: 2026-01-05\n---\n", handler=HANDLER)
    assert post.metadata == {"created": dt.date(2026, 1, 5)}
    with pytest.raises(NotImplementedError, match="set_key"):
        frontmatter.dumps(post)
