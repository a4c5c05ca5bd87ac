"""A cache never answers another question; a title finds its note; the tier tells the truth."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bridge.core.entry import Entry, render_entry
from bridge.runtime import Bridge
from tests.conftest import open_test_bridge, write_entries, write_notes

PEOPLE = {
    "gina": ("Gina", "contemporary", "She has danced contemporary since her teens."),
    "jon": ("Jon", "salsa", "He teaches salsa at his studio on Fridays."),
    "melanie": ("Melanie", "ballet", "Ballet keeps her calm after long weeks."),
}


@pytest.fixture
def people(tmp_path: Path) -> Iterator[Bridge]:
    """Three people with one favourite dance each, in a vault big enough for OOD rules."""
    vault = tmp_path / "vault"
    vault.mkdir()
    write_entries(vault, 60)
    for key, (name, dance, story) in PEOPLE.items():
        entry = Entry(
            title=f"{name} and dancing",
            narrative=f"{name}'s favorite style of dance is {dance}. {story}",
        )
        path = vault / "people" / key / "dance.md"
        path.parent.mkdir(parents=True)
        path.write_text(render_entry(entry))
    bridge = open_test_bridge(vault, tmp_path / "state")
    yield bridge
    bridge.close()


def _fresh(bridge: Bridge, text: str) -> list[str]:
    return [s.path for s in bridge.engine.search(text).sources]


def test_a_name_swap_is_another_question(people: Bridge) -> None:
    engine = people.engine
    gina = engine.query("What is Gina's favorite style of dance?")
    assert gina.sources[0].path == "people/gina/dance.md"
    jon = engine.query("What is Jon's favorite style of dance?")  # Jaccard 0.6 with Gina's
    assert jon.tier not in {0, 1}
    assert jon.sources[0].path == "people/jon/dance.md"
    assert "salsa" in jon.sources[0].excerpt and "contemporary" not in jon.sources[0].excerpt


def test_a_topic_word_swap_is_another_question(people: Bridge) -> None:
    engine = people.engine
    engine.query("replication lag postgres primary replicas")
    swapped = "eviction lag postgres primary replicas"  # a word the vault knows
    other = engine.query(swapped)
    assert other.tier not in {0, 1}
    assert [s.path for s in other.sources] == _fresh(people, swapped)


def test_a_stop_word_variant_is_the_same_question(people: Bridge) -> None:
    engine = people.engine
    first = engine.query("replication lag of the postgres primary")
    variant = engine.query("what is the replication lag on a postgres primary?")
    assert variant.tier == 1
    assert variant.sources == first.sources
    assert variant.query_id != first.query_id


def test_an_unknown_extra_word_is_the_same_question_a_misspelt_known_one_is_not(
    people: Bridge,
) -> None:
    engine = people.engine
    first = engine.query("replication lag postgres primary replicas")
    padded = engine.query("replication lag postgres primary replicas zorblaxian")
    assert padded.tier == 1 and padded.sources == first.sources
    # "replicaton" matches no note, but the word it replaces does: retrieval would differ.
    misspelt = "replicaton lag postgres primary replicas"
    typo = engine.query(misspelt)
    assert typo.tier not in {0, 1}
    assert [s.path for s in typo.sources] == _fresh(people, misspelt)


def test_an_unknown_word_that_would_make_the_question_ood_is_not_served_from_cache(
    people: Bridge,
) -> None:
    """Unknown words change only the out-of-domain inputs; the route must come out the same."""
    engine = people.engine
    base = "salsa teaches fridays studio"
    first = engine.query(base)
    assert not first.ood
    padded = engine.query(base + " quuxfrobnicate blorptastic wibblewobble")
    fresh = engine.search(base + " quuxfrobnicate blorptastic wibblewobble")
    if padded.tier == 1:  # only when the out-of-domain rule agrees
        assert padded.ood == first.ood
        assert [s.path for s in padded.sources] == [s.path for s in fresh.sources]


@contextmanager
def notes_bridge(tmp_path: Path, notes: dict[str, str]) -> Iterator[Bridge]:
    """A bridge on a vault holding just these notes (path -> text)."""
    vault = write_notes(tmp_path / "vault", notes)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        yield bridge
    finally:
        bridge.close()


def test_a_note_is_found_by_its_title_alone(tmp_path: Path) -> None:
    notes = {
        "travel/trip.md": "# Zanzibar\n\nWe stayed three nights and took the ferry back on "
        "Tuesday.\n",
        "travel/other.md": "# Lisbon\n\nTrams and custard tarts.\n",
    }
    with notes_bridge(tmp_path, notes) as bridge:
        found = bridge.engine.search("Zanzibar")
        assert [s.path for s in found.sources] == ["travel/trip.md"]
        assert "ferry back on Tuesday" in found.sources[0].excerpt
        answered = bridge.engine.query("zanzibar")
        assert answered.sources and answered.sources[0].path == "travel/trip.md"


@pytest.mark.parametrize(
    ("handbook", "question", "text", "heading"),
    [
        (
            "# Handbook\n\n## Parking\n\nSpaces are on level two.\n\n"
            "## Kettle etiquette\n\nRefill it when you empty it.\n",
            "kettle etiquette",
            "Refill it when you empty it.",
            "Kettle etiquette",
        ),
        # Chinese headings are matched by their character pairs, as Chinese text is.
        (
            "# 员工手册\n\n## 停车\n\n车位在二楼。\n\n## 茶水间规矩\n\n用完水壶请加满。\n",
            "茶水间规矩",
            "用完水壶请加满。",
            "茶水间规矩",
        ),
    ],
    ids=["english", "chinese"],
)
def test_a_heading_match_shows_the_block_under_that_heading(
    tmp_path: Path, handbook: str, question: str, text: str, heading: str
) -> None:
    with notes_bridge(tmp_path, {"handbook.md": handbook}) as bridge:
        found = bridge.engine.search(question)
        assert found.sources[0].path == "handbook.md"
        block = found.sources[0].blocks[0]
        assert block.text == text
        assert block.heading.endswith(heading)


def test_a_title_match_shows_knowledge_not_a_relation_line(tmp_path: Path) -> None:
    """A note found by its title alone leads with its first block of knowledge."""
    notes = {
        "lisbon.md": "# Lisbon\n\nTrams and custard tarts.\n",
        "trip.md": "# Zanzibar\n\n## Relations\n\n- [[lisbon]] the trip before\n\n"
        "## Days\n\nWe took the ferry back on Tuesday.\n",
    }
    with notes_bridge(tmp_path, notes) as bridge:
        found = bridge.engine.search("zanzibar")
        assert found.sources[0].path == "trip.md"
        assert found.sources[0].blocks[0].text == "We took the ferry back on Tuesday."
