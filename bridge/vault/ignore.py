"""Which files of a vault are notes the bridge reads (DESIGN section 2)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

DEFAULT_EXCLUDE = ("templates/**", "attachments/**")
TEMP_MARKER = ".vb-tmp-"
_SYNC_CONFLICT = re.compile(
    r"( \(conflicted copy.*\)\.md$)|(\.sync-conflict-)|(\.icloud$)", re.IGNORECASE
)


@dataclass(frozen=True)
class IgnoreRules:
    """Decides from a vault-relative POSIX path alone, so the watcher can ask cheaply."""

    exclude: Sequence[str] = DEFAULT_EXCLUDE

    def ignores_dir(self, rel_dir: str) -> bool:
        """True for folders never descended into: dot folders and excluded trees."""
        if "/." in "/" + rel_dir:  # a segment starting with a dot
            return True
        return any(matches(rel_dir + "/") for matches in _matchers(tuple(self.exclude)))

    def ignores(self, rel_path: str) -> bool:
        """True for files that are not notes: non-Markdown, hidden, temp, conflict copies..."""
        name = rel_path.rsplit("/", 1)[-1]
        if not name.lower().endswith(".md") or TEMP_MARKER in name:
            return True
        if "/." in "/" + rel_path:
            return True
        if _SYNC_CONFLICT.search(name):
            return True
        return any(matches(rel_path) for matches in _matchers(tuple(self.exclude)))


@lru_cache(maxsize=64)
def _matchers(patterns: tuple[str, ...]) -> tuple[Callable[[str], bool], ...]:
    """One test per exclude pattern, compiled once (a start-up walk asks for every file)."""
    return tuple(_matcher(pattern) for pattern in patterns)


def _matcher(pattern: str) -> Callable[[str], bool]:
    """`fnmatch` rules; `dir/**` also matches everything under `dir/`."""
    whole = re.compile(fnmatch.translate(pattern)).match
    if not pattern.endswith("/**"):
        return lambda path: whole(path) is not None
    prefix = pattern[:-3].rstrip("/") + "/"
    head = re.compile(fnmatch.translate(prefix)).match
    return lambda path: (
        head(path[: len(prefix)]) is not None or path.startswith(prefix) or whole(path) is not None
    )
