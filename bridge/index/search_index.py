"""The on-disk tantivy index of one vault: incremental updates, batched commits, searches.

One writer (the bridge's indexing thread) and any number of concurrent readers. Each commit
bumps the **generation**, which the query caches use to know that what they hold is current.
"""

from __future__ import annotations

import logging
import math
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from functools import partial
from itertools import compress
from operator import eq
from pathlib import Path
from typing import NamedTuple, cast

import tantivy

from bridge.core.entry import Note
from bridge.core.relations import LinkResolver
from bridge.index import analysis
from bridge.index.analysis import QueryTerms
from bridge.index.block_store import BlockStore
from bridge.index.documents import (
    IndexedBlock,
    build_documents,
    content_key,
    note_blocks,
    participants_of,
)
from bridge.index.manifest import Manifest, NoteRecord
from bridge.index.memory import collector_paused, fix_mmap_threshold
from bridge.index.schema import (
    BLOCK_CJK,
    BLOCK_FIELD,
    ENTRY_CJK,
    ENTRY_FIELDS,
    HEADING_FIELD,
    KINDS,
    SCHEMA_VERSION,
    WINDOW_CJK,
    WINDOW_FIELD,
    block_key,
    build_schema,
    speaker_id,
)
from bridge.vault.store import NoteFile

log = logging.getLogger(__name__)
_Clause = tuple[tantivy.Occur, tantivy.Query]


class IndexBusyError(RuntimeError):
    """Another process (a running `serve`) holds the index writer."""


class IndexCommitError(RuntimeError):
    """tantivy refused a commit: the index on disk is not as this process expects it (what
    is pending is lost; `start_over` and a reconcile rebuild it from the files)."""


class Hit(NamedTuple):
    """A scored document: the note id and the block ordinal (0 for entry documents).

    A tuple: a query builds up to 1,200 of these, and a frozen dataclass costs twice as much.
    """

    nid: int
    ord: int
    score: float


class ScoredHits(NamedTuple):
    """One search's hits by `(note id, block ordinal)`: scores, the block's excerpt words, the
    blocks of a Relations / Raw Concept section, and the turns of the speaker asked about."""

    scores: dict[tuple[int, int], float]
    words: dict[tuple[int, int], int]
    flagged: set[tuple[int, int]]
    spoken: set[tuple[int, int]]


def _no_hits() -> ScoredHits:
    return ScoredHits({}, {}, set(), set())  # fresh: callers may extend what they get


class FileStamp(NamedTuple):
    """What the manifest knows of a file without reading it (a tuple: one per note is made
    at every start-up, see `NoteRecord`)."""

    nid: int
    size: int
    mtime_ns: int
    hash: str


class SearchIndex:
    """tantivy index + manifest in `directory` (inside the state dir, never in the vault)."""

    def __init__(self, directory: Path, writer_heap_mb: int = 128) -> None:
        fix_mmap_threshold()  # freed writer buffers go back to the system
        self.directory = directory
        self._lock = threading.RLock()
        # Blocks and windows are ~20x the entries' documents: they get most of the heap
        # (tantivy refuses less than 15 MB a writer thread).
        share = {"entries": 0.25, "blocks": 0.375, "windows": 0.375}
        self._writer_heap = {
            kind: max(16_000_000, int(writer_heap_mb * 1_000_000 * part))
            for kind, part in share.items()
        }
        self._writers: dict[str, tantivy.IndexWriter] = {}
        self._committer: ThreadPoolExecutor | None = None
        self.schema = build_schema()
        directory.mkdir(parents=True, exist_ok=True)
        self.rebuilt = False
        self.manifest = Manifest(directory / "manifest.sqlite")
        self.block_store, texts_kept = _open_block_store(directory / "blocks.sqlite")
        self.indexes = self._open(texts_kept)
        # Trigger: a cold index. Why: replacing a note's documents starts with a delete term
        # per kind, which tantivy checks against every segment at commit. Outcome: when the
        # index held no document at open, a path without a stamp has nothing to delete (a
        # version added since was deleted by `remove`, the only way a stamp goes).
        self._empty_at_open = all(i.searcher().num_docs == 0 for i in self.indexes.values())
        self._stamps: dict[str, FileStamp] = {}
        self._paths: dict[int, str] = {}
        # The committed manifest rows, mirrored in memory (nid -> record, path -> nid): a query
        # looks up a few hundred notes, which must not cost a few hundred SQLite rows.
        self._records: dict[int, NoteRecord] = {}
        self._record_nids: dict[str, int] = {}
        with collector_paused():
            for rec in self.manifest.all():
                self._stamps[rec.path] = FileStamp(rec.nid, rec.size, rec.mtime_ns, rec.hash)
                self._paths[rec.nid] = rec.path
                self._records[rec.nid] = rec
                self._record_nids[rec.path] = rec.nid
        self._next_nid = max(self._paths, default=0) + 1
        self.generation = int(self.manifest.get_meta("generation") or 0)
        self._pending: dict[str, NoteRecord | None] = {}
        # Bumped when a path appears or disappears (not on edits): link resolution depends on
        # the set of paths only, so resolvers change just when this does, by the logged changes.
        self.paths_version = 0
        self._path_changes: list[tuple[str, bool]] = []  # (path, added) since the resolver
        self._paths_lock = threading.Lock()
        self._dirty = False
        self._docs_dirty = False
        self._last_commit = time.monotonic()
        self._speakers = self._load_speakers()
        self._searchers = {kind: index.searcher() for kind, index in self.indexes.items()}
        self._listeners: list[Callable[[int, list[str]], None]] = []
        self._resolver: tuple[int, LinkResolver] | None = None
        # Per generation: a term's scoped IDF boost, and how many documents a folder holds.
        self._scope_weights: dict[tuple[int, str, str, str, str], float] = {}
        # Block texts of this generation: the same turns and paragraphs are packed into
        # answer after answer, and each miss is a query of the block store.
        self._block_texts: tuple[int, dict[tuple[int, int], IndexedBlock]] = (-1, {})
        self._scope_sizes: dict[tuple[int, str, str], int] = {}

    # -- opening ---------------------------------------------------------------------------

    def _open(self, texts_kept: bool) -> dict[str, tantivy.Index]:
        """The three indexes (entries, blocks, windows); all rebuilt if any is unusable, or
        if the block texts they need were lost (`texts_kept` False).

        Each commit writes the three indexes and the block texts before the manifest, so an
        index can only be ahead of the manifest after a crash, never behind it: the start-up
        comparison of the manifest with the files re-indexes whatever was in flight.
        """
        folder = self.directory / "tantivy"
        version = self.manifest.get_meta("schema_version")
        if folder.exists() and version == str(SCHEMA_VERSION) and not texts_kept:
            log.warning("block texts at %s are missing; rebuilding the index", folder.parent)
        elif folder.exists() and version == str(SCHEMA_VERSION):
            try:
                return {kind: self._open_kind(folder / kind, reuse=True) for kind in KINDS}
            except Exception as exc:  # tantivy raises ValueError/OSError variants
                log.warning(
                    "index at %s is unreadable (%s); rebuilding from the files", folder, exc
                )
        elif folder.exists():
            log.warning("index schema changed; rebuilding from the files")
        return self._create()

    def _create(self) -> dict[str, tantivy.Index]:
        """Three empty indexes, an empty manifest and no block texts: a rebuild starts here."""
        folder = self.directory / "tantivy"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        self.manifest.clear()
        self.block_store.clear()
        self.manifest.set_meta("schema_version", str(SCHEMA_VERSION))
        self.rebuilt = True
        return {kind: self._open_kind(folder / kind, reuse=False) for kind in KINDS}

    def start_over(self) -> None:
        """Drop every document and what is pending: the index is empty, to be filled again
        from the files (`reconcile` does, when tantivy refuses a commit).

        The generation goes on increasing, so no cache keeps an answer from the old index.
        """
        with self._lock:
            self._writers = {}  # dropping them releases their locks
            self.indexes = self._create()
            self._empty_at_open = True
            for known in (self._stamps, self._paths, self._records, self._record_nids):
                known.clear()
            self._pending.clear()
            self._dirty = self._docs_dirty = False
            self._speakers = frozenset()
            self._searchers = {kind: index.searcher() for kind, index in self.indexes.items()}
            with self._paths_lock:
                self.paths_version += 1
                self._path_changes = []
                self._resolver = None
            self._scope_weights.clear()
            self._scope_sizes.clear()
            self._block_texts = (-1, {})
            self.generation += 1

    def _open_kind(self, folder: Path, reuse: bool) -> tantivy.Index:
        if not reuse:
            folder.mkdir(parents=True)
        elif not folder.is_dir():
            raise FileNotFoundError(f"{folder} is missing")
        index = tantivy.Index(self.schema, path=str(folder), reuse=reuse)
        analysis.register(index)
        index.searcher().num_docs  # noqa: B018 - touches the segments: fails if corrupt
        return index

    def close(self) -> None:
        """Commit what is pending and release the writer locks."""
        with self._lock:
            self.commit()
            for writer in self._writers.values():
                writer.wait_merging_threads()
            self._writers = {}
            if self._committer is not None:
                self._committer.shutdown()
                self._committer = None
            self.manifest.close()
            self.block_store.close()

    def _get_writers(self) -> dict[str, tantivy.IndexWriter]:
        if len(self._writers) < len(KINDS):
            try:
                for kind in KINDS:
                    if kind not in self._writers:
                        writer = self.indexes[kind].writer(
                            heap_size=self._writer_heap[kind], num_threads=1
                        )
                        self._writers[kind] = writer
                        self._remove_leftovers(kind, writer)
            except ValueError as exc:
                self._writers = {}  # dropping them releases the locks taken so far
                raise IndexBusyError(
                    f"the index in {self.directory} is in use by another process "
                    "(is `vault-bridge serve` running on this vault?)"
                ) from exc
        return self._writers

    def _remove_leftovers(self, kind: str, writer: tantivy.IndexWriter) -> None:
        """Delete the files an interrupted commit left, before this writer's first commit.

        Trigger: a process killed in the middle of a commit (kill -9, power loss). Why: the
        commit had registered and written `<segment>.<opstamp>.del` files that `meta.json`
        never named; the next process counts opstamps again from `meta.json`, so its commit
        wanted the same names and failed (`FileAlreadyExists`): `serve` could not start.
        tantivy removes such files only after a commit that succeeds. Outcome: its own clean-up
        runs once for each new writer (it deletes only registered files no commit uses), and
        the log says what it removed.
        """
        folder = self.directory / "tantivy" / kind
        before = {file.name for file in folder.iterdir()}
        writer.garbage_collect_files()
        gone = sorted(before - {file.name for file in folder.iterdir()})
        if gone:
            log.warning(
                "removed %d file(s) an interrupted commit left in the %s index: %s",
                len(gone),
                kind,
                ", ".join(gone[:5]) + (" ..." if len(gone) > 5 else ""),
            )

    # -- what is indexed -------------------------------------------------------------------

    def stamp(self, path: str) -> FileStamp | None:
        return self._stamps.get(path)

    def paths(self) -> list[str]:
        return list(self._stamps)

    def path_of(self, nid: int) -> str | None:
        return self._paths.get(nid)

    def document_count(self, kind: str) -> int:
        """Documents in one of the three indexes (as of the last commit)."""
        return int(self._searchers[kind].num_docs)

    def note_count(self, scope: str | None = None) -> int:
        """Notes in the vault, or under the folder `scope` (as of the last commit)."""
        if scope is None:
            return len(self._stamps)
        return self._scope_size("entries", scope)

    def _scope_size(self, kind: str, scope: str) -> int:
        """Documents of `kind` under the folder `scope`, counted once per generation."""
        key = (self.generation, kind, scope)
        size = self._scope_sizes.get(key)
        if size is None:
            if len(self._scope_sizes) > 10_000:
                self._scope_sizes.clear()  # a cache, bounded
            size = self._count(kind, ("folder", scope))
            self._scope_sizes[key] = size
        return size

    def all_records(self) -> list[NoteRecord]:
        """Every note's record as of the last commit, from memory.

        The graph, the tree and the guide want them all; reading them from the manifest file
        took 0.75 s at 100,000 notes, after every write. Taken under the index lock: a commit
        updates them in place.
        """
        with self._lock:
            return list(self._records.values())

    def records(self, nids: Iterable[int]) -> dict[int, NoteRecord]:
        """Manifest records of the given notes as of the last commit (unknown ids left out)."""
        known = self._records
        return {nid: known[nid] for nid in nids if nid in known}

    def link_resolver(self) -> LinkResolver:
        """A resolver over the indexed note paths, updated by the paths added and removed since
        it was made (rebuilt after a bulk change).

        Shared by ranking (relation expansion), the API, MCP and the LLM tools, so none of them
        pays O(notes) per call on a large vault.
        """
        with self._paths_lock:  # held while updating: a second caller waits, then reuses it
            version = self.paths_version
            cached = self._resolver
            if cached is not None and cached[0] == version:
                return cached[1]
            changes, self._path_changes = self._path_changes, []
            if cached is None or len(changes) > _PATH_LOG:
                resolver = LinkResolver(self.paths())
            else:
                added = [path for path, adding in changes if adding]
                removed = [path for path, adding in changes if not adding]
                resolver = cached[1].updated(added, removed)
            self._resolver = (version, resolver)
            return resolver

    def _path_changed(self, path: str, added: bool) -> None:
        with self._paths_lock:
            self.paths_version += 1
            if self._resolver is not None and len(self._path_changes) <= _PATH_LOG:
                self._path_changes.append((path, added))

    def speakers(self) -> frozenset[str]:
        """Every transcript speaker in the vault (lower case), for the speaker boost."""
        return self._speakers

    def _load_speakers(self) -> frozenset[str]:
        found: set[str] = set()
        for rec in self._records.values():
            found.update(rec.participants)
        return frozenset(found)

    # -- writing ---------------------------------------------------------------------------

    def upsert(self, file: NoteFile, note: Note) -> None:
        """Replace the note's documents (not visible until the next commit)."""
        with self._lock:
            stamp = self._stamps.get(file.path)
            nid = stamp.nid if stamp else self._allocate()
            blocks = note_blocks(note)
            content = content_key(note)
            known = self._pending.get(file.path) or self._records.get(nid)
            if stamp is None or known is None or known.content != content:
                fresh = stamp is None and self._empty_at_open
                self._replace_documents(nid, file.path, note, blocks, delete=not fresh)
            # else: only what is not indexed changed (a `status` the decay job wrote, an
            # `updated` stamp): the manifest record is enough. Replacing the documents would
            # leave deleted copies that tantivy keeps counting in its BM25 statistics until a
            # merge (measured: LoCoMo recall fell 3 points after two decay runs).
            updated = note.frontmatter.get("updated")
            record = NoteRecord(
                nid,
                file.path,
                file.size,
                file.mtime_ns,
                file.hash,
                note.title,
                note.entry.status,
                None if updated is None else str(updated),
                tuple(dict.fromkeys(link.target for link in note.links)),
                tuple(sorted(participants_of(note))),
                len(blocks),
                content,
            )
            self._pending[file.path] = record
            self._stamps[file.path] = FileStamp(nid, file.size, file.mtime_ns, file.hash)
            self._paths[nid] = file.path
            if stamp is None:  # after the stamp: a resolver built now already has the path
                self._path_changed(file.path, added=True)
            self._dirty = True
            if record.participants:
                self._speakers = self._speakers | frozenset(record.participants)

    def _replace_documents(
        self, nid: int, path: str, note: Note, blocks: list[IndexedBlock], delete: bool
    ) -> None:
        writers = self._get_writers()
        if delete:
            for writer in writers.values():
                writer.delete_documents_by_term("path", path)
        docs = build_documents(nid, note, blocks)
        self.block_store.replace(nid, blocks, fresh=not delete)
        writers["entries"].add_document(docs.entry)
        for doc in docs.blocks:
            writers["blocks"].add_document(doc)
        for doc in docs.windows:
            writers["windows"].add_document(doc)
        self._docs_dirty = True

    def touch(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new mtime for unchanged bytes, so the next start-up skips the file."""
        with self._lock:
            stamp = self._stamps.get(path)
            if stamp is None:
                return
            self._stamps[path] = FileStamp(stamp.nid, size, mtime_ns, stamp.hash)
            rec = self._records.get(stamp.nid)
            if rec is not None:
                touched = rec._replace(size=size, mtime_ns=mtime_ns)
                self.manifest.apply([touched], [], {})
                self._mirror([touched], [])

    def remove(self, path: str) -> bool:
        """Remove a note's documents; False when it was not indexed."""
        with self._lock:
            stamp = self._stamps.pop(path, None)
            if stamp is None:
                return False
            for writer in self._get_writers().values():
                writer.delete_documents_by_term("path", path)
            self.block_store.remove(stamp.nid)
            self._docs_dirty = True
            self._paths.pop(stamp.nid, None)
            self._path_changed(path, added=False)
            self._pending[path] = None
            self._dirty = True
            return True

    def _allocate(self) -> int:
        nid = self._next_nid
        self._next_nid += 1
        return nid

    @property
    def has_pending(self) -> bool:
        return self._dirty

    def commit(self) -> bool:
        """Make pending changes searchable and bump the generation; False if nothing was pending."""
        with self._lock:
            if not self._dirty:
                return False
            if self._docs_dirty and self._writers:
                self._commit_writers()  # all three before the manifest (see `_open`)
                self.block_store.commit()  # the texts, before a searcher can find them
                for kind in KINDS:
                    self.indexes[kind].reload()
                self._searchers = {k: index.searcher() for k, index in self.indexes.items()}
                self._docs_dirty = False
            self.generation += 1
            upserts = [r for r in self._pending.values() if r is not None]
            deletes = [p for p, r in self._pending.items() if r is None]
            self.manifest.apply(upserts, deletes, {"generation": str(self.generation)})
            self._mirror(upserts, deletes)
            changed = list(self._pending)
            self._pending.clear()
            self._dirty = False
            self._last_commit = time.monotonic()
        for listener in list(self._listeners):
            try:
                listener(self.generation, changed)
            except Exception:  # a broken listener must not break indexing
                log.exception("index commit listener failed")
        return True

    def _commit_writers(self) -> None:
        """Commit the three writers: a small change on three threads at once, a large one
        (a start-up or a bulk import) one writer after the other.

        Trigger: an agent's one-note write at 10,000 notes took 47 ms, 45 of them in three
        tantivy commits one after the other (each writes and syncs its segment files, without
        holding the GIL). Outcome: a commit of a few notes overlaps the three (2.3x faster);
        a large one does not: overlapped, a cold index of 10,000 notes took 15% more CPU and
        20 MB more memory (measured, 3 pairs). The first error is raised after all finished.
        """
        writers = [self._writers[kind] for kind in KINDS]
        try:
            if len(self._pending) > _SMALL_COMMIT:
                for writer in writers:
                    writer.commit()
                return
            if self._committer is None:
                self._committer = ThreadPoolExecutor(len(KINDS), thread_name_prefix="index-commit")
            done = [self._committer.submit(writer.commit) for writer in writers]
            wait(done)
            for future in done:
                future.result()
        except (ValueError, OSError) as exc:  # tantivy's errors surface as ValueError
            raise IndexCommitError(f"the search index refused a commit: {exc}") from exc

    def _mirror(self, upserts: list[NoteRecord], deletes: list[str]) -> None:
        """Apply to the in-memory records what `Manifest.apply` just wrote (same rules)."""
        records, nids = self._records, self._record_nids
        for path in deletes:
            gone = nids.pop(path, None)
            if gone is not None:
                records.pop(gone, None)
        for rec in upserts:
            old = nids.get(rec.path)
            if old is not None and old != rec.nid:  # same path, other id: replaced
                records.pop(old, None)
            prev = records.get(rec.nid)
            if prev is not None and prev.path != rec.path and nids.get(prev.path) == rec.nid:
                del nids[prev.path]  # same id, other path: replaced
            records[rec.nid] = rec
            nids[rec.path] = rec.nid

    def add_commit_listener(self, listener: Callable[[int, list[str]], None]) -> None:
        """Call `listener(generation, changed_paths)` after every commit (e.g. to push events)."""
        self._listeners.append(listener)

    def seconds_since_commit(self) -> float:
        return time.monotonic() - self._last_commit

    # -- searching -------------------------------------------------------------------------

    def _term(self, field: str, term: str, boost: float = 1.0) -> tantivy.Query:
        query = tantivy.Query.term_query(self.schema, field, term)
        return query if boost == 1.0 else tantivy.Query.boost_query(query, boost)

    def _should(self, clauses: Sequence[tantivy.Query]) -> tantivy.Query:
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])

    def _clauses(
        self, kind: str, terms: QueryTerms, fields: dict[str, float], cjk: str, scope: str | None
    ) -> list[tantivy.Query]:
        pairs = [(f, t, b) for t in terms.words for f, b in fields.items()]
        pairs += [(cjk, g, 1.0) for g in terms.bigrams]
        if scope is None:
            return [self._term(f, t, b) for f, t, b in pairs]
        return [self._term(f, t, b * self._scope_weight(kind, f, t, scope)) for f, t, b in pairs]

    def _count(self, kind: str, *musts: tuple[str, str]) -> int:
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, self._term(f, v)) for f, v in musts]
        )
        found = self._searchers[kind].search(query, 1, count=True)
        return int(getattr(found, "count", None) or 0)  # the stubs lack `count`

    def _scope_weight(self, kind: str, field: str, term: str, scope: str) -> float:
        """Boost that turns the term's vault-wide IDF into its IDF inside `scope`.

        Trigger: a query scoped to a folder. Why: tantivy weighs a term by its rarity in the
        whole index, so a name that is rare in the vault but in every note of the folder (a
        project's or a person's own folder) outweighs the words that tell those notes apart.
        Outcome: the scoped query ranks as if the folder were the whole vault (BM25 IDF is a
        factor of each term's score, so a per-term boost of local/global IDF does exactly
        that; the average length stays the vault's). Counts are cached per generation.
        """
        key = (self.generation, kind, field, term, scope)
        cached = self._scope_weights.get(key)
        if cached is not None:
            return cached
        searcher = self._searchers[kind]
        df = searcher.doc_freq(field, term)
        weight = 1.0
        if df > 0:
            local_n = self._scope_size(kind, scope)
            local_df = self._count(kind, (field, term), ("folder", scope))
            if local_df > 0 and local_n > 0:
                weight = idf(local_n, local_df) / idf(searcher.num_docs, df)
        if len(self._scope_weights) > 100_000:
            self._scope_weights.clear()  # a cache, bounded
        self._scope_weights[key] = weight
        return weight

    def _run(self, kind: str, query: tantivy.Query, limit: int) -> list[Hit]:
        searcher = self._searchers[kind]
        hits = searcher.search(query, limit, count=False).hits  # built anew on each access
        if not hits:
            return []
        addresses = [address for _, address in hits]
        nids = searcher.fast_field_values("nid", addresses)
        ords = searcher.fast_field_values("ord", addresses)
        return [
            Hit(int(n), int(o), float(score))
            for (score, _), n, o in zip(hits, nids, ords, strict=True)
            if n is not None and o is not None
        ]

    def _filtered(self, query: tantivy.Query, **terms: str | None) -> tantivy.Query:
        """The query restricted to documents whose raw `field` equals each given value.

        The filters score 0: a scored folder term added its own IDF to every hit of a scoped
        query, which squeezed the top-normalised scores the ranking rule adds up.
        """
        musts = [
            (tantivy.Occur.Must, tantivy.Query.const_score_query(self._term(f, v), 0.0))
            for f, v in terms.items()
            if v is not None
        ]
        if not musts:
            return query
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, query), *musts])

    def _scores(
        self, kind: str, query: tantivy.Query, limit: int, flags: bool, speaker: str | None
    ) -> ScoredHits:
        """Hits as `{(note id, ordinal): score}` with each block's words, built at C speed;
        with `flags`, the Relations / Raw Concept blocks, and with a `speaker`, their turns.

        The ranking needs only these maps; building up to 1,200 `Hit` tuples a query cost more
        than tantivy's own search. The words (a fast field) let packing run on the hits alone.
        """
        searcher = self._searchers[kind]
        # `hits` is a new list of tuples on each access: 400 of them cost as much as the
        # search itself, so it is read once.
        hits = searcher.search(query, limit, count=False).hits
        if not hits:
            return _no_hits()
        scores, addresses = zip(*hits, strict=True)
        docs = list(addresses)
        nids = searcher.fast_field_values("nid", docs)
        ords = searcher.fast_field_values("ord", docs)
        keys = cast("list[tuple[int, int]]", list(zip(nids, ords, strict=True)))
        flagged: set[tuple[int, int]] = set()
        if flags:  # the blocks whose flags are set (a missing value is None)
            flagged = set(compress(keys, searcher.fast_field_values("flags", docs)))
        spoken: set[tuple[int, int]] = set()
        if speaker is not None:
            said = searcher.fast_field_values("speaker", docs)
            spoken = set(compress(keys, map(partial(eq, speaker_id(speaker)), said)))
        found = dict(zip(keys, cast("tuple[float, ...]", scores), strict=True))
        counts = cast("list[int]", searcher.fast_field_values("words", docs))
        words = dict(zip(keys, counts, strict=True))
        if None in nids or None in ords:  # a document without ids (never written so)
            found = {k: v for k, v in found.items() if None not in k}
        return ScoredHits(found, words, flagged, spoken)

    def block_scores(
        self, terms: QueryTerms, limit: int, scope: str | None = None, speaker: str | None = None
    ) -> ScoredHits:
        """Block hits as a score map, their words, the blocks of Relations / Raw Concept
        sections, and those of them that are turns of `speaker` (a transcript's participant,
        lower case).

        Trigger: a question naming one speaker boosts that speaker's turns. Why: finding them
        with a second search filtered by speaker cost a fifth of a LoCoMo query. Outcome: each
        turn carries its speaker as a fast field, read for the hits this search found.
        """
        if terms.empty:
            return _no_hits()
        query = self._should(self._clauses("blocks", terms, {BLOCK_FIELD: 1.0}, BLOCK_CJK, scope))
        return self._scores("blocks", self._filtered(query, folder=scope), limit, True, speaker)

    def window_scores(
        self, terms: QueryTerms, limit: int, scope: str | None = None, speaker: str | None = None
    ) -> ScoredHits:
        """Window hits as a score map (keyed by their centre block), with the centre's words
        and the centres that are turns of `speaker`."""
        if terms.empty:
            return _no_hits()
        query = self._should(
            self._clauses("windows", terms, {WINDOW_FIELD: 1.0}, WINDOW_CJK, scope)
        )
        return self._scores("windows", self._filtered(query, folder=scope), limit, False, speaker)

    def search_entries(self, terms: QueryTerms, limit: int, scope: str | None = None) -> list[Hit]:
        if terms.empty:
            return []
        query = self._should(self._clauses("entries", terms, ENTRY_FIELDS, ENTRY_CJK, scope))
        return self._run("entries", self._filtered(query, folder=scope), limit)

    def all_terms_match(self, terms: QueryTerms, scope: str | None = None) -> bool:
        """True when some note contains every query term (in any of its fields)."""
        if terms.empty:
            return False
        musts: list[_Clause] = []
        for word in terms.words:
            per_field = self._should([self._term(f, word) for f in ENTRY_FIELDS])
            musts.append((tantivy.Occur.Must, per_field))
        for gram in terms.bigrams:
            musts.append((tantivy.Occur.Must, self._term(ENTRY_CJK, gram)))
        query = self._filtered(tantivy.Query.boolean_query(musts), folder=scope)
        return bool(self._searchers["entries"].search(query, 1, count=False).hits)

    def term_coverage(self, terms: QueryTerms, nids: Sequence[int]) -> float:
        """The largest share of the query's words, weighted by IDF, that one of `nids` holds.

        An out-of-domain signal beside the dense channel's: "the capital of Australia" finds
        notes with "capital", never one with both; a question about the vault's own things
        finds a note with most of its rare words. A word no note holds weighs most.
        """
        if not terms.words or not nids:
            return 0.0
        searcher = self._searchers["entries"]
        docs = max(1, searcher.num_docs)
        paths = [p for nid in nids if (p := self._paths.get(nid)) is not None]
        if not paths:
            return 0.0
        among = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(self.schema, "path", paths), 0.0
        )
        held: dict[int, float] = {}
        total = 0.0
        for word in terms.words:
            df = self.doc_frequency(word)
            weight = idf(docs, df)
            total += weight
            if df == 0:
                continue
            has = self._should([self._term(f, word) for f in ENTRY_FIELDS])
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, has), (tantivy.Occur.Must, among)]
            )
            for hit in self._run("entries", query, len(nids)):
                held[hit.nid] = held.get(hit.nid, 0.0) + weight
        return max(held.values(), default=0.0) / total if total > 0 else 0.0

    def doc_frequency(self, term: str) -> int:
        """In how many notes the (analysed) term or CJK bigram occurs, in its commonest field."""
        searcher = self._searchers["entries"]
        return max(searcher.doc_freq(field, term) for field in (*ENTRY_FIELDS, ENTRY_CJK))

    def term_exists(self, term: str) -> bool:
        """True when any note contains the (analysed) term."""
        searcher = self._searchers["entries"]
        return any(searcher.doc_freq(field, term) > 0 for field in ENTRY_FIELDS)

    def lead_block(self, nid: int, look: int, words: Iterable[str]) -> tuple[int, int] | None:
        """(ordinal, excerpt words) of a note's lead block among its first `look` blocks: the
        first of knowledge (outside a Relations / Raw Concept section) under a heading holding
        one of the analysed `words`, else the first of knowledge, else the first; None when
        it has none indexed. (A heading path starts with the note's title, so a title match
        puts every block under a matching heading: knowledge still comes before relations.)

        Two searches over the note's block keys and fast fields: reading the blocks' stored
        documents to see their headings cost 16 document reads a lead.
        """
        if look <= 0:
            return None
        keys = self._should([self._term("key", block_key(nid, o)) for o in range(look)])
        wanted = [self._term(HEADING_FIELD, w) for w in dict.fromkeys(words)]
        if wanted:
            headed = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, keys), (tantivy.Occur.Must, self._should(wanted))]
            )
            found = [row for row in self._block_columns(headed, look) if not row[2]]
            if found:
                return min(found)[:2]
        found = self._block_columns(keys, look)
        if not found:
            return None
        plain = [row for row in found if not row[2]]
        return min(plain or found)[:2]

    def _block_columns(self, query: tantivy.Query, limit: int) -> list[tuple[int, int, int]]:
        """(ordinal, words, flags) of the block documents `query` finds."""
        searcher = self._searchers["blocks"]
        docs = [address for _, address in searcher.search(query, limit, count=False).hits]
        if not docs:
            return []
        columns = [searcher.fast_field_values(f, docs) for f in ("ord", "words", "flags")]
        return [
            (int(o), int(w or 0), int(f or 0))
            for o, w, f in zip(*columns, strict=True)
            if o is not None
        ]

    def blocks(self, keys: Iterable[tuple[int, int]]) -> dict[tuple[int, int], IndexedBlock]:
        """Text and position of blocks, by (note id, ordinal), from the block store."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        cache = self._block_texts
        if cache[0] != self.generation:
            cache = self._block_texts = (self.generation, {})
        known = cache[1]
        out: dict[tuple[int, int], IndexedBlock] = {k: known[k] for k in wanted if k in known}
        wanted = [k for k in wanted if k not in out]
        if not wanted:
            return out
        if len(known) > _BLOCK_TEXT_CACHE:
            known.clear()  # a cache, bounded
        for key, block in self.block_store.get(wanted).items():
            out[key] = known[key] = block
        return out


def _open_block_store(path: Path) -> tuple[BlockStore, bool]:
    """The block store, and whether it kept its texts: False when it was missing or
    unreadable (it is then made anew, empty, and the index must be rebuilt)."""
    existed = path.exists()
    try:
        return BlockStore(path), existed
    except sqlite3.OperationalError:
        raise  # locked or not openable: not damage, and not ours to delete
    except sqlite3.DatabaseError as exc:
        log.warning("block texts at %s are unreadable (%s); starting them anew", path, exc)
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    return BlockStore(path), False


_SMALL_COMMIT = 64  # notes: a commit of at most this many overlaps its three writers
_PATH_LOG = 2_000  # path changes applied to the link resolver one by one; more: a rebuild
_BLOCK_TEXT_CACHE = 20_000  # blocks; a few MB of text at most


def idf(docs: float, doc_freq: float) -> float:
    """BM25's IDF as tantivy computes it: `ln(1 + (N - n + 0.5) / (n + 0.5))`."""
    return math.log(1.0 + (docs - doc_freq + 0.5) / (doc_freq + 0.5))
