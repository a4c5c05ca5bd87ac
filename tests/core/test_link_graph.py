"""The link graph updated note by note says what a graph built afresh says, after any change."""

from __future__ import annotations

import random

from bridge.core.link_graph import LinkGraph
from bridge.core.relations import LinkResolver

FOLDERS = ["", "a/", "a/b/", "c/"]
NAMES = ["alpha", "Beta", "gamma", "delta", "eps"]


def _target(rng: random.Random) -> str:
    name = rng.choice([*NAMES, "nowhere"])
    return rng.choice(
        [
            name,
            name.lower(),
            f"{rng.choice(FOLDERS)}{name}",
            f"../{name}",
            f"{name}#Heading",
            f"{name}.md",
            "#only-a-heading",
            "a/..",
        ]
    )


def _fresh(notes: dict[str, list[str]]) -> LinkGraph:
    graph = LinkGraph()
    graph.build(notes, LinkResolver(notes))
    return graph


def _same(left: LinkGraph, right: LinkGraph) -> None:
    assert left.unresolved == right.unresolved
    assert left.edges() == right.edges()
    assert left.all_backlinks() == right.all_backlinks()


def test_incremental_updates_match_a_rebuild_after_every_random_change() -> None:
    rng = random.Random(11)
    notes: dict[str, list[str]] = {}
    for _ in range(30):
        path = f"{rng.choice(FOLDERS)}{rng.choice(NAMES)}{rng.randint(0, 2) or ''}.md"
        notes[path] = [_target(rng) for _ in range(rng.randint(0, 4))]
    graph = _fresh(notes)
    for _ in range(300):
        changed: dict[str, list[str] | None] = {}
        for _ in range(rng.randint(1, 3)):
            kind = rng.random()
            if kind < 0.3 and notes:  # deleted
                path = rng.choice(sorted(notes))
                notes.pop(path)
                changed[path] = None
            elif kind < 0.6:  # created, often with a name other links spell
                path = f"{rng.choice(FOLDERS)}{rng.choice([*NAMES, 'nowhere'])}.md"
                notes[path] = changed[path] = [_target(rng) for _ in range(rng.randint(0, 3))]
            elif notes:  # its links edited
                path = rng.choice(sorted(notes))
                notes[path] = changed[path] = [_target(rng) for _ in range(rng.randint(0, 4))]
        graph.update(changed, LinkResolver(notes))
        _same(graph, _fresh(notes))


def test_a_new_note_resolves_the_links_that_waited_for_its_name() -> None:
    notes: dict[str, list[str]] = {"one.md": ["Plan"], "two.md": ["work/PLAN", "other"]}
    graph = _fresh(notes)
    assert graph.unresolved == 3 and graph.backlinks("work/plan.md") == []
    notes["work/plan.md"] = []
    graph.update({"work/plan.md": []}, LinkResolver(notes))
    assert graph.unresolved == 1
    assert graph.backlinks("work/plan.md") == ["one.md", "two.md"]
    del notes["work/plan.md"]
    graph.update({"work/plan.md": None}, LinkResolver(notes))
    assert graph.unresolved == 3 and graph.backlinks("work/plan.md") == []
