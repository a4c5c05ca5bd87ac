"""`doctor`, `status` and `setup` name every note the bridge reads around, and say it briefly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bridge.cli import main
from tests.conftest import snapshot

UNCLOSED = "---\ntitle: Open block\nsummary: the closing line was never typed\n\nThe body.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code, out = run(capsys, *argv, "--json")
    document = json.loads(out)
    assert isinstance(document, dict)
    return code, document


def notes_of(doctor: dict[str, object]) -> dict[str, dict[str, object]]:
    notes = doctor["notes"]
    assert isinstance(notes, list)
    return {n["path"]: n for n in notes}


def codes_of(entry: dict[str, object]) -> list[str]:
    problems = entry["problems"]
    assert isinstance(problems, list)
    return [p["code"] for p in problems]


def test_a_frontmatter_block_never_closed_is_reported(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (template_vault / "journal" / "open.md").write_text(UNCLOSED)
    before = snapshot(template_vault)
    code, doctor = run_json(capsys, "doctor", "--vault", str(template_vault))
    assert code == 1
    entry = notes_of(doctor)["journal/open.md"]
    assert codes_of(entry) == ["malformed_frontmatter"]
    assert entry["writes_blocked"] is True
    problems = entry["problems"]
    assert isinstance(problems, list) and "never closed" in problems[0]["message"]
    _, status = run_json(capsys, "status", "--vault", str(template_vault))
    assert status["problem_notes"] == 1
    _, text = run(capsys, "status", "--vault", str(template_vault))
    assert "1 note has problems (malformed frontmatter: 1)" in text
    assert snapshot(template_vault) == before


def test_folder_symlinks_leaving_the_vault_or_looping_are_reported(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Not in the vault\n")
    (template_vault / "linked").symlink_to(outside, target_is_directory=True)
    (template_vault / "journal" / "back").symlink_to("..", target_is_directory=True)
    (template_vault / "journal" / "twin").symlink_to("../billing", target_is_directory=True)
    code, doctor = run_json(capsys, "doctor", "--vault", str(template_vault))
    assert code == 1
    notes = notes_of(doctor)
    assert codes_of(notes["linked"]) == ["outside_vault"]
    assert codes_of(notes["journal/back"]) == ["outside_vault"]
    assert "twin" not in json.dumps(doctor)  # an alias of a folder in the vault is fine
    messages = json.dumps(doctor)
    assert "leaves the vault" in messages and "loop" in messages
    assert str(tmp_path) not in messages
    _, status = run_json(capsys, "status", "--vault", str(template_vault))
    assert status["skipped_folders"] == 2 and status["problem_notes"] == 0
    _, text = run(capsys, "status", "--vault", str(template_vault))
    assert "2 folder symlinks not followed" in text


def test_ten_thousand_unresolved_links_in_one_note_make_one_line(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    links = "\n".join(f"- [[missing-{n}]]" for n in range(10_000))
    (template_vault / "journal" / "links.md").write_text(f"# Links\n\n{links}\n")
    code, text = run(capsys, "doctor", "--vault", str(template_vault))
    assert code == 1
    assert len(text.splitlines()) < 20, text[:2000]
    assert "10,000 links point at no note" in text
    assert "[[missing-0]]" in text and "[[missing-9999]]" not in text
    code, doctor = run_json(capsys, "doctor", "--vault", str(template_vault))
    entry = notes_of(doctor)["journal/links.md"]
    unresolved = entry["unresolved_links"]
    assert isinstance(unresolved, list) and len(unresolved) == 10_000  # --json keeps them all
    assert unresolved[0] == {"link": "[[missing-0]]", "line": 3}
    assert doctor["count"] == 10_000


def test_setup_counts_notes_with_problems_and_unresolved_links_apart(
    template_vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (template_vault / "journal" / "dangling.md").write_text("# D\n\n[[nowhere]] and [[nothing]]\n")
    code, text = run(capsys, "setup", "--vault", str(template_vault))
    assert code == 0
    assert "0 notes have problems" not in text
    assert "2 unresolved links in 1 note" in text
    (template_vault / "journal" / "open.md").write_text(UNCLOSED)
    # A second setup has nothing to change and reads no note again; `status` counts them.
    _, text = run(capsys, "setup", "--vault", str(template_vault))
    assert "the notes were not read again" in " ".join(text.split())
    _, text = run(capsys, "status", "--vault", str(template_vault))
    assert "1 note has problems (malformed frontmatter: 1)" in text


def test_a_note_that_starts_with_a_horizontal_rule_is_not_an_unclosed_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    shutil.copytree(Path(__file__).parent / "fixtures" / "tricky", vault)
    (vault / "ruled.md").write_text("---\n\nA note under a rule: see [[ruled]].\n")
    (vault / "empty_block.md").write_text("---\n---\n\nA note under an empty block.\n")
    _, doctor = run_json(capsys, "doctor", "--vault", str(vault))
    assert "ruled.md" not in notes_of(doctor) and "empty_block.md" not in notes_of(doctor)


def test_doctor_names_the_line_to_fix_and_counts_in_good_english(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = "---\ntitle: Broken\ntags: [auth, tokens\nstatus: draft\n---\n# Broken\n\n[[gone]]\n"
    (template_vault / "journal" / "broken.md").write_text(broken)
    code, text = run(capsys, "doctor", "--vault", str(template_vault))
    text = " ".join(text.split())
    assert code == 1
    assert "2 problems in 1 note" in text and "1 notes" not in text
    # Line 3 holds the `[` that is never closed; YAML noticed only at the closing `---` (5).
    _, doctor = run_json(capsys, "doctor", "--vault", str(template_vault))
    entry = notes_of(doctor)["journal/broken.md"]
    (problem,) = entry["problems"]  # type: ignore[misc]
    assert problem["message"].startswith(
        "journal/broken.md: malformed YAML frontmatter at line 3: a `[` list that is never closed"
    )
    assert entry["unresolved_links"] == [{"link": "[[gone]]", "line": 8}]  # 1-based, as shown


def test_doctor_names_the_line_of_a_link_inside_a_wrapped_paragraph(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The paragraph's first line was named for a link on its second.
    text = (
        "# Wrapped\n\nFirst line of a paragraph\nsecond line with [[missing note]] here\n"
        "third line.\n\n- item one\n  continued [[other missing]]\n"
    )
    (template_vault / "journal" / "wrapped.md").write_text(text)
    _, doctor = run_json(capsys, "doctor", "--vault", str(template_vault))
    assert notes_of(doctor)["journal/wrapped.md"]["unresolved_links"] == [
        {"link": "[[missing note]]", "line": 4},
        {"link": "[[other missing]]", "line": 8},
    ]
