"""The `exclude` setting: gitignore rules on vault paths, without regard to case."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.vault.ignore import DEFAULT_EXCLUDE, IgnoreRules, check_patterns
from bridge.vault.store import VaultStore


def notes_of(root: Path, files: list[str], exclude: tuple[str, ...]) -> list[str]:
    """The notes a real walk of a real vault finds, each also asked about on its own (as the
    watcher asks): the two answers must agree."""
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n")
    rules = IgnoreRules(exclude)
    walked = sorted(VaultStore(root, rules).iter_paths())
    assert walked == sorted(rel for rel in files if not rules.ignores(rel))
    return walked


def test_a_folder_is_excluded_whatever_its_case(tmp_path: Path) -> None:
    files = ["Templates/daily.md", "templates/entry.md", "TEMPLATES/x.md", "notes/a.md"]
    assert notes_of(tmp_path / "v1", files, ("templates/",)) == ["notes/a.md"]
    # The defaults too: `Attachments/` as Obsidian's own setting names it.
    files = ["Templates/daily.md", "Attachments/readme.md", "notes/a.md"]
    assert notes_of(tmp_path / "v2", files, DEFAULT_EXCLUDE) == ["notes/a.md"]


def test_double_star_matches_no_folder_at_all(tmp_path: Path) -> None:
    files = ["drafts/x.md", "a/drafts/y.md", "a/b/drafts/c/z.md", "a/drafted.md", "x.md"]
    assert notes_of(tmp_path, files, ("**/drafts/**",)) == ["a/drafted.md", "x.md"]


def test_a_bare_name_matches_a_folder_or_file_at_any_depth(tmp_path: Path) -> None:
    files = ["Archive/old.md", "work/archive/2025.md", "Archive.md", "work/now.md"]
    assert notes_of(tmp_path, files, ("Archive",)) == ["Archive.md", "work/now.md"]
    files = ["plan.md", "a/notes.md"]
    assert notes_of(tmp_path / "v", files, ("plan.md",)) == ["a/notes.md"]


def test_a_slash_anchors_a_pattern_at_the_vault_root(tmp_path: Path) -> None:
    files = ["templates/a.md", "work/templates/b.md", "archive/c.md", "work/archive/d.md"]
    assert notes_of(tmp_path, files, ("templates/**", "/archive/")) == [
        "work/archive/d.md",
        "work/templates/b.md",
    ]


def test_a_negation_brings_a_note_back(tmp_path: Path) -> None:
    files = ["templates/a.md", "templates/keep.md", "templates/sub/keep.md", "b.md"]
    walked = notes_of(tmp_path / "v1", files, ("templates/**", "!keep.md"))
    assert walked == ["b.md", "templates/keep.md", "templates/sub/keep.md"]
    # Comments and blank lines are no patterns; a `\#` is a name that starts with `#`.
    files = ["#inbox.md", "a.md"]
    assert notes_of(tmp_path / "v2", files, ("# a comment", "", "\\#inbox.md")) == ["a.md"]


def test_star_stays_inside_one_folder() -> None:
    rules = IgnoreRules(("*.draft.md", "arch*/**", "notes/secret.md", "daily/*.md"))
    assert rules.ignores("x/y/plan.draft.md")  # no slash: a name at any depth
    assert rules.ignores("archive/2025/old.md") and rules.ignores("archived/a.md")
    assert rules.ignores_dir("archive") and rules.ignores_dir("Archived/2025")
    assert not rules.ignores_dir("arc") and not rules.ignores("arc/a.md")
    assert not rules.ignores("x/archive/a.md")
    assert rules.ignores("notes/secret.md") and not rules.ignores("notes/secret2.md")
    assert rules.ignores("daily/2026-01-05.md") and not rules.ignores("daily/2026/01-05.md")


def test_the_built_in_ignores_stay_whatever_the_patterns() -> None:
    none = IgnoreRules(())
    assert not none.ignores("templates/entry.md") and not none.ignores_dir("templates")
    assert none.ignores("a/image.png") and none.ignores_dir(".obsidian")
    assert none.ignores("a/note (Conflicted copy 2026-11-02).md")
    back = IgnoreRules(("!.obsidian/", "!*.png", "!*conflict*"))  # cannot bring them back
    assert back.ignores_dir(".obsidian") and back.ignores(".obsidian/x.md")
    assert back.ignores("a/image.png")
    assert back.ignores("a/note.sync-conflict-20261102-123456-ABC.md")


@pytest.mark.parametrize(("pattern", "said"), [("[z-a]", "[z-a]"), ("a\\", "a\\"), ("!", "!")])
def test_a_pattern_git_would_not_accept_is_named(pattern: str, said: str) -> None:
    with pytest.raises(ValueError, match="not a gitignore pattern") as caught:
        check_patterns(["templates/**", pattern])
    assert f"`{said}`" in str(caught.value)
    check_patterns(["templates/**", "*.draft.md", "!keep.md", "# comment", ""])
