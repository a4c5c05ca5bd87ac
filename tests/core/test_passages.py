"""What the dense channel embeds: readable text, passages of a few blocks with their context."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from bridge.core.passages import (
    CARD,
    PassageBlock,
    card,
    note_lines,
    passage_key,
    passages,
    readable,
)


def test_readable_text_drops_what_obsidian_does_not_show() -> None:
    texts = [
        "%% ----- Badges ----- %%",
        "![downloads](https://img.shields.io/x.svg) see <span class='x'>the</span> docs",
        "- Read [the guide](https://example.org/guide) or [[notes/setup|Setup]] ^abc123",
        "plain words https://example.org/page and <!-- a hidden remark --> more",
    ]
    assert readable(texts) == [
        "",
        "see the docs",
        "Read the guide or Setup",
        "plain words and more",
    ]


def test_a_comment_may_span_blocks_and_an_unclosed_one_hides_the_rest() -> None:
    texts = ["before %% opens", "inside the comment", "closes %% after", "%% never closed", "gone"]
    assert readable(texts) == ["before", "", "after", "", ""]


def _blocks(*items: tuple[str, str]) -> list[PassageBlock]:
    return [PassageBlock(i, heading, text) for i, (heading, text) in enumerate(items)]


def test_a_short_note_is_one_passage_with_its_title_and_headings_as_context() -> None:
    blocks = _blocks(
        ("Sync", "Keep your vault the same on every device."),
        ("Sync > Mobile", "Install the app and log in."),
    )
    [only] = passages("Sync your notes", blocks)
    assert (only.first, only.last) == (0, 1)
    assert only.text == (
        "Sync your notes > Sync\nKeep your vault the same on every device.\nMobile\n"
        "Install the app and log in."
    )


def test_a_long_section_is_cut_between_blocks_and_each_part_keeps_its_context() -> None:
    blocks = _blocks(*[("Log", f"turn {i} " + "word " * 30) for i in range(10)])
    out = passages("Session 3", blocks, words=100)
    assert [(p.first, p.last) for p in out] == [(0, 2), (3, 5), (6, 8), (9, 9)]
    assert all(p.text.startswith("Session 3 > Log\n") for p in out)


def test_metadata_and_empty_blocks_belong_to_no_passage() -> None:
    blocks = [
        PassageBlock(0, "Relations", "[[billing/plans]] - renews tokens", metadata=True),
        PassageBlock(1, "Narrative", "%% template note %%"),
        PassageBlock(2, "Narrative", "Tokens renew at the end of the cycle."),
    ]
    [only] = passages("Billing", blocks)
    assert (only.first, only.last) == (2, 2)
    assert "renews tokens" not in only.text


def test_a_huge_note_is_bounded() -> None:
    blocks = _blocks(*[("", "word " * 50) for _ in range(1000)])
    assert len(passages("Log", blocks, words=100, most=8)) == 8


def test_equal_text_is_one_key_and_any_change_another() -> None:
    assert passage_key("a b") == passage_key("a b")
    assert passage_key("a b") != passage_key("a  b")
    assert len(passage_key("x")) == 16


@given(
    st.lists(
        st.tuples(st.sampled_from(["", "A", "A > B"]), st.text(min_size=0, max_size=80)),
        max_size=30,
    ),
    st.integers(min_value=1, max_value=60),
)
def test_passages_cover_blocks_in_order_without_overlap(
    items: list[tuple[str, str]], words: int
) -> None:
    out = passages("T", _blocks(*items), words=words)
    spans = [(p.first, p.last) for p in out]
    assert all(first <= last for first, last in spans)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))


def test_template_lines_are_left_out_but_code_and_callouts_are_kept_whole() -> None:
    template = frozenset({"Mobile compatible: Yes", "views:"})
    blocks = [
        PassageBlock(0, "Bases", "A base shows notes as a table.\nMobile compatible: Yes"),
        PassageBlock(1, "Bases", "```yaml\nviews:\n  - type: table\n```"),
        PassageBlock(2, "Bases", "> [!note]\n> views:\n> lists the views"),
    ]
    [found] = passages("Bases", blocks, boilerplate=template)
    assert "Mobile compatible" not in found.text  # a template line of many notes
    assert found.text.count("views:") == 2  # the page that explains it keeps its examples


def test_code_and_callouts_are_never_counted_as_a_template_line() -> None:
    lines = note_lines(["Intro line", "```yaml\nviews:\n```", "> [!tip]\n> Use views"])
    assert lines == {"Intro line"}


def test_a_card_is_the_title_and_what_the_note_says_it_is_about() -> None:
    blocks = [
        PassageBlock(0, "summary", "Tokens renew at the end of each billing cycle."),
        PassageBlock(1, "Auth > Relations", "[[billing]] - renews them", metadata=True),
        PassageBlock(2, "Auth", "A long narrative " + "word " * 100),
    ]
    about = card("Auth billing cycle", blocks, "summary")
    assert about is not None and about.first == about.last == CARD
    assert about.text == "Auth billing cycle\nTokens renew at the end of each billing cycle."
    # Without a summary: the first block of knowledge, cut to 48 words.
    plain = card("Auth", blocks[1:], "summary")
    assert plain is not None and plain.text.startswith("Auth\nA long narrative")
    assert len(plain.text.split()) == 1 + 48
