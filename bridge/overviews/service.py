"""Folder overviews over a real vault: gather facts, compute, and refresh `_index.md` regions.

Three callers: the `overviews` command (all folders, or one subtree), the single writer's
announcement of each batch, to which the wiring subscribes `refresh_after_batch` (only the
folders a batch touched, and only those whose `_index.md` holds the markers), and the read side
(`/v1/tree`, MCP `memory_tree`: one folder, nothing written).

The files are the truth: a refresh runs right after a batch's writes, before the index has
them. So the notes whose summaries a region shows are read and parsed, and so is every note the
batch wrote; notes listed only by title (inside a parent's region) take title and status from
the index, which keeps a refresh on a large vault cheap (a note the index does not know is
parsed); every other note only counts toward its folders.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any

from bridge.core.dialect import tree_parent
from bridge.core.overview import (
    FolderOverview,
    MarkerError,
    NoteFacts,
    ancestors,
    compute_overviews,
    index_path,
    is_index_note,
    locate_region,
    render_region,
    within,
)
from bridge.core.paths import parent, stem
from bridge.curate.results import BatchWritten
from bridge.index.search_index import SearchIndex
from bridge.overviews.regions import RegionOutcome, RegionState, plan_region, write_region
from bridge.state.provenance import AgentWrites
from bridge.vault.store import NoteError, VaultStore

log = logging.getLogger(__name__)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def gather_facts(
    store: VaultStore,
    paths: Iterable[str],
    detailed: Collection[str] | None = None,
    titled: Collection[str] = (),
    index: SearchIndex | None = None,
    written: Collection[str] = (),
    folder_of: Callable[[str], str] = parent,
) -> list[NoteFacts]:
    """Facts of each note, read only as far as the overview needs them.

    `folder_of` names the tree level holding a note (its folder, unless the vault's dialect
    builds the tree otherwise: `dialect.tree_parent`).

    Notes directly in a `detailed` folder (None: every folder) are read and parsed: their
    summaries are shown. Notes directly in a `titled` folder need title and status only: from
    the index's record, unless the note is among the `written` ones the index has not seen
    yet, or the index does not know it; then it is parsed. Other notes only count, so their
    path is enough. A note that cannot be read at all (binary, too large, gone) is left out,
    as the index leaves it out.
    """
    facts: list[NoteFacts] = []
    by_title: list[str] = []  # title and status will do: from the index, in one lookup
    for path in paths:
        folder = folder_of(path)
        if is_index_note(path):
            facts.append(NoteFacts(path, stem(path)))
        elif detailed is None or folder in detailed:
            facts += _parsed(store, path)
        elif folder in titled and index is not None and path not in written:
            by_title.append(path)
        elif folder in titled:
            facts += _parsed(store, path)
        else:
            facts.append(NoteFacts(path, stem(path)))
    if index is not None and by_title:
        stamps = {path: index.stamp(path) for path in by_title}
        records = index.records(s.nid for s in stamps.values() if s is not None)
        for path, stamp in stamps.items():
            record = records.get(stamp.nid) if stamp is not None else None
            if record is None:  # not indexed (yet): the file says
                facts += _parsed(store, path)
            else:
                facts.append(NoteFacts(path, record.title, "", record.status))
    if folder_of is parent:
        return facts
    return [replace(f, folder=folder_of(f.path)) for f in facts]


def _parsed(store: VaultStore, path: str) -> list[NoteFacts]:
    try:
        note = store.read(path).parse()
    except NoteError:
        return []
    return [NoteFacts(path, note.title, note.entry.summary, note.entry.status)]


def _under(folder: str, root: str | None) -> bool:
    return not root or folder == root or folder.startswith(f"{root}/")


def overview_from_paths(store: VaultStore, paths: Iterable[str], folder: str) -> FolderOverview:
    """One level's overview, given every note path of the vault (the index's list will do).

    The levels are the vault dialect's tree: folders, or a Logseq graph's namespaces and a
    Dendron vault's dotted names (`proj/auth` holds `proj.auth.jwt.md`).
    """
    dialect = store.dialect

    def folder_of(path: str) -> str:
        return tree_parent(dialect, path)

    inside = [p for p in paths if _under(folder_of(p), folder)]
    facts = gather_facts(store, inside, {folder}, folder_of=folder_of)
    return compute_overviews(facts, {folder})[folder]


def folder_overview(store: VaultStore, index: SearchIndex, folder: str = "") -> FolderOverview:
    """The overview of `folder` (`""`: the vault root) on a live bridge; writes nothing.

    Paths come from the index (no walk of the vault); the titles, summaries and statuses of
    the folder's own notes are read from the files. Whether or not the folder has an
    `_index.md` with markers, the overview is the same. A folder that holds nothing gets an
    empty overview.
    """
    return overview_from_paths(store, index.paths(), folder.strip().strip("/"))


# -- reports -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OverviewsReport:
    """Folders' overviews and what happened (or would happen) to each one's `_index.md`."""

    overviews: dict[str, FolderOverview]
    outcomes: dict[str, RegionOutcome]
    written: bool
    nested: dict[str, FolderOverview] | None = None  # what the regions list below each folder

    @property
    def problems(self) -> list[RegionOutcome]:
        return [o for o in self.outcomes.values() if o.problem]

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for outcome in self.outcomes.values():
            counts[outcome.state] = counts.get(outcome.state, 0) + 1
        return dict(sorted(counts.items()))

    def to_json(self) -> dict[str, Any]:
        nested = self.nested if self.nested is not None else self.overviews
        return {
            "written": self.written,
            "counts": self.counts(),
            "folders": [
                {
                    **self.overviews[f].to_json(),
                    "markdown": render_region(self.overviews[f], nested),
                    "region": self.outcomes[f].to_json(),
                }
                for f in sorted(self.overviews)
            ],
        }


def _walk(store: VaultStore, folders: Iterable[str]) -> list[str]:
    """Note paths under the given folders, each walked once (a folder inside another is not)."""
    chosen = sorted(set(folders))
    if "" in chosen:
        return list(store.iter_paths())
    tops = [f for f in chosen if not any(a in chosen for a in ancestors(f) if a)]
    return [path for top in tops for path in store.iter_paths(top)]


def check_overviews(store: VaultStore, under: str | None = None) -> OverviewsReport:
    """Every folder's overview at or below `under` and what would happen to its `_index.md`.

    Reads every note there (each folder's overview shows its notes' summaries); writes nothing.
    """
    paths = _walk(store, [under or ""])
    everything = compute_overviews(gather_facts(store, paths))
    overviews = {f: o for f, o in everything.items() if _under(f, under)}
    outcomes = {f: plan_region(store, o, everything).outcome() for f, o in overviews.items()}
    return OverviewsReport(overviews, outcomes, written=False, nested=everything)


def _refresh(
    store: VaultStore,
    writes: AgentWrites | None,
    paths: list[str],
    folders: Collection[str],
    now: dt.datetime,
    author: str | None,
    index: SearchIndex | None,
    written: Collection[str] = (),
) -> OverviewsReport:
    """Compute the overviews of `folders` from `paths` (everything below them) and write the
    region of each one's `_index.md` that holds the markers."""
    wanted = set(folders)
    parents = {parent(path) for path in paths}
    present = parents | {f for folder in parents for f in ancestors(folder) if folder}
    titled = {f for f in present if any(within(f, top) for top in wanted)} - wanted
    facts = gather_facts(store, paths, wanted, titled, index, written)
    everything = compute_overviews(facts, wanted | titled)
    overviews = {f: everything[f] for f in sorted(wanted) if f in everything}
    outcomes = {}
    for folder, overview in overviews.items():
        plan = plan_region(store, overview, everything)
        outcomes[folder] = outcome = write_region(store, plan, writes, now, author)
        _log(outcome)
    return OverviewsReport(overviews, outcomes, written=True, nested=everything)


def write_overviews(
    store: VaultStore,
    writes: AgentWrites | None,
    under: str | None = None,
    now: dt.datetime | None = None,
    index: SearchIndex | None = None,
) -> OverviewsReport:
    """Refresh the region of every `_index.md` at or below `under` that holds the markers.

    The report covers the folders that have an `_index.md` (with or without markers). A note
    without markers is never written. The caller holds the single writer's lock; `index`
    (optional) spares re-reading notes that regions list by title only.
    """
    paths = _walk(store, [under or ""])
    folders = {parent(p) for p in paths if is_index_note(p) and _under(parent(p), under)}
    return _refresh(store, writes, paths, folders, now or _utcnow(), None, index)


# -- after a curation batch ----------------------------------------------------------------------


def _has_region(store: VaultStore, folder: str) -> bool:
    """True when the folder's `_index.md` holds markers (sound or not: bad ones get reported)."""
    path = index_path(folder)
    if store.ignore.ignores(path):
        return False
    try:
        text = store.read(path).text
    except NoteError:
        return False
    try:
        return locate_region(text) is not None
    except MarkerError:
        return True


def refresh_changed(
    store: VaultStore,
    writes: AgentWrites | None,
    changed: Iterable[str],
    now: dt.datetime,
    author: str | None = None,
    index: SearchIndex | None = None,
) -> list[RegionOutcome]:
    """Refresh the regions of the folders holding `changed` paths and of their ancestors.

    Ancestors too, because a subfolder's count changes with every note added or removed below
    it. Each folder is written at most once, and only when its `_index.md` holds markers and
    its overview changed; `author` as in `write_region`. The caller holds the single writer's
    lock.
    """
    touched = set(changed)
    folders = {folder for path in touched for folder in ancestors(path)}
    wanted = sorted(f for f in folders if _has_region(store, f))
    if not wanted:
        return []
    if index is None:
        paths = _walk(store, wanted)
    else:
        # Not a walk of the vault (a root `_index.md` would walk all of it every batch): the
        # index already lists every note, kept live by the watcher, and only this batch's own
        # writes are not in it yet. Its list, corrected by the batch's paths (created ones
        # added, removed ones taken out).
        exists = {p for p in touched if not store.ignore.ignores(p) and store.stat(p)}
        listed = (set(index.paths()) | exists) - (touched - exists)
        paths = sorted(p for p in listed if any(_under(parent(p), top) for top in wanted))
    report = _refresh(store, writes, paths, wanted, now, author, index, touched)
    return list(report.outcomes.values())


def refresh_after_batch(
    store: VaultStore, writes: AgentWrites | None, batch: BatchWritten, index: SearchIndex | None
) -> list[str]:
    """The single writer's batch listener: refresh the regions the batch touched.

    Returns the `_index.md` paths written, which join the batch. The writes are the batch
    author's agent writes; after a human's reject the notes keep their owners. A failure here
    must not fail a batch whose operations were applied: it is logged, and the next batch or
    `overviews --write` tries again.
    """
    writer = batch.author if batch.author.startswith("agent:") else None
    try:
        outcomes = refresh_changed(store, writes, batch.changed, batch.at, writer, index)
    except (OSError, NoteError, ValueError) as exc:  # ValueError: an unsafe path
        log.warning("folder overviews not refreshed: %s", exc)
        return []
    return [o.path for o in outcomes if o.state == "updated"]


_QUIET: frozenset[RegionState] = frozenset({"unchanged", "no_index", "no_markers"})


def _log(outcome: RegionOutcome) -> None:
    if outcome.state == "updated":
        log.info("overview of `%s/` refreshed in %s", outcome.folder, outcome.path)
    elif outcome.state not in _QUIET:
        log.warning("overview region of %s not written (%s): %s", *_parts(outcome))


def _parts(outcome: RegionOutcome) -> tuple[str, str, str]:
    return outcome.path, outcome.state.replace("_", " "), outcome.detail
