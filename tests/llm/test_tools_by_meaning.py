"""The model's own searches (tier 4's `search` tool, curation's related entries) find by
meaning as a person's question does: the real default encoder over the template's vectors."""

from __future__ import annotations

from bridge.llm.context import related_entries
from bridge.llm.tools import MemoryTools
from bridge.runtime import Bridge

ON_CALL = "team/practices/incidents/on_call.md"
# No word of the on-call note: the lexical searches alone do not put it first
# (tests/semantic/test_semantic_index.py checks that on the same vault).
PARAPHRASE = "who gets woken up at night when the site goes down?"


def _first_cited(text: str) -> str:
    return text.split("### @", 1)[1].split(" - ", 1)[0]


def test_the_search_tool_finds_a_note_said_in_other_words(embedded_bridge: Bridge) -> None:
    found = MemoryTools(embedded_bridge.engine, embedded_bridge.store).search(PARAPHRASE)
    assert _first_cited(found) == ON_CALL


def test_curation_sees_the_note_that_says_the_same_in_other_words(
    embedded_bridge: Bridge,
) -> None:
    content = f"Question from the team chat: {PARAPHRASE} Nobody knew who is paged."
    related = related_entries(embedded_bridge.engine, embedded_bridge.store, content, limit=3)
    assert [entry.path for entry in related][:1] == [ON_CALL]
