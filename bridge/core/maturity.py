"""AKL maturity and its mapping to the `status` frontmatter a human sees."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class Maturity(StrEnum):
    """The three AKL maturity levels, lowest first."""

    DRAFT = "draft"
    VALIDATED = "validated"
    CORE = "core"


DEFAULT_STATUS_NAMES: Mapping[Maturity, str] = {
    Maturity.DRAFT: "draft",
    Maturity.VALIDATED: "stable",
    Maturity.CORE: "core",
}


@dataclass(frozen=True)
class StatusMapping:
    """Translates between maturity and the `status` value written in a note.

    The names are a setting because a vault may already use its own words (`wip`, `final`...).
    Matching is case-insensitive so a human typing `Stable` is understood; an unknown value is
    treated as draft (DESIGN section 4) but never rewritten by the reader.
    """

    names: Mapping[Maturity, str] = field(default_factory=lambda: dict(DEFAULT_STATUS_NAMES))

    def __post_init__(self) -> None:
        missing = [m.value for m in Maturity if m not in self.names]
        if missing:
            raise ValueError(f"status mapping lacks a name for: {', '.join(missing)}")
        lowered = [n.strip().lower() for n in self.names.values()]
        if len(set(lowered)) != len(lowered):
            raise ValueError("status mapping uses the same name for two maturities")

    def status_for(self, maturity: Maturity) -> str:
        """The `status` value to write for `maturity`."""
        return self.names[maturity]

    def maturity_for(self, status: object) -> Maturity | None:
        """The maturity a `status` value stands for, or None when it is unknown or missing."""
        if not isinstance(status, str):
            return None
        wanted = status.strip().lower()
        for maturity, name in self.names.items():
            if name.strip().lower() == wanted:
                return maturity
        return None

    def effective(self, status: object) -> Maturity:
        """The maturity to rank with: unknown or missing status counts as draft."""
        return self.maturity_for(status) or Maturity.DRAFT
