"""What the dense channel embeds: a note's readable text in passages of a few blocks.

Pure functions over a note's indexed blocks (DESIGN 3, "Meaning, not only words"). A passage
is a run of consecutive blocks of one note, cut at about the model's window, and carries the
note's title and the heading path of its first block as context: "Sync > Mobile" tells the
encoder what "set it up on each device" is about. Each block belongs to one passage, so a
passage's similarity to a question is its blocks' dense part in block ranking.

Embedding is the expensive part, so only what a reader sees is embedded: Obsidian and HTML
comments, HTML tags, image embeds, link targets and bare URLs are dropped; on a vault of
web pages they are most of the text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bridge.core.markdown import excerpt_text
from bridge.core.relations import link_display_text
from bridge.core.text import word_count

# `[text](target)` keeps its text; `![alt](image)` goes whole, as does a bare URL, an HTML
# tag or comment, and a file name of an image.
_EMBEDS = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_HIDDEN = re.compile(
    r"<[A-Za-z/!][^>\n]*>|https?://\S+|\S+\.(?:png|jpe?g|gif|svg|webp)\b", re.IGNORECASE
)
_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_SPACE = re.compile(r"[ \t]+")
# Bumped whenever `readable`, `passages` or `card` cut differently: stored passages are planned
# again (only the texts that changed are embedded again).
PASSAGE_RULE = 5
# The span a note's card is stored under (`card`): no block's.
CARD = -1
_CARD_WORDS = 48
# Obsidian's `%%` and HTML's `<!-- -->` comments, which may open in one block and close later.
_COMMENTS = re.compile(r"%%|<!--|-->")


@dataclass(frozen=True, slots=True)
class PassageBlock:
    """A block as the passage rule needs it: its ordinal, heading path and text."""

    ord: int
    heading: str  # "A > B", as indexed
    text: str
    metadata: bool = False  # a Relations or Raw Concept block: about other notes, not knowledge


@dataclass(frozen=True, slots=True)
class Passage:
    """Blocks `first`..`last` (ordinals) of a note, and the text the encoder is given."""

    first: int
    last: int
    text: str

    @property
    def key(self) -> bytes:
        """The passage's identity for the vector store: equal text, equal vector."""
        return passage_key(self.text)


def passage_key(text: str) -> bytes:
    """16 bytes of blake2b of the passage text: a vector is stored once per distinct text."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def readable(texts: Sequence[str]) -> list[str]:
    """What a reader sees of each block, in order, for embedding.

    Comments (`%% ... %%`, `<!-- ... -->`) may open in one block and close blocks later, so
    the blocks are read in order with the comment state carried over; an unclosed comment
    hides the rest of the note, as Obsidian hides it.
    """
    out: list[str] = []
    closer: str | None = None  # the mark that ends the comment we are in
    for raw in texts:
        kept: list[str] = []
        done = 0
        for match in _COMMENTS.finditer(raw):
            mark = match.group()
            if closer is None and mark != "-->":
                kept.append(raw[done : match.start()])
                closer = "%%" if mark == "%%" else "-->"
            elif closer == mark:
                closer = None
            else:
                continue
            done = match.end()
        if closer is None:
            kept.append(raw[done:])
        text = "".join(kept)
        if text.strip():
            text = link_display_text(excerpt_text(text))
            text = _EMBEDS.sub(" ", text)
            text = _LINK.sub(lambda m: m.group(1), text)
            text = _HIDDEN.sub(" ", text)
            text = _SPACE.sub(" ", text).strip()
        out.append(text.strip())
    return out


def passages(
    title: str,
    blocks: Sequence[PassageBlock],
    words: int = 160,
    most: int = 32,
    boilerplate: frozenset[str] = frozenset(),
) -> list[Passage]:
    """A note's passages: consecutive readable blocks, about `words` words each, at most `most`.

    A block is never split (the encoder cuts a long one at its window); a passage starts a new
    section's heading on its own line, so one passage can hold several short sections. Blocks
    with nothing to read, and metadata blocks (relations say what other notes are about),
    belong to no passage: they get no dense part. `most` bounds what one pathological note
    (a 50,000-word log) costs the encoder; its later blocks stay lexical only. Lines in
    `boilerplate` (a template's lines that many notes repeat, `boilerplate_lines`) are left
    out: they say nothing about one note and dilute its vector.
    """
    shown = readable([b.text for b in blocks])
    if boilerplate:
        shown = [_without(text, boilerplate, b.text) for text, b in zip(shown, blocks, strict=True)]
    out: list[Passage] = []
    lines: list[str] = []
    first = last = -1
    size = 0
    heading = None

    def close() -> None:
        nonlocal lines, size, first
        if lines:
            context = _context(title, blocks_heading)
            out.append(Passage(first, last, f"{context}\n" + "\n".join(lines)))
        lines, size, first = [], 0, -1

    blocks_heading = ""
    for block, text in zip(blocks, shown, strict=True):
        if block.metadata or not text:
            continue
        count = word_count(text)
        if lines and size + count > words:
            close()
            if len(out) >= most:
                break
            heading = None
        if not lines:
            first = block.ord
            blocks_heading = block.heading
            heading = block.heading
        elif block.heading != heading:
            section = block.heading.rsplit(" > ", 1)[-1].strip()
            if section:
                lines.append(section)
            heading = block.heading
        lines.append(text)
        last = block.ord
        size += count
    if len(out) < most:
        close()
    return out


def card(
    title: str,
    blocks: Sequence[PassageBlock],
    summary_heading: str,
    boilerplate: frozenset[str] = frozenset(),
) -> Passage | None:
    """The note's card: its title with what it says it is about, embedded as one passage.

    What it is about: the frontmatter summary or description (the block under
    `summary_heading`), else the first readable block of knowledge, cut to 48 words. A
    question is often closest to what a note is *about*, which a long note's passages each
    hold only a part of.
    """
    shown = readable([b.text for b in blocks])
    if boilerplate:
        shown = [_without(text, boilerplate, b.text) for text, b in zip(shown, blocks, strict=True)]
    pairs = list(zip(blocks, shown, strict=True))
    about = next((t for b, t in pairs if b.heading == summary_heading and t), None)
    if about is None:
        about = next((t for b, t in pairs if t and not b.metadata), "")
    words = about.split()
    about = " ".join(words[:_CARD_WORDS])
    text = "\n".join(part for part in (title.strip(), about) if part)
    return Passage(CARD, CARD, text) if text else None


def _without(text: str, lines: frozenset[str], raw: str = "") -> str:
    """`text` without the template lines in `lines`; a code block or a callout is kept whole
    (`_is_example`): the page that explains a template shows its lines as examples."""
    if not text or _is_example(raw or text):
        return text
    return "\n".join(line for line in text.split("\n") if line.strip() not in lines).strip()


def _is_example(raw: str) -> bool:
    """A fenced code block or a callout (`> [!note]`): shown as written, never boilerplate."""
    start = raw.lstrip()
    return start.startswith(("```", "~~~", "> [!", ">[!"))


def note_lines(texts: Sequence[str]) -> set[str]:
    """The distinct readable lines of one note (to count how many notes share a line); code
    blocks and callouts are not counted (`_is_example`)."""
    kept = [t for t in texts if not _is_example(t)]
    return {line.strip() for text in readable(kept) for line in text.split("\n") if line.strip()}


def boilerplate_lines(counts: Mapping[str, int], notes: int) -> frozenset[str]:
    """Lines held by at least 1% of the notes and at least 20 of them: a template's lines.

    Notes made from one template (a plugin directory's notes each saying "Links: GitHub
    repository or Open in Obsidian", "Mobile compatible: Yes" around a one-line description)
    share these lines; averaged into the vector, the template would outweigh the
    description, so they are not embedded.
    """
    floor = max(20, notes // 100)
    return frozenset(line for line, count in counts.items() if count >= floor)


def _context(title: str, heading: str) -> str:
    """`Title > Heading > Sub`, without repeating a title that is also the first heading."""
    parts = [p.strip() for p in heading.split(" > ") if p.strip()] if heading else []
    if parts and parts[0].casefold() == title.strip().casefold():
        parts = parts[1:]
    return " > ".join([title.strip(), *parts]) if title.strip() else " > ".join(parts)
