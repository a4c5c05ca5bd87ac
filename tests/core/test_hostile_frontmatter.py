"""Frontmatter a person (or an attacker) can write must never hang, blow up or crash a command."""

from __future__ import annotations

import pytest

from bridge.core import frontmatter as fm
from bridge.core.entry import parse_note

ALIAS_BOMB = (
    "a: &a [x,x,x,x,x,x,x,x,x]\n"
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "status: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
)


def test_an_alias_chain_is_refused_before_it_expands_and_the_note_is_read_as_text() -> None:
    # 9**8 (43 million) values if expanded: the loader refuses the node graph, where each alias
    # is one shared node, on its size limit, and never builds a value.
    limit = f"expands to more than {fm.MAX_YAML_VALUES:,} values"
    with pytest.raises(fm.FrontmatterTooComplexError, match=limit):
        fm.load(ALIAS_BOMB)
    note = parse_note("bomb.md", f"---\n{ALIAS_BOMB}---\n# Bomb\n\nstill findable words\n")
    assert [p.code for p in note.problems] == ["yaml_too_complex"]
    assert note.problems[0].blocks_writes
    assert "still findable words" in note.body and note.frontmatter == {}


@pytest.mark.parametrize(
    "yaml_text",
    ["a: &a [*a]\n", "x: " + "[" * 60 + "]" * 60 + "\n", "k: " + "v" * 300_000 + "\n"],
    ids=["recursive", "deep", "huge"],
)
def test_other_shapes_over_the_limits_are_refused(yaml_text: str) -> None:
    with pytest.raises(fm.FrontmatterError):
        fm.load(yaml_text)


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("created: 2026-02-30", "2026-02-30"),
        ("created: 2026-13-01", "2026-13-01"),
        ("created: 2026-01-01 25:00:00", "2026-01-01 25:00:00"),
        ("created: 0000-01-01", "0000-01-01"),
    ],
)
def test_impossible_dates_are_kept_as_text_and_reported(line: str, kept: str) -> None:
    assert fm.load(line)["created"] == kept
    note = parse_note("d.md", f"---\ntitle: D\n{line}\n---\n# D\n")
    assert note.entry.created is None
    problem = next(p for p in note.problems if p.code == "bad_value")
    assert "not a date" in problem.message and not problem.blocks_writes


def test_a_5000_digit_number_is_kept_as_text() -> None:
    digits = "9" * 5000
    assert fm.load(f"n: {digits}") == {"n": digits}


def test_a_status_that_is_not_a_word_blocks_writes() -> None:
    note = parse_note("s.md", "---\nstatus: [core, draft]\n---\n# S\n")
    assert note.entry.status is None
    assert [p.code for p in note.problems] == ["bad_value"] and note.problems[0].blocks_writes


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: a\nstatus: draft\n---\n# A\r\nbody\r\n",  # LF frontmatter, CRLF body
        "---\ntitle: a\n---\n# A\r\nbody\n",  # the key is missing: added with LF
        "---\r\ntitle: a\r\nstatus: draft\r\n---\r\nbody\r\n",
        "---\r\ntitle: a\r\n---\r\nbody\r\n",
    ],
)
def test_the_status_edit_takes_the_line_ending_of_the_frontmatter_itself(text: str) -> None:
    out = fm.set_key(text, "status", "stable")
    newline = "\r\n" if text.startswith("---\r\n") else "\n"
    parts = fm.split(out)
    assert fm.load(parts.yaml_text) == {**fm.load(fm.split(text).yaml_text), "status": "stable"}
    assert f"status: stable{newline}---{newline}" in out
    assert out.count("status:") == 1
    assert parts.body == fm.split(text).body  # the body keeps every byte
