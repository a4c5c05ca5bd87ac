"""Which dialect a vault is written in: read from the tool's own configuration files.

A Logseq graph has `logseq/config.edn`, a Dendron workspace `dendron.yml`, a Foam workspace a
`.foam/` folder or `.vscode/foam.json`; anything else is an Obsidian vault. When several are
present (people open one folder in two tools) the first of that order wins, and the `dialect`
setting chooses otherwise. The configuration says the rest: Logseq's file name format,
folders, journal formats and hidden paths; Dendron's vault folders. A configuration that
cannot be read gives the tool's defaults and a warning, never a crash: the notes are still
there to read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from bridge.core.dialect import (
    OBSIDIAN,
    Dendron,
    Dialect,
    DialectName,
    Foam,
    Logseq,
)
from bridge.core.paths import normalise_folder

log = logging.getLogger(__name__)

LOGSEQ_CONFIG = "logseq/config.edn"
DENDRON_CONFIG = "dendron.yml"
_MAX_CONFIG_BYTES = 1024 * 1024


def detect(root: Path) -> DialectName:
    """The dialect whose configuration `root` holds (`obsidian` when none does)."""
    if (root / LOGSEQ_CONFIG).is_file():
        return "logseq"
    if (root / DENDRON_CONFIG).is_file():
        return "dendron"
    if (root / ".foam").is_dir() or (root / ".vscode" / "foam.json").is_file():
        return "foam"
    return "obsidian"


def load_dialect(root: Path, name: str = "auto") -> Dialect:
    """The vault's dialect: `name` (a setting), or the detected one for `auto`, configured
    from the tool's files."""
    chosen = detect(root) if name == "auto" else name
    match chosen:
        case "logseq":
            return _logseq(root)
        case "dendron":
            return _dendron(root)
        case "foam":
            return Foam()
        case _:
            return OBSIDIAN


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_CONFIG_BYTES:
            log.warning("%s is over 1 MB; read with the tool's defaults", path)
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _edn(text: str, path: Path) -> dict[str, Any]:
    """The top-level map of an EDN file, keys as plain strings (`:file/name-format` ->
    `file/name-format`)."""
    import edn_format  # only for a Logseq graph: the parser is slow to import

    try:
        data = edn_format.loads(text)
    except Exception as exc:  # the parser raises its own errors and plain ones alike
        log.warning("%s is not readable EDN (%s); read with Logseq's defaults", path, exc)
        return {}
    if not isinstance(data, Mapping):  # edn_format's maps are Mappings, not dicts
        return {}
    return {str(key).lstrip(":"): value for key, value in data.items()}


def _folder(value: object, default: str) -> str:
    if not isinstance(value, str):
        return default
    try:
        return normalise_folder(value) or default
    except ValueError:
        return default


def _logseq(root: Path) -> Logseq:
    path = root / LOGSEQ_CONFIG
    text = _read(path)
    config = _edn(text, path) if text is not None else {}
    # A graph whose config does not say is `:legacy`: it predates the setting (Logseq 0.8.9).
    name_format = str(config.get("file/name-format", ":legacy")).lstrip(":")
    hidden = config.get("hidden")
    title = config.get("journal/page-title-format") or config.get("date-formatter")
    return Logseq(
        file_name_format="triple-lowbar" if name_format == "triple-lowbar" else "legacy",
        pages=_folder(config.get("pages-directory"), "pages"),
        journals=_folder(config.get("journals-directory"), "journals"),
        journal_file_format=str(config.get("journal/file-name-format") or "yyyy_MM_dd"),
        journal_title_format=str(title or "MMM do, yyyy"),
        hidden=tuple(h for h in hidden if isinstance(h, str))
        if isinstance(hidden, Sequence) and not isinstance(hidden, str)
        else (),
    )


def _dendron(root: Path) -> Dendron:
    path = root / DENDRON_CONFIG
    text = _read(path)
    try:
        config = yaml.safe_load(text) if text is not None else None
    except yaml.YAMLError as exc:
        log.warning("%s is not readable YAML (%s); notes read from the root", path, exc)
        config = None
    if not isinstance(config, dict):
        return Dendron()
    workspace = config.get("workspace")
    # `workspace.vaults` since dendron.yml version 5; `vaults` at the top before.
    vaults = workspace.get("vaults") if isinstance(workspace, dict) else None
    if vaults is None:
        vaults = config.get("vaults")
    folders: list[str] = []
    names: list[str] = []
    for vault in vaults if isinstance(vaults, list) else []:
        if not isinstance(vault, dict) or not isinstance(vault.get("fsPath"), str):
            continue
        try:
            folder = normalise_folder(vault["fsPath"])
        except ValueError:
            continue  # a vault outside the workspace: not the bridge's to read
        if (root / folder).is_dir():
            folders.append(folder)
            names.append(str(vault.get("name") or Path(folder).name or folder))
    if not folders:
        return Dendron()
    return Dendron(vaults=tuple(folders), vault_names=tuple(names))
