"""Which files of a vault are notes the bridge reads (DESIGN section 2)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass

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
        parts = rel_dir.split("/")
        if any(p.startswith(".") for p in parts if p):
            return True
        return any(self._glob(rel_dir + "/", pattern) for pattern in self.exclude)

    def ignores(self, rel_path: str) -> bool:
        """True for files that are not notes: non-Markdown, hidden, temp, conflict copies..."""
        parts = rel_path.split("/")
        name = parts[-1]
        if not name.lower().endswith(".md") or TEMP_MARKER in name:
            return True
        if any(p.startswith(".") for p in parts):
            return True
        if _SYNC_CONFLICT.search(name):
            return True
        return any(self._glob(rel_path, pattern) for pattern in self.exclude)

    @staticmethod
    def _glob(path: str, pattern: str) -> bool:
        if pattern.endswith("/**"):
            prefix = pattern[:-3].rstrip("/") + "/"
            if fnmatch.fnmatchcase(path[: len(prefix)], prefix) or path.startswith(prefix):
                return True
        return fnmatch.fnmatchcase(path, pattern)
