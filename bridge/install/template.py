"""The bundled vault template, copied into a new vault by `init` and `make run`."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from bridge.install.vault_links import check_inside


def template_dir() -> Path:
    """The bundled template: packaged in the wheel, or the repository's `vault-template/`."""
    packaged = Path(__file__).resolve().parents[1] / "_template"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "vault-template"


@dataclass(frozen=True)
class TemplateCopy:
    """The template files `copy_template` created, and those it kept because they existed."""

    created: list[str]
    kept: list[str]


def copy_template(target: Path, source: Path | None = None) -> TemplateCopy:
    """Copy the template into `target`, never overwriting a file someone already has.

    Trigger: `init --force` on a folder whose `.obsidian` links elsewhere. Why: the copy would
    put the template's settings into that other folder. Outcome: `OutsideVaultError` before
    any file is copied.
    """
    source = source or template_dir()
    files = sorted(p for p in source.rglob("*") if p.is_file())
    rels = [file.relative_to(source).as_posix() for file in files]
    check_inside(target, rels)
    created: list[str] = []
    kept: list[str] = []
    for file, rel in zip(files, rels, strict=True):
        dest = target / rel
        if dest.exists():
            kept.append(rel)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(file, dest)
        created.append(rel)
    return TemplateCopy(created, kept)
