"""Composed answers: the sentences that carry the question's words, in the note's order, cited."""

from __future__ import annotations

from bridge.core.compose import NoteText, compose_answer, named_identifiers, render_answer
from bridge.index.analysis import analyze

NOTE = NoteText(
    path="ops/deploy/rollback.md",
    title="Rollback procedure",
    blocks=[
        ("Rollback procedure > Relations", "- [[ops/deploy/pipeline]] - what triggers a rollback"),
        ("Rollback procedure > Raw Concept", "- Author: agent:cli, 2026-10-01"),
        (
            "Rollback procedure > Narrative",
            "Production runs on two machines. To roll back, redeploy the previous image with\n"
            "`make rollback`. Watch the health check until both machines pass.",
        ),
        ("Rollback procedure > Narrative", "We never roll back the database."),
        ("Rollback procedure > Snippets", "```sh\nmake rollback ENV=prod TO=<sha>\n```"),
        ("Rollback procedure > After a rollback", "- post the SHA you left in #incidents"),
    ],
)
WEIGHTS = {t: 1.0 for t in ("roll", "back", "rollback", "databas", "incid", "sha", "post")}


def answer(query: str, notes: list[NoteText] | None = None, words: int = 120) -> str:
    terms = [t for t in analyze(query) if t in WEIGHTS]
    parts = compose_answer(query, terms, WEIGHTS, notes or [NOTE], analyze, words)
    return render_answer(parts)


def test_the_answer_is_the_sentences_that_carry_the_words_in_reading_order() -> None:
    text = answer("how do we roll back the database?")
    assert text.index("To roll back, redeploy") < text.index("We never roll back the database.")
    assert "Production runs on two machines." not in text  # carries none of the words


def test_metadata_never_enters_the_answer() -> None:
    text = answer("rollback author")
    assert "Author: agent:cli" not in text
    assert "what triggers a rollback" not in text  # a relation line, though it has the word


def test_code_only_when_the_question_names_an_identifier_in_it() -> None:
    assert "```" not in answer("how do we roll back?")
    assert "ENV=prod" in answer("what does `make rollback` take for ENV?")
    assert named_identifiers("what is ACCESS_TOKEN_TTL or cfg.timeout or maxRetries?") == {
        "access_token_ttl",
        "cfg.timeout",
        "maxretries",
    }
    assert named_identifiers("how long do tokens live?") == frozenset()


def test_each_part_cites_its_note_with_the_heading_it_sits_under() -> None:
    text = answer("what do we post in incidents after a rollback?")
    assert "- post the SHA you left in #incidents" in text
    assert "[[ops/deploy/rollback#After a rollback|Rollback procedure › After a rollback]]" in text
    # An entry-format section name ("Narrative") is no heading for a reader.
    narrative = answer("roll back the database")
    assert "[[ops/deploy/rollback|Rollback procedure]]" in narrative
    assert "Narrative" not in narrative


def test_the_answer_stays_within_its_words_and_cuts_only_a_lone_long_piece() -> None:
    long_note = NoteText("a.md", "A", [("A", "rollback " * 300)])
    text = answer("rollback", [long_note], words=20)
    body = text.rsplit(" — [[", 1)[0]
    assert len(body.split()) == 21 and body.endswith("…")  # 20 words and the ellipsis
    short = answer("roll back database incidents sha post", words=12)
    bodies = [p.rsplit(" — [[", 1)[0] for p in short.split("\n\n")]
    assert sum(len(b.replace("- ", "", 1).split()) for b in bodies) <= 12


def test_a_second_note_is_cited_as_itself() -> None:
    other = NoteText("ops/db.md", "Database", [("Database", "The database is never rolled back.")])
    text = answer("roll back the database", [NOTE, other])
    assert "[[ops/db|Database]]" in text and "[[ops/deploy/rollback|Rollback procedure]]" in text


def test_a_note_found_by_its_title_alone_answers_with_its_opening() -> None:
    note = NoteText(
        "team/setup.md", "Developer setup", [("Narrative", "Clone the repo. Run make.")]
    )
    terms = analyze("developer setup")
    parts = compose_answer("developer setup", terms, {t: 1.0 for t in terms}, [note], analyze, 50)
    assert render_answer(parts) == "Clone the repo. Run make. — [[team/setup|Developer setup]]"


def test_the_next_sentence_of_a_paragraph_rides_with_the_one_that_names_the_subject() -> None:
    note = NoteText(
        "b.md",
        "Billing",
        [("B", "The seat count is the number of members. A nightly job writes it to Stripe.")],
    )
    weights = {"seat": 2.0, "count": 2.0, "stripe": 0.5}
    parts = compose_answer("seat count stripe", list(weights), weights, [note], analyze, 100)
    assert "A nightly job writes it to Stripe." in render_answer(parts)


def test_a_sentence_is_given_once_and_a_cut_off_fragment_never() -> None:
    note = NoteText(
        path="ops/deploy/rollback.md",
        title="Rollback procedure",
        blocks=[
            ("Rollback procedure > Narrative", "To roll back, redeploy the previous image."),
            ("Rollback procedure > Again", "To roll back, redeploy the previous image."),
            ("Rollback procedure > Quote", "> The rollback runbook is one of the"),
        ],
    )
    text = answer("how do I roll back?", [note])
    assert text.count("To roll back, redeploy the previous image.") == 1
    assert "one of the" not in text


def test_a_sentence_in_other_words_is_chosen_by_meaning() -> None:
    note = NoteText(
        path="team/on_call.md",
        title="On call",
        blocks=[
            ("On call > Rota", "The rota changes every Monday at noon."),
            ("On call > After hours", "The paging service rings the engineer on duty."),
        ],
        meaning={1: 1.0, 0: 0.0},  # the second block's passage is the question's closest
    )
    weights = {"woken": 3.0, "night": 1.0}
    question = ("who is woken up at night?", ["woken", "night"], weights)
    parts = compose_answer(*question, [note], analyze, 120)
    assert "paging service rings the engineer" in render_answer(parts)
    assert "rota" not in render_answer(parts)
    # By words alone, nothing carries the question: the note's opening answers instead.
    words_only = NoteText(note.path, note.title, note.blocks)
    assert "rota" in render_answer(compose_answer(*question, [words_only], analyze, 120))


def test_a_transcript_turn_is_cited_by_its_block_id_not_its_sessions_heading() -> None:
    note = NoteText(
        "conversations/chat/session_01.md",
        "chat · session 1",
        [
            ("chat · session 1 > Transcript", "- Ana: The kayak trip to Lake Bled is on."),
            ("chat · session 1 > Transcript", "- Ben: I will bring the paddles and tent."),
        ],
        block_ids={0: "D1-1", 1: "D1-2"},
    )
    terms = analyze("who brings the paddles")
    parts = compose_answer(
        "who brings the paddles", terms, {t: 1.0 for t in terms}, [note], analyze, 50
    )
    text = render_answer(parts)
    assert "Ben: I will bring the paddles" in text
    assert "[[conversations/chat/session_01#^D1-2|" in text  # the turn, not `#Transcript`
