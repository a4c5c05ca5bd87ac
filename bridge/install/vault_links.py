"""Files put into a vault stay in the vault: a symlink that leads out of it is refused.

`setup`, `init` and `make run` write under `.obsidian/`. A person may have linked
`.obsidian`, its `plugins/` folder or `community-plugins.json` somewhere else (config shared
between vaults, a dotfile manager, or a hostile folder); writing through such a link would
create or change files outside the folder they pointed the command at. The store refuses the
same for notes (`VaultStore.absolute`); this is the rule for the config folder, whose dot
names the note paths do not allow.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath


class OutsideVaultError(Exception):
    """A path to be written passes through a symlink that leaves the vault or cannot be
    followed; `link` is that symlink, relative to the vault."""

    def __init__(self, link: str, loops: bool) -> None:
        where = (
            "that cannot be followed (a loop, or back to a folder above it)"
            if loops
            else "to a place outside the vault"
        )
        super().__init__(f"`{link}` is a symlink {where}")
        self.link = link


def escaping_link(vault: Path, rel: str) -> OutsideVaultError | None:
    """The first symlink on the way to `vault/rel` that leads out of the vault, if any.

    Each component is checked rather than only the final path, so the message names the link
    the person made (`.obsidian`, not `.obsidian/plugins/vault-bridge/main.js`). A link to a
    place that does not exist yet is judged by where it points.
    """
    root = vault.resolve()
    current = vault
    parts = PurePosixPath(rel).parts
    for depth, part in enumerate(parts, 1):
        current = current / part
        if not current.is_symlink():
            continue
        link = "/".join(parts[:depth])
        try:
            real = current.resolve(strict=True)
        except FileNotFoundError:
            real = current.resolve()
        except (OSError, RuntimeError):  # a loop (RuntimeError before Python 3.13)
            return OutsideVaultError(link, loops=True)
        if real != root and root not in real.parents:
            return OutsideVaultError(link, loops=False)
        above = current.parent.resolve()
        if real == above or real in above.parents:
            # `.obsidian/plugins -> ..`: inside the vault, but a loop back up; the plugin's
            # files landed in the vault's root folder.
            return OutsideVaultError(link, loops=True)
    return None


def escaping_links(vault: Path, rels: Iterable[str]) -> list[OutsideVaultError]:
    """Every distinct link that `rels` would be written through and that leaves the vault."""
    found: dict[str, OutsideVaultError] = {}
    for rel in rels:
        error = escaping_link(vault, rel)
        if error is not None:
            found.setdefault(error.link, error)
    return list(found.values())


def check_inside(vault: Path, rels: Iterable[str]) -> None:
    """Raise `OutsideVaultError` (naming the first link) when any of `rels` leaves the vault."""
    links = escaping_links(vault, rels)
    if links:
        raise links[0]
