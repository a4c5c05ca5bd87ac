"""The pure part: computing overviews, rendering the region, and replacing only the region."""

from __future__ import annotations

import pytest

from bridge.core.overview import (
    CLOSE_MARKER,
    EMPTY_LINE,
    OPEN_MARKER,
    FolderOverview,
    MarkerError,
    NoteFacts,
    OverviewEntry,
    Subfolder,
    clean_folder,
    compute_overviews,
    locate_region,
    render_region,
    replace_region,
)

HUMAN_ABOVE = "---\ntitle: Auth\n---\n# Auth\n\nWritten by a person.  \nTrailing spaces stay.\n\n"
HUMAN_BELOW = "\n## Notes\n\nMore human text, no final newline"
REGION = "- [[a/b|B]] — new (draft)\n"


def note(before: str = HUMAN_ABOVE, inside: str = "- old line\n", after: str = HUMAN_BELOW) -> str:
    return f"{before}{OPEN_MARKER}\n{inside}{CLOSE_MARKER}\n{after}"


def test_only_the_region_changes_and_every_byte_around_it_stays() -> None:
    text = note()
    new = replace_region(text, REGION)
    assert new == note(inside=REGION)
    head = HUMAN_ABOVE + OPEN_MARKER + "\n"
    tail = CLOSE_MARKER + "\n" + HUMAN_BELOW
    assert new is not None and new.startswith(head) and new.endswith(tail)


def test_a_crlf_note_stays_crlf_and_keeps_its_bom() -> None:
    before = "\ufeff---\r\ntitle: Win\r\n---\r\n# Win\r\n\r\nHuman text.\r\n\r\n"
    after = "\r\nAfter.\r\n"
    text = f"{before}{OPEN_MARKER}\r\n- old\r\n{CLOSE_MARKER}\r\n{after}"
    new = replace_region(text, "- one\n- two\n")
    assert new == f"{before}{OPEN_MARKER}\r\n- one\r\n- two\r\n{CLOSE_MARKER}\r\n{after}"
    assert new is not None and new.encode("utf-8").startswith(b"\xef\xbb\xbf---\r\n")
    assert "\n" not in new.replace("\r\n", "")  # no bare LF was introduced


def test_replacing_is_idempotent_and_an_unchanged_region_gives_the_same_text() -> None:
    once = replace_region(note(), REGION)
    assert once is not None
    assert replace_region(once, REGION) == once


def test_markers_inside_a_code_fence_are_an_example_not_a_region() -> None:
    about = (
        "# How overviews work\n\nPut these two lines in your `_index.md`:\n\n"
        f"```markdown\n{OPEN_MARKER}\n{CLOSE_MARKER}\n```\n\n~~~~\n{OPEN_MARKER}\n~~~~\n"
    )
    assert locate_region(about) is None
    assert replace_region(about, REGION) is None
    # A real region after such an example is found, and the example is left alone.
    both = about + note(before="\n")
    new = replace_region(both, REGION)
    assert new is not None and new.startswith(about) and REGION in new
    assert new.count(OPEN_MARKER) == 3


def test_markers_in_frontmatter_indented_code_or_mid_line_are_not_markers() -> None:
    frontmatter = f"---\ncomment: '{OPEN_MARKER}'\n---\n# T\n"
    assert locate_region(frontmatter) is None
    indented = f"Text\n\n    {OPEN_MARKER}\n    {CLOSE_MARKER}\n"
    assert locate_region(indented) is None
    inline = f"Use `{OPEN_MARKER}` and `{CLOSE_MARKER}` in a sentence.\n"
    assert locate_region(inline) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f"{OPEN_MARKER}\n- x\n", "0 closing"),
        (f"- x\n{CLOSE_MARKER}\n", "0 opening"),
        (f"{OPEN_MARKER}\n{OPEN_MARKER}\n{CLOSE_MARKER}\n", "2 opening"),
        (note() + note(), "2 opening"),
        (f"{CLOSE_MARKER}\n- x\n{OPEN_MARKER}\n", "before the opening"),
        (f"{CLOSE_MARKER}\n{OPEN_MARKER}", "last line"),
    ],
)
def test_unbalanced_or_duplicated_markers_are_refused_not_guessed(text: str, why: str) -> None:
    with pytest.raises(MarkerError, match=why):
        locate_region(text)
    assert replace_region(text, REGION) is None


def test_no_markers_at_all_is_none() -> None:
    assert locate_region("# Plain\n\n- a list\n") is None
    assert replace_region("# Plain\n", REGION) is None


FACTS = [
    NoteFacts("Welcome.md", "Welcome"),
    NoteFacts("_index.md", "Root index"),
    NoteFacts("eng/_index.md", "Engineering"),
    NoteFacts("eng/auth/zeta.md", "Zeta", "Last by title.", "stable"),
    NoteFacts("eng/auth/alpha.md", "alpha", "First by title.", "draft"),
    NoteFacts("eng/auth/_index.md", "Auth"),
    NoteFacts("eng/auth/oauth/sso.md", "SSO", "", None),
    NoteFacts("eng/deploy/ci/pipeline.md", "Pipeline", "CI.", "core"),
    NoteFacts("journal/2026-11-20.md", "2026-11-20"),
]


def test_overviews_list_notes_by_title_and_count_subfolders_recursively() -> None:
    overviews = compute_overviews(FACTS)
    assert sorted(overviews) == [
        "",
        "eng",
        "eng/auth",
        "eng/auth/oauth",
        "eng/deploy",
        "eng/deploy/ci",
        "journal",
    ]
    root = overviews[""]
    assert root.index == "_index.md"
    assert [e.path for e in root.entries] == ["Welcome.md"]  # the root's own index is not listed
    assert [(s.name, s.entries, s.index) for s in root.subfolders] == [
        ("eng", 4, "eng/_index.md"),
        ("journal", 1, None),
    ]
    auth = overviews["eng/auth"]
    assert [e.title for e in auth.entries] == ["alpha", "Zeta"]  # case-insensitive title order
    assert auth.entries[0] == OverviewEntry(
        "eng/auth/alpha.md", "alpha", "First by title.", "draft"
    )
    assert [(s.name, s.entries) for s in auth.subfolders] == [("oauth", 1)]
    assert overviews["eng"].entries == ()
    assert [(s.name, s.entries, s.index) for s in overviews["eng"].subfolders] == [
        ("auth", 3, "eng/auth/_index.md"),
        ("deploy", 1, None),
    ]


def test_only_the_folders_asked_for_are_built_and_an_empty_one_is_empty() -> None:
    overviews = compute_overviews(FACTS, {"eng/auth", "nowhere"})
    assert sorted(overviews) == ["eng/auth", "nowhere"]
    assert overviews["nowhere"] == FolderOverview("nowhere")
    assert render_region(overviews["nowhere"]) == EMPTY_LINE + "\n"


def test_the_region_links_entries_and_indexed_subfolders_and_nests_the_others() -> None:
    overviews = compute_overviews(FACTS)
    assert render_region(overviews["eng"], overviews) == (
        "- [[eng/auth/_index|auth/]] (3 entries)\n"
        "- deploy/ (1 entry)\n"
        "  - ci/ (1 entry)\n"
        "    - [[eng/deploy/ci/pipeline|Pipeline]] (core)\n"
    )
    assert render_region(overviews["eng/auth"], overviews) == (
        "- oauth/ (1 entry)\n"
        "  - [[eng/auth/oauth/sso|SSO]]\n"
        "- [[eng/auth/alpha|alpha]] — First by title. (draft)\n"
        "- [[eng/auth/zeta|Zeta]] — Last by title. (stable)\n"
    )
    # Without the nested overviews, a subfolder is its line alone.
    assert render_region(overviews["eng"]) == (
        "- [[eng/auth/_index|auth/]] (3 entries)\n- deploy/ (1 entry)\n"
    )


def test_rendering_is_deterministic_whatever_order_the_facts_come_in() -> None:
    forward = compute_overviews(FACTS)
    backward = compute_overviews(reversed(FACTS))
    assert forward == backward
    assert render_region(forward[""], forward) == render_region(backward[""], backward)


def test_titles_and_summaries_cannot_break_the_links_or_the_region() -> None:
    hostile = FolderOverview(
        "a",
        (
            OverviewEntry("a/x.md", "A | B ]] [[c", f"two\nlines {CLOSE_MARKER} <!-- x", None),
            OverviewEntry("a/C# tips.md", "C# tips", "", "stable"),
        ),
        (Subfolder("s|t", "a/s|t", 1),),
    )
    region = render_region(hostile)
    assert "[[a/x|A - B )) ((c]]" in region
    assert "two lines &lt;!-- /vault-bridge:overview --> &lt;!-- x" in region
    assert "- C# tips (`a/C# tips.md`) (stable)" in region  # Obsidian cannot link `#` names
    text = replace_region(note(), region)
    assert text is not None and locate_region(text) is not None
    assert replace_region(text, region) == text


def test_the_folder_argument_stays_inside_the_vault() -> None:
    assert clean_folder(" eng/auth/ ") == "eng/auth"
    assert clean_folder("") == ""
    bad_ones = ("../x", "a/../b", "a\\b", ".obsidian", "a//b", "\x00", "a/b\nc", "/etc", "~/x")
    for bad in bad_ones:
        with pytest.raises(ValueError):
            clean_folder(bad)
