"""The surgical frontmatter edit: one key changes, every other byte stays."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core import frontmatter as fm
from bridge.core.frontmatter import FrontmatterError, format_scalar, load, set_key, split

HAND_WRITTEN = """---
# the human's comment
title:   'Hand formatted'   # spaced
tags:
  - alpha
  - "beta"
status: draft   # set by me
created: 2026-01-05
updated: 2026-11-20T16:40:00+01:00
---
# Body
status: not frontmatter
"""


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.split("\n"), after.split("\n")
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_changing_one_key_changes_exactly_that_line() -> None:
    after = set_key(HAND_WRITTEN, "status", "stable")
    assert changed_lines(HAND_WRITTEN, after) == [
        ("status: draft   # set by me", "status: stable   # set by me")
    ]


def test_adding_a_key_appends_one_line_and_keeps_the_rest() -> None:
    after = set_key(HAND_WRITTEN, "author", "agent:claude-code")
    assert after.replace("author: agent:claude-code\n", "", 1) == HAND_WRITTEN
    assert load(split(after).yaml_text)["author"] == "agent:claude-code"


def test_multi_line_value_is_replaced_whole() -> None:
    after = set_key(HAND_WRITTEN, "tags", ["x"])
    assert "  - alpha" not in after
    meta = load(split(after).yaml_text)
    assert meta["tags"] == ["x"]
    assert meta["title"] == "Hand formatted"
    assert meta["created"] == dt.date(2026, 1, 5)


def test_note_without_frontmatter_gets_a_block_and_keeps_its_body() -> None:
    body = "# Plain\n\ntext\n"
    after = set_key(body, "status", "core")
    assert after == "---\nstatus: core\n---\n" + body


def test_crlf_and_bom_are_kept() -> None:
    text = "\ufeff---\r\ntitle: W\r\nstatus: draft\r\n---\r\nBody\r\n"
    after = set_key(text, "status", "core")
    assert after == "\ufeff---\r\ntitle: W\r\nstatus: core\r\n---\r\nBody\r\n"


def test_quoted_key_is_found() -> None:
    text = '---\n"status": draft\ntitle: x\n---\n'
    assert set_key(text, "status", "stable") == "---\nstatus: stable\ntitle: x\n---\n"


def test_malformed_yaml_is_refused() -> None:
    with pytest.raises(FrontmatterError, match="malformed YAML"):
        set_key("---\ntitle: [unclosed\n---\nbody\n", "status", "draft")


@pytest.mark.parametrize(
    ("yaml_text", "said"),
    [
        ("title: x\ntags: [a, b\nstatus: draft\n", "at line 3: a `[` list that is never closed"),
        ("a: 1\nb: {x: 1\nc: 2\n", "at line 3: a `{` mapping that is never closed"),
        ('title: x\nsummary: "open\nstatus: draft\n', "at line 3: a quoted value that is never"),
        ("title: a\n  bad: indent\n", "at line 3: mapping values are not allowed"),
    ],
)
def test_a_yaml_error_names_the_file_line_to_fix(yaml_text: str, said: str) -> None:
    """File lines, 1-based with the opening `---` as line 1; not where YAML gave up."""
    with pytest.raises(FrontmatterError, match="malformed YAML frontmatter") as caught:
        load(yaml_text)
    assert said in str(caught.value)


def test_non_mapping_frontmatter_is_refused() -> None:
    with pytest.raises(FrontmatterError, match="not a set of"):
        set_key("---\n- a\n- b\n---\nbody\n", "status", "draft")


@pytest.mark.parametrize(
    ("value", "spelled"),
    [
        ("stable", "stable"),
        ("agent:claude-code", "agent:claude-code"),
        ("a: b", '"a: b"'),
        ("yes", '"yes"'),
        ("123", '"123"'),
        ("# not a comment", '"# not a comment"'),
        (dt.datetime(2026, 11, 2, 9, 14, 5, 123, tzinfo=dt.UTC), "2026-11-02T09:14:05Z"),
        (["a", "b c"], "[a, b c]"),
        (None, "null"),
        (True, "true"),
        # Plain YAML as a person writes it: these were quoted.
        ("Tokens expire after 24 h; refresh tokens after 30 days.", None),
        ("Keys rotate yearly, on 1 January (UTC).", None),
        ("It's $29 per seat, 50% off the first year?", None),
        (["a, b", "c"], '["a, b", c]'),  # a comma inside a list item needs its quotes
        ("x #y", '"x #y"'),
        ("DEL \x7f", '"DEL \\u007f"'),  # quoted and escaped: YAML cannot print DEL
    ],
)
def test_scalars_are_spelled_like_a_person_would(value: object, spelled: str | None) -> None:
    written = format_scalar(value)
    assert written == (value if spelled is None else spelled)
    if not isinstance(value, dt.datetime):
        assert yaml.safe_load(f"k: {written}")["k"] == value  # and it reads back as itself


# The simple-frontmatter reader must give what the YAML parser gives, or step aside (None).
_PIECES = [
    "title",
    "tags",
    "a",
    "b c",
    "yes",
    "No",
    "null",
    "~",
    "true",
    "on",
    "12",
    "-3",
    "0x1F",
    "1_000",
    "1:30",
    "3.5",
    ".inf",
    ".5",
    "2026-07-16",
    "2026-02-30",
    "2026-07-16T22:50:33Z",
    "2026-07-16 22:50:33.5 +01:00",
    "'q'",
    '"q"',
    "x: y",
    "x:y",
    "a #c",
    "a#c",
    "#c",
    ":",
    "-",
    "- a",
    "?",
    "&a",
    "*a",
    "!t",
    "|",
    ">",
    "%",
    "@",
    "`",
    "[",
    "]",
    "{",
    "}",
    ",",
    "[a, b]",
    "[]",
    "[ ]",
    "[a,,b]",
    "[a, b,]",
    "[1, yes, x]",
    "[a, [b]]",
    "[a:b]",
    " ",
    "  ",
    "\t",
    "\r",
    "é",
    "中文",
    "\u00a0",
    "=",
    "<<",
    "...",
    "---",
    "http://x.y/z",
    "a  b",
    "It's",
]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["title", "tags", "k_1", "yes", "null", "x-y", " k", "k k", "#k"]),
            st.sampled_from([": ", ":", ":  ", ":\t", " : "]),
            st.lists(st.sampled_from(_PIECES), max_size=3).map("".join),
        ),
        min_size=1,
        max_size=4,
    )
)
@settings(max_examples=1000, deadline=None)
def test_simple_frontmatter_reads_as_yaml_does(lines: list[tuple[str, str, str]]) -> None:
    text = "\n".join(k + sep + v for k, sep, v in lines) + "\n"
    simple = fm._load_simple(text)
    if simple is None:
        return
    expected = fm._load_yaml(text)  # must not raise: the simple reader took it
    assert repr(simple) == repr(expected)  # repr tells True from 1 and a date from a string
