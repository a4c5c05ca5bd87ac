"""Which files of a vault are notes the bridge reads (DESIGN section 2)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

DEFAULT_EXCLUDE = ("templates/**", "attachments/**")
TEMP_MARKER = ".vb-tmp-"
_SYNC_CONFLICT = re.compile(
    r"( \(conflicted copy.*\)\.md$)|(\.sync-conflict-)|(\.icloud$)", re.IGNORECASE
)

_NOTHING = re.compile(r"(?!)")  # matches nothing: no exclude pattern


@dataclass(frozen=True)
class IgnoreRules:
    """Decides from a vault-relative POSIX path alone, so the watcher can ask cheaply."""

    exclude: Sequence[str] = DEFAULT_EXCLUDE

    @cached_property
    def _excluded(self) -> Callable[[str], re.Match[str] | None]:
        """One compiled test for all exclude patterns (`fnmatch` rules), made once per rules:
        a start-up walk asks for every file, and a test per pattern took 0.4 s of a
        100,000-note warm start.

        `dir/**` also matches everything under `dir/`: fnmatch's `*` crosses `/`, so the
        pattern as translated already does (and `dir/` itself, which is how a folder is asked
        about).
        """
        if not self.exclude:
            return _NOTHING.match
        alternatives = "|".join(f"(?:{fnmatch.translate(p)})" for p in self.exclude)
        return re.compile(alternatives).match

    def ignores_dir(self, rel_dir: str) -> bool:
        """True for folders never descended into: dot folders and excluded trees."""
        if rel_dir.startswith(".") or "/." in rel_dir:  # a segment starting with a dot
            return True
        return self._excluded(rel_dir + "/") is not None

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
        return self._excluded(rel_path) is not None
