"""Transcript import: deterministic, idempotent, and respectful of human edits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli import main
from bridge.importer.service import import_transcripts
from bridge.importer.transcript import TranscriptError, parse_transcripts, render_transcript
from bridge.runtime import Bridge
from bridge.vault.store import VaultStore
from tests.conftest import snapshot

CHAT = {
    "name": "team chat",
    "sessions": [
        {
            "date": "2026-03-02T10:00:00Z",
            "turns": [
                {"speaker": "Ana", "id": "D1:1", "text": "The kayak trip to Lake Bled is on."},
                {"speaker": "Ben", "id": "D1:2", "text": "I will bring the paddles and tent."},
            ],
        },
        {
            "date": "2026-03-09T10:00:00Z",
            "turns": [
                {
                    "speaker": "Ana",
                    "id": "D2:1",
                    "text": "Lake Bled kayak photos are up.",
                    "image_caption": "two kayaks on a lake",
                },
                {"speaker": "Ben", "id": "D2:2", "text": "The tent leaked, sadly."},
            ],
        },
    ],
}


def test_each_session_becomes_an_entry_and_each_turn_a_block() -> None:
    notes = render_transcript(parse_transcripts(CHAT)[0])
    assert [n.path for n in notes] == [
        "conversations/team-chat/session_01.md",
        "conversations/team-chat/session_02.md",
    ]
    text = notes[1].text
    assert "- Ana: Lake Bled kayak photos are up. (image: two kayaks on a lake) ^D2-1\n" in text
    assert "participants: [Ana, Ben]" in text
    assert "created: 2026-03-09T10:00:00Z" in text
    assert "- [[conversations/team-chat/session_01]] - previous session" in text


def test_rendering_is_deterministic() -> None:
    once = render_transcript(parse_transcripts(CHAT)[0])
    twice = render_transcript(parse_transcripts(json.loads(json.dumps(CHAT)))[0])
    assert once == twice


def test_locomo_files_are_understood() -> None:
    item = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "A", "dia_id": "D1:1", "text": "hi", "blip_caption": "a dog"}
            ],
            "session_2_date_time": "2:00 pm on 9 May, 2023",
        },
    }
    [transcript] = parse_transcripts([item])
    assert transcript.name == "conv-1" and len(transcript.sessions) == 1
    session = transcript.sessions[0]
    assert session.date is not None and session.date.isoformat() == "2023-05-08T13:56:00+00:00"
    assert session.turns[0].text == "hi (image: a dog)"


@pytest.mark.parametrize(
    "bad",
    [{"sessions": "nope"}, {"sessions": [{"turns": [{"text": "no speaker"}]}]}, [1, 2], "text"],
)
def test_malformed_transcripts_are_refused_clearly(bad: object) -> None:
    with pytest.raises(TranscriptError):
        parse_transcripts(bad)


def test_import_is_idempotent_and_keeps_human_edits(tmp_path: Path) -> None:
    store = VaultStore(tmp_path)
    first = import_transcripts(store, CHAT)
    assert len(first.written) == 2
    before = snapshot(tmp_path)
    second = import_transcripts(store, CHAT)
    assert second.written == [] and len(second.unchanged) == 2
    assert snapshot(tmp_path) == before
    edited = tmp_path / "conversations/team-chat/session_01.md"
    edited.write_text(edited.read_text() + "\nMy own note on the trip.\n")
    third = import_transcripts(store, CHAT)
    assert third.kept == ["conversations/team-chat/session_01.md"]
    assert "My own note" in edited.read_text()
    forced = import_transcripts(store, CHAT, force=True)
    assert forced.written == ["conversations/team-chat/session_01.md"]
    assert "My own note" not in edited.read_text()


def chat_and_vault(tmp_path: Path) -> tuple[Path, Path]:
    """CHAT as a file, and an empty vault to import it into."""
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(CHAT))
    vault = tmp_path / "vault"
    vault.mkdir()
    return source, vault


def test_import_cli_makes_sessions_searchable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, vault = chat_and_vault(tmp_path)
    state = tmp_path / "state"
    assert (
        main(["import", str(source), "--vault", str(vault), "--state-dir", str(state), "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["written"] == [
        "conversations/team-chat/session_01.md",
        "conversations/team-chat/session_02.md",
    ]
    args = ["--vault", str(vault), "--state-dir", str(state), "--json"]
    assert main(["search", "Who brings the paddles?", *args]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["sources"][0]["blocks"][0]["text"] == "Ben: I will bring the paddles and tent."
    assert result["sources"][0]["blocks"][0]["block_id"] == "D1-2"
    assert main(["import", str(tmp_path / "missing.json"), *args]) == 2
    assert "no such file" in capsys.readouterr().err


def test_import_cli_prints_counts_and_the_notes_one_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, vault = chat_and_vault(tmp_path)
    args = [str(source), "--vault", str(vault), "--state-dir", str(tmp_path / "state")]
    assert main(["import", *args]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Imported chat.json: 2 notes written, 0 unchanged, 0 kept.",
        "  wrote conversations/team-chat/session_01.md",
        "  wrote conversations/team-chat/session_02.md",
    ]
    edited = vault / "conversations/team-chat/session_01.md"
    edited.write_text(edited.read_text() + "\nMy own note.\n")
    assert main(["import", *args]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Imported chat.json: 0 notes written, 1 unchanged, 1 kept.",
        "  kept conversations/team-chat/session_01.md (edited since the import; --force "
        "overwrites it)",
    ]


def test_a_direct_answer_from_a_transcript_cites_the_turn(bridge: Bridge) -> None:
    # It cited `#Transcript`, the section that holds the whole session.
    bridge.import_transcripts(CHAT)
    result = bridge.engine.query("Who will bring the paddles and tent?")
    assert result.tier == 2 and result.answer is not None
    assert "Ben: I will bring the paddles and tent." in result.answer
    assert "[[conversations/team-chat/session_01#^D1-2|" in result.answer
