"""Which files of a vault are notes the bridge reads (DESIGN section 2).

Built in, whatever the settings say: dot folders and dot files, files that are not `.md`, sync
conflict copies and the bridge's own temp files. Then the `exclude` setting: `.gitignore` lines
(pathspec's `GitIgnoreSpec`) on the vault-relative path, matched without regard to case, as
Obsidian sees `Templates/` and `templates/` as one folder on macOS and Windows, where most
vaults live. docs/configuration.md states the rules with examples.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from pathspec import GitIgnoreSpec

DEFAULT_EXCLUDE = ("templates/**", "attachments/**")
TEMP_MARKER = ".vb-tmp-"
_SYNC_CONFLICT = re.compile(
    r"( \(conflicted copy.*\)\.md$)|(\.sync-conflict-)|(\.icloud$)", re.IGNORECASE
)


def _compile(patterns: Iterable[str]) -> GitIgnoreSpec:
    """Patterns and paths are lower-cased alike: that is the case-insensitive match."""
    return GitIgnoreSpec.from_lines([p.lower() for p in patterns])


def check_patterns(patterns: Iterable[str]) -> None:
    """Raise `ValueError` naming the first pattern git would not accept (`a\\`, `[z-a]`, `!`).

    Trigger: settings are loaded. Why: pathspec refuses such a line when the rules are first
    used, which would crash the first walk of the vault. Outcome: the settings error names it.
    """
    for pattern in patterns:
        try:
            _compile([pattern])
        except (ValueError, re.error) as exc:
            raise ValueError(f"`{pattern}` is not a gitignore pattern ({exc})") from None


@dataclass(frozen=True)
class IgnoreRules:
    """Decides from a vault-relative POSIX path alone, so the watcher can ask cheaply.

    `tool` holds the patterns of the dialect's own files (Logseq's `logseq/` backups), kept
    apart from `exclude` so that the setting's patterns stay the user's; `roots`, when given,
    are the only folders that hold notes (a Dendron workspace's vaults).
    """

    exclude: Sequence[str] = DEFAULT_EXCLUDE
    tool: Sequence[str] = ()
    roots: Sequence[str] = ()

    @cached_property
    def _spec(self) -> GitIgnoreSpec:
        """Compiled once per rules: a start-up walk asks for every file."""
        return _compile([*self.exclude, *self.tool])

    def _outside_roots(self, rel: str, folder: bool) -> bool:
        """True for a path in no root; a folder above a root is inside (it leads there)."""
        if not self.roots:
            return False
        return not any(
            rel == root or rel.startswith(f"{root}/") or (folder and root.startswith(f"{rel}/"))
            for root in self.roots
        )

    @cached_property
    def _prunes(self) -> bool:
        """True when an excluded folder may be skipped whole.

        Trigger: a `!` pattern. Why: it may bring back a note inside an excluded folder
        (`templates/**` then `!keep.md`), which a walk that skipped the folder would never see.
        Outcome: folders are walked and each file decided on its own; the walk and the watcher,
        which asks about files one by one, then agree.
        """
        return all(pattern.include is not False for pattern in self._spec.patterns)

    def ignores_dir(self, rel_dir: str) -> bool:
        """True for folders never descended into: dot folders and excluded trees."""
        if rel_dir.startswith(".") or "/." in rel_dir:  # a segment starting with a dot
            return True
        if self._outside_roots(rel_dir, folder=True):
            return True
        return self._prunes and self._spec.match_file(rel_dir.lower() + "/")

    def ignores(self, rel_path: str) -> bool:
        """True for files that are not notes: non-Markdown, hidden, temp, conflict copies...

        Asked for every file of a start-up walk: the cheap tests come first, and the sync
        conflict pattern runs only on a name that says "conflict" (the `.icloud` stubs it
        also matches are not `.md` files).
        """
        name = rel_path.rsplit("/", 1)[-1]
        lower = name.lower()
        if not lower.endswith(".md") or TEMP_MARKER in name:
            return True
        if rel_path.startswith(".") or "/." in rel_path:
            return True
        if "conflict" in lower and _SYNC_CONFLICT.search(name):
            return True
        if self._outside_roots(rel_path, folder=False):
            return True
        return self._spec.match_file(rel_path.lower())
