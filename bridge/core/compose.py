"""Tier-2 answers composed for reading: the sentences that answer, in the note's own order.

The first direct answers were the top note's best blocks in score order. Read by a person they
were a jumble: a code snippet first, then relation lines and `Author: agent:cli, ...`; the
rollback question opened with what to post after a rollback rather than how to roll back.
A block is the unit that *finds* a note; a sentence or a list item is the unit a person reads.

So the answer is composed from the best note(s): their knowledge blocks are cut into sentences
and list items; each is worth the query terms it carries (weighted by how rare each term is);
the best are kept within `max_words`, then put back in the note's reading order under the
heading they sit under, and each part cites its note as a wikilink. Metadata never enters
(Relations and Raw Concept sections; the frontmatter is not a block at all), and a code block
only when the question names an identifier written in it.

Pure: the caller hands over the blocks, the analyzer and the term weights.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from bridge.core.entry import METADATA_SECTIONS
from bridge.core.markdown import excerpt_text
from bridge.core.text import STOP_WORDS, word_count

# Entry-format section names say nothing to a reader: a part under them shows no heading.
PLAIN_SECTIONS = frozenset({"narrative", "snippets", "notes", "raw concept", "relations"})
CODE_SECTIONS = frozenset({"snippets"})
# A piece worth less than this share of the best piece is left out even when words remain:
# "Tokens are signed with RS256." carries "token" but does not answer how long tokens live.
MIN_SHARE = 0.4
# The next sentence of a paragraph gets this share of its predecessor's worth (see
# `_with_context`); the opening paragraph of a note gets this share of what its title carries.
CONTEXT_SHARE = 0.3
LEAD_SHARE = 0.5
# A piece of a block the retrieval ranked at the top is worth up to this much more.
RANK_SHARE = 1.0
# A piece of the note's passage closest in meaning is worth this share of the question's
# rarest word, words or none: "who gets woken up at night?" is answered by "the on-call
# engineer is paged", which shares none of its words. From a passage at least `MEANING_FLOOR`
# of the way to the closest, a block's pieces are weighed even without a question word.
MEANING_SHARE = 0.6
MEANING_FLOOR = 0.75

# A sentence ends at . ! ? (optionally closed by a quote or bracket) followed by a space and an
# upper-case letter, digit, quote or bracket; "e.g. the", "v1.2" and "24 h; refresh" stay whole.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[*_`])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|Dr|Mr|Mrs|Ms|St|No|approx)\.$", re.I)
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_QUOTE_MARKER = re.compile(r"^[ \t]{0,3}>[ \t]?")
_CALLOUT = re.compile(r"^\[![\w-]+\][+-]?[ \t]*")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


@dataclass(frozen=True)
class NoteText:
    """One candidate note: where it is, what it is called, and its blocks in reading order."""

    path: str
    title: str
    blocks: Sequence[tuple[str, str]]  # (heading path "A > B", raw block text), in order
    # How the retrieval ranked each block (0 to 1, by block index; absent: not ranked). The
    # ranker knows what words alone do not: neighbours, windows, the speaker named.
    ranked: Mapping[int, float] = field(default_factory=dict)
    # How close each block's passage is to the question in meaning (0 to 1 within the note,
    # by block index; absent: not embedded): a sentence can answer in other words.
    meaning: Mapping[int, float] = field(default_factory=dict)
    # A block's own id (`^d1-3`, a transcript turn's), by block index: what a citation links.
    block_ids: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Unit:
    note: int
    block: int
    index: int  # position of the sentence within its block
    heading: str
    text: str
    kind: str  # "sentence", "item", "row" or "code"
    words: int
    score: float


@dataclass
class AnswerPart:
    """Consecutive pieces of one note under one heading, and the note they cite."""

    path: str
    title: str
    heading: str
    lines: list[str] = field(default_factory=list)
    block_id: str | None = None  # the first quoted block's id, when it has one


def compose_answer(
    query: str,
    query_words: Iterable[str],
    weights: Mapping[str, float],
    notes: Sequence[NoteText],
    analyze: Callable[[str], list[str]],
    max_words: int,
) -> list[AnswerPart]:
    """The parts of a readable answer, in reading order; empty when nothing carries a term.

    `query_words` are the query's analysed terms, `weights` how much each is worth (IDF);
    notes come best first, and a tie between pieces goes to the better note.
    """
    wanted = frozenset(query_words)
    if not wanted or not notes:
        return []
    named = named_identifiers(query)
    rarest = max((weights.get(t, 0.0) for t in wanted), default=0.0)
    units: list[_Unit] = []
    for n, note in enumerate(notes):
        # A note whose title carries the question's words is about it: its opening paragraph
        # answers "how do I set up..." even when the steps repeat none of the words.
        about = sum(weights.get(t, 0.0) for t in wanted & set(analyze(note.title)))
        lead = True
        for b, (heading, text) in enumerate(note.blocks):
            # A block without a query term gives pieces worth nothing (only the opening one
            # can gain from the title, or one close in meaning): those are not cut at all,
            # most blocks of a long note.
            close = note.meaning.get(b, 0.0)
            keep_silent = (lead and about > 0) or close >= MEANING_FLOOR
            found = _units(n, b, heading, text, wanted, weights, named, analyze, keep_silent)
            rank = note.ranked.get(b, 0.0)
            if rank:
                found = [replace(u, score=u.score * (1.0 + RANK_SHARE * rank)) for u in found]
            if close > 0:
                bonus = MEANING_SHARE * rarest * close
                found = [replace(u, score=u.score + bonus) for u in found if u.kind != "code"]
            if lead and found and found[0].kind == "sentence":
                found = [replace(u, score=u.score + LEAD_SHARE * about) for u in found]
                lead = False
            units += _with_context(found)
    units = _distinct(u for u in units if not _is_fragment(u))
    best = max((u.score for u in units), default=0.0)
    worth = [u for u in units if u.score > 0 and u.score >= MIN_SHARE * best]
    chosen = _choose(worth, max_words)
    if not chosen:  # found by its title or path alone: the note's opening words
        opening = [
            unit
            for b, (heading, text) in enumerate(notes[0].blocks)
            for unit in _units(0, b, heading, text, wanted, weights, named, analyze, True)
            if unit.kind != "code"
        ]
        chosen = _lead(opening, max_words)
    return _parts(chosen, notes)


def _distinct(units: Iterable[_Unit]) -> list[_Unit]:
    """Each piece once: the same sentence in two blocks (a note quoting itself, a copy)
    counts where it is worth most."""
    best: dict[str, _Unit] = {}
    order: list[str] = []
    for unit in units:
        key = " ".join(unit.text.split()).lower()
        if key not in best:
            order.append(key)
            best[key] = unit
        elif unit.score > best[key].score:
            best[key] = unit
    return [best[key] for key in order]


_TERMINAL = ".!?:;)]\"'`*"
_STOPS = frozenset(STOP_WORDS)


def _is_fragment(unit: _Unit) -> bool:
    """A piece a reader cannot take alone: a sentence cut off mid-way ("The Law of Inertia is
    one of the", a block ending where a line break split it) or a leftover quote marker."""
    if unit.kind != "sentence":
        return False
    text = unit.text.strip()
    if not text or text.startswith((">", "#")):
        return True
    if text[-1] in _TERMINAL:
        return False
    return text.split()[-1].lower() in _STOPS


def _with_context(units: list[_Unit]) -> list[_Unit]:
    """A sentence lends part of its worth to the next one of its paragraph.

    "The seat count is the number of members. A nightly job writes it to Stripe." The second
    sentence says where the seat count goes, but only the first names it.
    """
    out: list[_Unit] = []
    previous = 0.0
    for unit in units:
        bonus = CONTEXT_SHARE * previous if unit.kind == "sentence" else 0.0
        out.append(replace(unit, score=unit.score + bonus) if bonus else unit)
        previous = unit.score
    return out


def named_identifiers(query: str) -> frozenset[str]:
    """Identifiers the question names: in backticks, or shaped like code (snake, dotted, camel).

    Plain words are not identifiers even when code contains them: "how long do tokens live"
    must not pull in a snippet that has a `tokens` variable.
    """
    names = {
        m.lower() for span in re.findall(r"`([^`]+)`", query) for m in _IDENTIFIER.findall(span)
    }
    for word in _IDENTIFIER.findall(query):
        if "_" in word.strip("_") or "." in word or _INNER_CAPITAL.search(word):
            names.add(word.lower())
    return frozenset(names)


def render_answer(parts: Sequence[AnswerPart]) -> str:
    """Markdown: each part's lines, then " — " and its note as a wikilink (to the block when
    the first quoted block has an id, such as a transcript turn's; else to the heading).

    The heading a part sits under shows in the link's label: `Runbook › After a rollback`.
    """
    out: list[str] = []
    for part in parts:
        link = part.path.removesuffix(".md")
        anchor = f"#{part.heading}" if part.heading else ""
        if part.block_id:  # a heading holds a whole session; the turn is what was said
            anchor = f"#^{part.block_id.removeprefix('^')}"
        label = f"{part.title} › {part.heading}" if part.heading else part.title
        citation = f"[[{link}{anchor}|{label}]]"
        body = "\n".join(part.lines)
        if part.lines[-1].startswith("```"):
            out.append(f"{body}\n— {citation}")
        else:
            out.append(f"{body} — {citation}")
    return "\n\n".join(out)


def _units(
    note: int,
    block: int,
    heading: str,
    text: str,
    wanted: frozenset[str],
    weights: Mapping[str, float],
    named: frozenset[str],
    analyze: Callable[[str], list[str]],
    keep_silent: bool,
) -> list[_Unit]:
    """The block's pieces with their worth; with `keep_silent` False, none from a block that
    carries no query term (each would be worth 0)."""
    section = heading.rsplit(" > ", 1)[-1].strip().lower() if heading else ""
    if section in METADATA_SECTIONS:
        return []
    if _FENCE.match(text):
        identifiers = {m.lower() for m in _IDENTIFIER.findall(text)}
        hits = named & identifiers
        if not hits:
            return []
        score = sum(weights.get(t, 0.0) for t in wanted & set(analyze(text))) + len(hits)
        return [_Unit(note, block, 0, heading, text.rstrip(), "code", word_count(text), score)]
    if section in CODE_SECTIONS:
        return []
    # A piece's terms are among its block's: a block without a query term gives pieces worth
    # nothing, without analysing each sentence (most blocks of a long note).
    carries = bool(wanted.intersection(analyze(text)))
    if not carries and not keep_silent:
        return []
    kind, pieces = _pieces(text)
    units = []
    for i, piece in enumerate(pieces):
        score = (
            sum(weights.get(t, 0.0) for t in wanted.intersection(analyze(piece)))
            if carries
            else 0.0
        )
        units.append(_Unit(note, block, i, heading, piece, kind, word_count(piece), score))
    return units


def _pieces(text: str) -> tuple[str, list[str]]:
    """A block as a reader's units: a list item or table row whole, a paragraph by sentence."""
    first = text.lstrip("\n").split("\n", 1)[0]
    if _LIST_MARKER.match(first):
        return "item", [" ".join(excerpt_text(text).split())]
    if first.lstrip().startswith("|"):
        cells = [c.strip() for c in text.strip().strip("|").split("|")]
        if all(set(c) <= set(":- ") for c in cells):
            return "row", []  # the |---|---| line under a table's header
        return "row", [" · ".join(c for c in cells if c)]
    if _QUOTE_MARKER.match(first):
        text = "\n".join(_QUOTE_MARKER.sub("", line) for line in text.split("\n"))
        text = _CALLOUT.sub("", text.lstrip())
    flat = " ".join(excerpt_text(text).split())
    return "sentence", _sentences(flat)


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].rstrip()
        if _ABBREVIATION.search(candidate):
            continue  # "e.g. The" is not the end of a sentence
        out.append(text[start : match.end()].strip())
        start = match.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return [s for s in out if s]


def _choose(units: list[_Unit], max_words: int) -> list[_Unit]:
    """The best pieces that fit, best first (better note, then earlier, on a tie).

    A piece that does not fit is skipped, not cut, so a shorter one after it may still come
    in; only when even the best piece is longer than the whole budget is it cut to fit.
    """
    ranked = sorted(units, key=lambda u: (-u.score, u.note, u.block, u.index))
    chosen: list[_Unit] = []
    used = 0
    for unit in ranked:
        if used + unit.words <= max_words:
            chosen.append(unit)
            used += unit.words
    if not chosen and ranked:
        best = ranked[0]
        if best.kind == "code":
            return []
        words = best.text.split()[:max_words]
        chosen = [replace(best, text=" ".join(words) + " …", words=max_words)]
    return chosen


def _lead(units: list[_Unit], max_words: int) -> list[_Unit]:
    chosen: list[_Unit] = []
    used = 0
    for unit in units:
        if used + unit.words > max_words:
            break
        chosen.append(unit)
        used += unit.words
    return chosen


def _parts(chosen: list[_Unit], notes: Sequence[NoteText]) -> list[AnswerPart]:
    """Back into reading order, grouped by note and heading, sentences of a block joined."""
    parts: list[AnswerPart] = []
    last: tuple[int, int] | None = None
    for unit in sorted(chosen, key=lambda u: (u.note, u.block, u.index)):
        note = notes[unit.note]
        heading = _shown_heading(unit.heading, note.title)
        part = parts[-1] if parts else None
        if part is None or part.path != note.path or part.heading != heading:
            part = AnswerPart(
                note.path, note.title, heading, block_id=note.block_ids.get(unit.block)
            )
            parts.append(part)
            last = None
        text = f"- {unit.text}" if unit.kind in ("item", "row") else unit.text
        if last == (unit.note, unit.block) and unit.kind == "sentence":
            part.lines[-1] += " " + text  # the next sentence of the same paragraph
        else:
            part.lines.append(text)
        last = (unit.note, unit.block)
    return parts


def _shown_heading(heading: str, title: str) -> str:
    """The innermost heading a reader learns from: not the title, not an entry section name."""
    for name in reversed([h.strip() for h in heading.split(" > ") if h.strip()]):
        if name.lower() in PLAIN_SECTIONS or name == title:
            continue
        return name
    return ""
