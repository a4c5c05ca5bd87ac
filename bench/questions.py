"""Fresh questions about a vault's own notes, for benchmarks that must not hit the caches.

A load test that replays a handful of questions measures the exact cache (tier 0), not the
engine. These questions are what a person would type about one note: most of its title (the
words they remember) plus one word its body holds and few other notes do (the detail they are
after), in a few phrasings. No two questions have the same search terms (the bridge's own
analyzer decides), so neither cache can answer one: tier 0 needs the same text, and tier 1
refuses a question whose differing words the vault holds (docs/query.md), which every title
and body word here is. Deterministic for a given vault and seed.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bridge.core.text import normalise_query
from bridge.index.analysis import query_terms

# How people ask about a note they half remember; {title} is most of its title, {word} the
# detail. Kept short: a long template adds common words that match every note.
TEMPLATES = (
    "{title} {word}",
    "what does {title} say about {word}",
    "how is {word} used in {title}",
    "{title}: what about {word}?",
    "where does {word} come up in {title}",
    "{word} in {title}",
)
# A note's distinctive words: the rarest in the vault of its body's words, held by at most this
# share of the notes, and at most WORDS_PER_NOTE of them (the detail a person asks about, not
# every word of the note).
MAX_NOTE_SHARE = 0.02
WORDS_PER_NOTE = 8
_WORD = re.compile(r"\b[A-Za-z][a-z]{4,}\b")  # plain words; identifiers are not typed from memory
_RELATIONS = re.compile(r"^## Relations\n.*?(?=^#|\Z)", re.MULTILINE | re.DOTALL)
_SKIP_PARTS = {".obsidian", ".trash", "templates"}


@dataclass(frozen=True)
class Question:
    """One question and the note it was written about."""

    text: str
    path: str


@dataclass(frozen=True)
class _Note:
    path: str
    title_words: tuple[str, ...]
    body_words: Counter[str]  # word -> times in the body


def _read_note(vault: Path, file: Path) -> _Note | None:
    """Title and body words of a note, or None when it has no usable (Latin-script) title."""
    text = file.read_text(encoding="utf-8", errors="replace")
    title = ""
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0:
            for line in text[4:end].splitlines():
                if line.startswith("title:"):
                    title = line[6:].strip().strip("'\"")
            body = text[end + 4 :]
    # Without a `title` property the note's title is its file name, as Obsidian shows it.
    title = title or file.stem.replace("-", " ").replace("_", " ")
    words = tuple(w.lower() for w in title.split())
    if not words or not all(w.isascii() and any(c.isalpha() for c in w) for w in words):
        return None  # CJK titles have no words to type this way
    # A relation's reason line describes the other note: its words would ask about that one.
    body = _RELATIONS.sub("", body)
    body_words = Counter(w.lower() for w in _WORD.findall(body))
    for word in words:
        del body_words[word]  # the title is already in the question
    return _Note(file.relative_to(vault).as_posix(), words, body_words)


def _notes(vault: Path) -> list[_Note]:
    notes = []
    for file in sorted(vault.rglob("*.md")):
        if _SKIP_PARTS.intersection(file.relative_to(vault).parts) or file.name == "_index.md":
            continue
        note = _read_note(vault, file)
        if note is not None:
            notes.append(note)
    return notes


def _phrase(rng: random.Random, note: _Note, word: str) -> str:
    """A question about `note` asking after `word`, in one of the templates."""
    title = list(note.title_words)
    if len(title) >= 4 and rng.random() < 0.5:
        # People rarely type a long title whole: drop one of its words.
        del title[rng.randrange(len(title))]
    template = rng.choice(TEMPLATES)
    return template.format(title=" ".join(title), word=word)


def vault_questions(vault: Path, count: int, seed: int = 13) -> list[Question]:
    """`count` different questions about the vault's notes, in a shuffled order.

    They are drawn pass by pass: each note's rarest word (notes in random order), then its
    second rarest, and so on, so the notes are covered evenly and a small count gets the
    clearest questions. Raises ValueError when the vault cannot give `count`
    different questions: a repeat would be a tier 0 answer, and a benchmark of fresh questions
    must not quietly contain one.
    """
    rng = random.Random(seed)
    notes = _notes(vault)
    spread = Counter(w for note in notes for w in note.body_words)
    most = max(2, round(len(notes) * MAX_NOTE_SHARE))
    # Per note, its distinctive words, best first: the pool each pass takes one from.
    pools: list[tuple[_Note, list[str]]] = []
    for note in notes:
        # Rarest first; among equally rare words, the one the note says most.
        ranked = sorted(
            (spread[w], -tf, w) for w, tf in note.body_words.items() if spread[w] <= most
        )
        words = [w for _, _, w in ranked[:WORDS_PER_NOTE]]
        if words:
            pools.append((note, words))
    rng.shuffle(pools)
    seen: set[frozenset[str]] = set()
    out: list[Question] = []
    for question in _passes(rng, pools):
        # The search terms, not the text: "X: what about Y?" and "Y in X" are one question.
        key = query_terms(normalise_query(question.text)).token_set()
        if key in seen:
            continue
        seen.add(key)
        out.append(question)
        if len(out) == count:
            # Every slice of the list gets the same mix of rarer and commoner words, so the
            # steps of a sweep that take consecutive slices ask equally hard questions.
            rng.shuffle(out)
            return out
    raise ValueError(f"the vault gives {len(out)} different questions, {count} were asked for")


def _passes(rng: random.Random, pools: list[tuple[_Note, list[str]]]) -> Iterator[Question]:
    """Round-robin over the notes, one distinctive word of each per pass, until all are used."""
    depth = 0
    while True:
        produced = False
        for note, words in pools:
            if depth < len(words):
                produced = True
                yield Question(_phrase(rng, note, words[depth]), note.path)
        if not produced:
            return
        depth += 1
