"""Chat transcripts to entries: one note per session, one block per turn, ids kept.

Deterministic (no LLM, no clock: dates come from the transcript) so running an import twice
changes nothing. A session note that was edited since it was imported is left alone unless
the caller forces it: the human's edit wins.

Accepted JSON (a single transcript or a list of them):
    {"name": "team-chat", "sessions": [{"date": "2026-11-02T09:14:00Z", "turns": [
        {"speaker": "Ana", "id": "D1:1", "text": "...", "image_caption": "..."}]}]}
LoCoMo files (`conversation` with `session_N` keys) are read as well.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bridge.core.frontmatter import format_scalar
from bridge.core.paths import normalise_note_path
from bridge.core.text import STOP_WORDS

AUTHOR = "agent:import"
_WORD = re.compile(r"[^\W\d_][\w'-]{2,}", re.UNICODE)
_ID_SAFE = re.compile(r"[^A-Za-z0-9-]+")
_NAME_SAFE = re.compile(r"[^\w.-]+", re.UNICODE)
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B %Y", "%Y-%m-%d %H:%M")
_STOP = frozenset(STOP_WORDS) | {"yeah", "really", "like", "just", "thanks", "know", "think"}


class TranscriptError(ValueError):
    """The file is not a transcript; the message says what was expected."""


@dataclass(frozen=True)
class Turn:
    speaker: str
    id: str
    text: str


@dataclass(frozen=True)
class Session:
    number: int
    date_text: str
    date: dt.datetime | None
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Transcript:
    name: str
    sessions: tuple[Session, ...]


@dataclass(frozen=True)
class SessionNote:
    """A rendered session: where it goes and its Markdown."""

    path: str
    text: str


def parse_date(text: str) -> dt.datetime | None:
    """A session date as UTC, from ISO 8601 or LoCoMo's "1:56 pm on 8 May, 2023"."""
    value = text.strip()
    if not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    except ValueError:
        pass
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(value, fmt).replace(tzinfo=dt.UTC)
        except ValueError:
            continue
    return None


def _printable(value: object, what: str, where: str) -> str:
    """`value` as text for the note; refuses control characters (a NUL made the note binary:
    it was never indexed, and the next import called it an edit and kept it)."""
    text = str(value)
    bad = sorted({c for c in " ".join(text.split()) if unicodedata.category(c) == "Cc"})
    if bad:
        shown = ", ".join(f"U+{ord(c):04X}" for c in bad)
        raise TranscriptError(f"{where}: the {what} holds control characters ({shown})")
    return text


def _turn(raw: Any, where: str) -> Turn:
    if not isinstance(raw, dict):
        raise TranscriptError(f"{where}: a turn must be an object with speaker, id and text")
    speaker = _printable(raw.get("speaker", ""), "speaker", where).strip()
    text = _printable(raw.get("text", ""), "text", where).strip()
    turn_id = _printable(raw.get("id", raw.get("dia_id", "")), "turn id", where).strip()
    if not speaker or not turn_id:
        raise TranscriptError(f"{where}: a turn needs `speaker` and `id`")
    caption = raw.get("image_caption", raw.get("blip_caption"))
    if caption:
        caption = _printable(caption, "image caption", where).strip()
        text = f"{text} (image: {caption})".strip()
    return Turn(speaker, turn_id, " ".join(text.split()))


def _name(raw: object) -> str:
    """A transcript's name, which names its folder: refused when it cannot name one.

    `""`, `".."` or a NUL would all become the folder `transcript`, and different transcripts
    would land in one folder: a name must keep a letter or digit once the characters a folder
    cannot hold are replaced, and hold no control character.
    """
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        raise TranscriptError(f"the transcript name must be text, not {json.dumps(raw)}")
    name = _printable(raw, "transcript name", f"transcript name {json.dumps(str(raw))}")
    if not folder_name(name):
        raise TranscriptError(
            f"the transcript name {json.dumps(name)} has no letter or digit to name its "
            "folder; give it a name such as `team-chat`"
        )
    return name


def folder_name(name: str) -> str:
    """The folder a transcript's sessions go in, under the import root (`""`: none)."""
    folder = _NAME_SAFE.sub("-", name).strip("-.")
    return folder if any(c.isalnum() for c in folder) else ""


def _from_locomo(item: dict[str, Any]) -> Transcript:
    conv = item["conversation"]
    numbers = sorted(
        int(k.split("_")[1])
        for k, v in conv.items()
        if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
    )
    sessions = []
    for n in numbers:
        date_text = _printable(conv.get(f"session_{n}_date_time", ""), "date", f"session {n}")
        turns = tuple(_turn(t, f"session {n}") for t in conv[f"session_{n}"])
        sessions.append(Session(n, date_text, parse_date(date_text), turns))
    return Transcript(_name(item.get("sample_id", "conversation")), tuple(sessions))


def _from_generic(item: dict[str, Any], index: int) -> Transcript:
    raw_sessions = item.get("sessions")
    if not isinstance(raw_sessions, list):
        raise TranscriptError("a transcript needs a `sessions` list")
    sessions = []
    for i, raw in enumerate(raw_sessions, 1):
        if not isinstance(raw, dict) or not isinstance(raw.get("turns"), list):
            raise TranscriptError(f"session {i}: needs a `turns` list")
        given = str(raw.get("number", raw.get("id", i)))
        number = int(given) if given.isdigit() else i
        date_text = _printable(raw.get("date", ""), "date", f"session {number}")
        turns = tuple(_turn(t, f"session {number}") for t in raw["turns"])
        sessions.append(Session(number, date_text, parse_date(date_text), turns))
    return Transcript(_name(item.get("name", f"transcript-{index}")), tuple(sessions))


def parse_transcripts(data: Any) -> list[Transcript]:
    """Transcripts in a loaded JSON document (one object or a list of them)."""
    items = data if isinstance(data, list) else [data]
    out = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise TranscriptError("expected a transcript object or a list of them")
        if isinstance(item.get("conversation"), dict):
            out.append(_from_locomo(item))
        else:
            out.append(_from_generic(item, i))
    return out


def _keywords(session: Session, df: Counter[str], n_sessions: int, k: int = 12) -> list[str]:
    counts = Counter(_words(session))
    scored = {w: c * math.log((1 + n_sessions) / (1 + df[w])) for w, c in counts.items()}
    return [w for w, _ in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def _words(session: Session) -> list[str]:
    names = {t.speaker.lower() for t in session.turns}
    return [
        w
        for t in session.turns
        for w in (m.lower() for m in _WORD.findall(t.text))
        if w not in _STOP and w not in names
    ]


def _note_path(folder: str, number: int, width: int) -> str:
    return normalise_note_path(f"{folder}/session_{number:0{width}d}")


def render_transcript(transcript: Transcript, root: str = "conversations") -> list[SessionNote]:
    """Every session of a transcript as a note, related to its neighbours and topic kin."""
    folder = f"{root}/{folder_name(transcript.name)}"
    sessions = sorted(transcript.sessions, key=lambda s: s.number)
    width = max(2, len(str(max((s.number for s in sessions), default=1))))
    df: Counter[str] = Counter(w for s in sessions for w in set(_words(s)))
    keywords = {s.number: _keywords(s, df, len(sessions)) for s in sessions}
    paths = {s.number: _note_path(folder, s.number, width) for s in sessions}
    notes = []
    for pos, session in enumerate(sessions):
        relations: list[tuple[int, str]] = []
        if pos > 0:
            relations.append((sessions[pos - 1].number, "previous session"))
        if pos + 1 < len(sessions):
            relations.append((sessions[pos + 1].number, "next session"))
        relations += _topic_kin(session, sessions, keywords, {n for n, _ in relations})
        notes.append(
            SessionNote(
                paths[session.number],
                _render_session(transcript.name, session, relations, paths),
            )
        )
    return notes


def _topic_kin(
    session: Session,
    sessions: Sequence[Session],
    keywords: dict[int, list[str]],
    taken: set[int],
    limit: int = 2,
) -> list[tuple[int, str]]:
    mine = set(keywords[session.number])
    people = {t.speaker for t in session.turns}
    scored = []
    for other in sessions:
        if other.number == session.number or other.number in taken:
            continue
        shared = sorted(mine & set(keywords[other.number]))
        if len(shared) >= 2 and people & {t.speaker for t in other.turns}:
            scored.append((-len(shared), other.number, shared))
    return [
        (n, "shares topics: " + ", ".join(shared[:4])) for _, n, shared in sorted(scored)[:limit]
    ]


def _render_session(
    name: str,
    session: Session,
    relations: list[tuple[int, str]],
    paths: dict[int, str],
) -> str:
    people = list(dict.fromkeys(t.speaker for t in session.turns))
    when = session.date.strftime("%-d %B %Y") if session.date else session.date_text
    title = f"{name} · session {session.number}" + (f" · {when}" if when else "")
    ids = [t.id for t in session.turns]
    lines = ["---", f"title: {format_scalar(title)}"]
    lines.append("tags: [conversation]")
    lines.append(f"participants: {format_scalar(people)}")
    lines.append(f"session: {session.number}")
    if session.date_text:
        lines.append(f"date: {format_scalar(session.date_text)}")
    lines.append("status: draft")
    if session.date:
        lines += [
            f"created: {format_scalar(session.date)}",
            f"updated: {format_scalar(session.date)}",
        ]
    lines += [f"author: {AUTHOR}", "---", f"# {title}", "", "## Relations"]
    for number, reason in relations:
        lines.append(f"- [[{paths[number][:-3]}]] - {reason}")
    lines += ["", "## Raw Concept", "- Task: import a chat transcript"]
    span = f" (turns {ids[0]} to {ids[-1]})" if ids else ""
    lines.append(f"- Source: {name}, session {session.number}{span}")
    lines += [f"- Author: {AUTHOR}", "", "## Transcript"]
    for turn in session.turns:
        block = _ID_SAFE.sub("-", turn.id).strip("-")
        lines.append(f"- {turn.speaker}: {turn.text} ^{block}")
    return "\n".join(lines) + "\n"
