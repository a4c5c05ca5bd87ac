"""The pure guide: built-in example, outline bounds, ranking and the Markdown, from plain facts."""

from __future__ import annotations

from bridge.core.entry import parse_note
from bridge.core.maturity import Maturity, StatusMapping
from bridge.core.review_policy import ReviewPolicy
from bridge.guide.compose import GuideFacts, NoteFact, compose_guide, outline
from bridge.guide.example import BUILT_IN_PATH, built_in_example, example_flaws, example_order
from bridge.guide.render import render_guide


def test_the_built_in_example_is_a_valid_complete_entry() -> None:
    text = built_in_example(StatusMapping())
    note = parse_note(BUILT_IN_PATH, text)
    assert note.problems == ()
    assert note.entry.title == "Seat minimum" and note.entry.summary
    assert [r.target for r in note.entry.relations] == [
        "product/pricing/team_plan",
        "billing/cycle/renewal",
    ]
    assert note.entry.raw_concept.source and note.entry.narrative and note.entry.snippets
    assert example_flaws(BUILT_IN_PATH, text, StatusMapping()) == []


def test_example_flaws_name_what_is_missing() -> None:
    plain = "# Shopping\n\n- milk\n"
    flaws = example_flaws("a/b/shopping.md", plain, StatusMapping())
    assert "no `title` in the frontmatter" in flaws and "no relations under `## Relations`" in flaws
    broken = "---\ntitle: [unclosed\n---\n# X\n"
    assert any("a/b/x.md" in f for f in example_flaws("a/b/x.md", broken, StatusMapping()))
    good = built_in_example(StatusMapping())
    assert example_flaws("top.md", good, StatusMapping()) == [
        "not at domain/topic[/subtopic]/entry.md"
    ]


def test_example_order_prefers_importance_then_the_smaller_note() -> None:
    notes = [
        NoteFact("a/b/big.md", "Big", "core", 85.0, size=2000),
        NoteFact("a/b/small.md", "Small", "core", 85.04, size=900),
        NoteFact("a/b/draft.md", "Draft", "draft", 50.0, size=100),
    ]
    assert [n.path for n in example_order(notes)] == [
        "a/b/small.md",
        "a/b/big.md",
        "a/b/draft.md",
    ]


def test_an_empty_vault_gets_the_built_in_example_and_empty_lists() -> None:
    guide = compose_guide(GuideFacts(vault="empty", notes=[]))
    assert guide.example.source == "built_in" and guide.example.path == BUILT_IN_PATH
    assert parse_note(guide.example.path, guide.example.text).problems == ()
    assert guide.top == [] and guide.outline.folders == [] and not guide.outline.truncated
    text = render_guide(guide)
    assert "built-in example" in text and "(the vault has no notes yet)" in text


def test_outline_counts_every_depth_and_stays_bounded() -> None:
    paths = [
        f"d{i:02d}/t{k}/e{j}.md"
        for i in range(30)
        for k in range(3)
        for j in range((i + k) % 4 + 1)
    ]
    paths += ["a/b/c/d/deep.md", "root.md"]
    tree = outline(paths, max_depth=3, max_folders=60)
    assert tree.notes == len(paths) and tree.root_notes == 1
    assert tree.folders_total == 30 + 90 + 4  # d*, d*/t*, a, a/b, a/b/c, a/b/c/d
    assert tree.truncated and len(tree.folders) == 60
    listed = {f.path: f.notes for f in tree.folders}
    # Level by level: every domain first, then the biggest topics under them.
    assert sum(1 for p in listed if "/" not in p) == 31
    topics = [p for p in listed if p.count("/") == 1]
    assert len(topics) == 29
    smallest = min(listed[p] for p in topics)
    hidden = {f"d{i:02d}/t{k}" for i in range(30) for k in range(3)} - set(topics)
    assert all((i + k) % 4 + 1 <= smallest for i, k in ((int(h[1:3]), int(h[-1])) for h in hidden))
    assert listed["d00"] == 1 + 2 + 3  # counts include every depth
    # Parents come before their children, in path order.
    order = [f.path for f in tree.folders]
    assert order == sorted(order, key=lambda p: p.split("/"))
    small = outline(["a/b/c/d/deep.md"], max_depth=3)
    assert [f.path for f in small.folders] == ["a", "a/b", "a/b/c"] and small.truncated
    assert [f.notes for f in small.folders] == [1, 1, 1]


def test_top_entries_follow_importance_then_recency() -> None:
    notes = [
        NoteFact("x/y/old.md", "Old", "core", 85.0, recency=0.1),
        NoteFact("x/y/new.md", "New", "core", 85.0, recency=0.9),
        NoteFact("x/y/used.md", "Used", "stable", 91.0),
        NoteFact("x/y/low.md", "Low", "draft", 20.0),
    ]
    guide = compose_guide(GuideFacts(vault="v", notes=notes, summaries={"x/y/used.md": "S"}, top=3))
    assert [(e.path, e.importance) for e in guide.top] == [
        ("x/y/used.md", 91.0),
        ("x/y/new.md", 85.0),
        ("x/y/old.md", 85.0),
    ]
    assert guide.top[0].summary == "S"


def test_review_section_follows_the_policy() -> None:
    default = compose_guide(GuideFacts(vault="v", notes=[]))
    assert [r.rule for r in default.conventions.review] == [
        "stale_base",
        "delete",
        "merge",
        "update_human",
    ]
    strict = compose_guide(
        GuideFacts(vault="v", notes=[], policy=ReviewPolicy.of(["all"], list_high_impact=False))
    )
    assert [r.rule for r in strict.conventions.review] == ["all"]
    text = render_guide(strict)
    assert "- `all`: every operation. Why:" in text and "`impact: high`" not in text
    names = {Maturity.DRAFT: "wip", Maturity.VALIDATED: "ok", Maturity.CORE: "key"}
    renamed = compose_guide(GuideFacts(vault="v", notes=[], status_names=names))
    assert renamed.conventions.statuses == {"draft": "wip", "validated": "ok", "core": "key"}
    assert "new entries start `wip`" in render_guide(renamed)
