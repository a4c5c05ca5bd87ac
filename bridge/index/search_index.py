"""The on-disk tantivy index of one vault: incremental updates, batched commits, searches.

One writer (the bridge's indexing thread) and any number of concurrent readers. Each commit
bumps the **generation**, which the query caches use to know that what they hold is current.

This module keeps the index in line with the notes (upsert, remove, commit); the files on disk
are `files.py`'s, what is indexed is held in memory by `catalog.py`, and the searches and term
statistics of each generation are `searching.py`'s and `term_stats.py`'s.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import tantivy

from bridge.core.dialect import Obsidian
from bridge.core.entry import Note
from bridge.core.language import language_code
from bridge.core.relations import LinkResolver
from bridge.index.analysis import QueryTerms
from bridge.index.block_store import BlockStore
from bridge.index.catalog import Catalog
from bridge.index.documents import (
    IndexedBlock,
    build_documents,
    content_key,
    note_blocks,
    participants_of,
)
from bridge.index.files import IndexBusyError, IndexCommitError, IndexFiles
from bridge.index.manifest import Manifest, NoteRecord
from bridge.index.queries import Hit, idf
from bridge.index.searching import ScoredHits, Snapshot
from bridge.vault.store import NoteFile

__all__ = [
    "Hit",
    "IndexBusyError",
    "IndexCommitError",
    "ScoredHits",
    "SearchIndex",
    "idf",
]

log = logging.getLogger(__name__)

_SMALL_COMMIT = 64  # notes: a commit of at most this many overlaps its three writers


class SearchIndex:
    """tantivy index + manifest in `directory` (inside the state dir, never in the vault)."""

    def __init__(
        self, directory: Path, writer_heap_mb: int = 128, reading: str = "obsidian"
    ) -> None:
        """`reading`: how the notes are read (the vault's dialect, `dialect.describe`); an
        index built under another reading is rebuilt, as the same files now give other
        documents."""
        self.directory = directory
        self._lock = threading.RLock()
        self._files = IndexFiles(directory, writer_heap_mb, reading)
        # Trigger: a cold index. Why: replacing a note's documents starts with a delete term
        # per kind, which tantivy checks against every segment at commit. Outcome: when the
        # index held no document at open, a path without a stamp has nothing to delete (a
        # version added since was deleted by `remove`, the only way a stamp goes).
        searchers = self._files.searchers()
        self._empty_at_open = all(s.num_docs == 0 for s in searchers.values())
        self._catalog = Catalog(self.manifest.all())
        self._folder_languages: tuple[int, frozenset[str]] | None = None
        generation = int(self.manifest.get_meta("generation") or 0)
        self._now = Snapshot(generation, self.schema, searchers, self.block_store)
        self._pending: dict[str, NoteRecord | None] = {}
        self._retired: list[int] = []  # ids of notes removed since the last commit
        self._dirty = False
        self._docs_dirty = False
        self._last_commit = time.monotonic()
        self._listeners: list[Callable[[int, list[str]], None]] = []

    # -- the files -------------------------------------------------------------------------

    def read_ahead(self) -> int:
        """Have the kernel read the index's files into its page cache (`serve`'s start)."""
        return self._files.read_ahead()

    @property
    def schema(self) -> tantivy.Schema:
        return self._files.schema

    @property
    def manifest(self) -> Manifest:
        return self._files.manifest

    @property
    def block_store(self) -> BlockStore:
        return self._files.block_store

    @property
    def indexes(self) -> dict[str, tantivy.Index]:
        return self._files.indexes

    @property
    def rebuilt(self) -> bool:
        """True when opening (or `start_over`) began from empty indexes."""
        return self._files.rebuilt

    @property
    def generation(self) -> int:
        return self._now.generation

    def start_over(self) -> None:
        """Drop every document and what is pending: the index is empty, to be filled again
        from the files (`reconcile` does, when tantivy refuses a commit).

        The generation goes on increasing, so no cache keeps an answer from the old index.
        """
        with self._lock:
            self._files.create()
            self._empty_at_open = True
            self._catalog.clear()
            self._pending.clear()
            self._retired = []
            self._dirty = self._docs_dirty = False
            searchers = self._files.searchers()
            self._now = Snapshot(self.generation + 1, self.schema, searchers, self.block_store)

    def close(self) -> None:
        """Commit what is pending and release the writer locks."""
        with self._lock:
            self.commit()
            self._files.close()

    # -- what is indexed -------------------------------------------------------------------

    def stamp(self, path: str) -> NoteRecord | None:
        """The note's newest record, pending or committed: its id, size, mtime and hash."""
        return self._catalog.stamps.get(path)

    def paths(self) -> list[str]:
        return list(self._catalog.stamps)

    def path_of(self, nid: int) -> str | None:
        return self._catalog.paths.get(nid)

    @property
    def paths_version(self) -> int:
        """Bumped when a path appears or disappears (not on edits)."""
        return self._catalog.paths_version

    def folder_languages(self) -> frozenset[str]:
        """The languages the vault's top folders are named for (`de/`, `pt-br/` -> de, pt).

        From the catalog's count of notes per top folder, kept as paths come and go; worked
        out again only when one did (`paths_version`).
        """
        version = self.paths_version
        cached = self._folder_languages
        if cached is not None and cached[0] == version:
            return cached[1]
        tops = self._catalog.top_folders()
        codes = frozenset(c for top in tops if (c := language_code(top)) is not None)
        self._folder_languages = (version, codes)
        return codes

    def document_count(self, kind: str) -> int:
        """Documents in one of the three indexes (as of the last commit)."""
        return self._now.document_count(kind)

    def note_count(self, scope: str | None = None) -> int:
        """Notes in the vault, or under the folder `scope` (as of the last commit)."""
        if scope is None:
            return len(self._catalog.stamps)
        return self._now.stats.scope_size("entries", scope)

    def all_records(self) -> list[NoteRecord]:
        """Every note's record as of the last commit, from memory.

        The graph, the tree and the guide want them all, after every write, and reading them
        from the manifest file would be slow on a large vault. Taken under the index lock: a
        commit updates them in place.
        """
        with self._lock:
            return list(self._catalog.records.values())

    def records(self, nids: Iterable[int]) -> dict[int, NoteRecord]:
        """Manifest records of the given notes as of the last commit (unknown ids left out)."""
        known = self._catalog.records
        return {nid: known[nid] for nid in nids if nid in known}

    def link_resolver(self) -> LinkResolver:
        """A resolver over the indexed note paths, updated by the paths added and removed since
        it was made (rebuilt after a bulk change).

        Shared by ranking (relation expansion), the API, MCP and the LLM tools, so none of them
        pays O(notes) per call on a large vault.
        """
        return self._catalog.link_resolver()

    def speakers(self) -> frozenset[str]:
        """Every transcript speaker in the vault (lower case), for the speaker boost."""
        return self._catalog.speakers

    # -- writing ---------------------------------------------------------------------------

    def upsert(self, file: NoteFile, note: Note) -> None:
        """Replace the note's documents (not visible until the next commit)."""
        with self._lock:
            catalog = self._catalog
            stamp = catalog.stamps.get(file.path)
            nid = stamp.nid if stamp else catalog.allocate()
            blocks = note_blocks(note)
            content = content_key(note)
            known = self._pending.get(file.path) or catalog.records.get(nid)
            if stamp is None or known is None or known.content != content:
                fresh = stamp is None and self._empty_at_open
                self._replace_documents(nid, file.path, note, blocks, delete=not fresh)
            # else: only what is not indexed changed (a `status` the decay job wrote, an
            # `updated` stamp): the manifest record is enough. Replacing the documents would
            # leave deleted copies that tantivy keeps counting in its BM25 statistics until a
            # merge, and every decay run would move the ranking.
            updated = note.frontmatter.get("updated")
            if not isinstance(note.dialect, Obsidian):
                # Dendron's epoch milliseconds, Logseq's `updated::`: as a time the
                # lifecycle's recency can read.
                updated = note.entry.updated.isoformat() if note.entry.updated else None
            record = NoteRecord(
                nid,
                file.path,
                file.size,
                file.mtime_ns,
                file.digest,
                note.title,
                note.entry.status,
                None if updated is None else str(updated),
                tuple(dict.fromkeys(link.target for link in note.links)),
                tuple(sorted(participants_of(note))),
                len(blocks),
                content,
                note.names,
            )
            self._pending[file.path] = record
            catalog.stamps[file.path] = record
            catalog.paths[nid] = file.path
            if stamp is None:  # after the stamp: a resolver built now already has the path
                catalog.path_changed(file.path, added=True)
            elif stamp.names != record.names:  # a new alias or title: links may move
                catalog.names_changed(file.path)
            self._dirty = True
            if record.participants:
                catalog.add_speakers(record.participants)

    def _replace_documents(
        self, nid: int, path: str, note: Note, blocks: list[IndexedBlock], delete: bool
    ) -> None:
        writers = self._files.writers()
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
            stamp = self._catalog.stamps.get(path)
            if stamp is None:
                return
            # The stamp is the note's newest record: a pending one (its bytes indexed since the
            # last commit, which will write it) or the committed one.
            touched = stamp._replace(size=size, mtime_ns=mtime_ns)
            self._catalog.stamps[path] = touched
            if self._pending.get(path) is not None:
                self._pending[path] = touched
                return
            self.manifest.apply([touched], [], {})
            self._catalog.mirror([touched], [])

    def remove(self, path: str) -> bool:
        """Remove a note's documents; False when it was not indexed."""
        with self._lock:
            stamp = self._catalog.stamps.pop(path, None)
            if stamp is None:
                return False
            for writer in self._files.writers().values():
                writer.delete_documents_by_term("path", path)
            self.block_store.remove(stamp.nid)
            self._docs_dirty = True
            self._catalog.paths.pop(stamp.nid, None)
            self._catalog.path_changed(path, added=False)
            self._pending[path] = None
            self._retired.append(stamp.nid)
            self._dirty = True
            return True

    @property
    def has_pending(self) -> bool:
        return self._dirty

    def commit(self) -> bool:
        """Make pending changes searchable and bump the generation; False if nothing was pending."""
        with self._lock:
            if not self._dirty:
                return False
            searchers = self._now.searchers
            if self._docs_dirty and self._files.has_writers:
                # All three before the manifest (see `files.py`), and the block texts before
                # a searcher can find them.
                self._files.commit_writers(large=len(self._pending) > _SMALL_COMMIT)
                self.block_store.commit()
                searchers = self._files.reload()
                self._docs_dirty = False
            generation = self.generation + 1
            self._now = Snapshot(generation, self.schema, searchers, self.block_store)
            upserts = [r for r in self._pending.values() if r is not None]
            deletes = [p for p, r in self._pending.items() if r is None]
            self.manifest.apply(upserts, deletes, {"generation": str(generation)})
            self._catalog.mirror(upserts, self._retired)
            self._retired = []
            changed = list(self._pending)
            self._pending.clear()
            self._dirty = False
            self._last_commit = time.monotonic()
        for listener in list(self._listeners):
            try:
                listener(generation, changed)
            except Exception:  # a broken listener must not break indexing
                log.exception("index commit listener failed")
        return True

    def add_commit_listener(self, listener: Callable[[int, list[str]], None]) -> None:
        """Call `listener(generation, changed_paths)` after every commit (e.g. to push events)."""
        self._listeners.append(listener)

    def seconds_since_commit(self) -> float:
        return time.monotonic() - self._last_commit

    # -- searching (the last committed generation) -----------------------------------------

    def block_scores(
        self, terms: QueryTerms, limit: int, scope: str | None = None, speaker: str | None = None
    ) -> ScoredHits:
        """Block hits as a score map, their words, the blocks of Relations / Raw Concept
        sections, and those of them that are turns of `speaker` (a transcript's participant,
        lower case).

        A question naming one speaker boosts that speaker's turns; rather than a second search
        filtered by speaker, each turn carries its speaker as a fast field, read for the hits
        this search found.
        """
        return self._now.block_scores(terms, limit, scope, speaker)

    def window_scores(
        self, terms: QueryTerms, limit: int, scope: str | None = None, speaker: str | None = None
    ) -> ScoredHits:
        """Window hits as a score map (keyed by their centre block), with the centre's words
        and the centres that are turns of `speaker`."""
        return self._now.window_scores(terms, limit, scope, speaker)

    def search_entries(self, terms: QueryTerms, limit: int, scope: str | None = None) -> list[Hit]:
        return self._now.search_entries(terms, limit, scope)

    def held_words(
        self, words: Sequence[str], nids: Iterable[int], fields: Sequence[str]
    ) -> dict[str, dict[int, int]]:
        """For each entry field of `fields`, which of `words` (analysed) each of the notes
        `nids` holds there: a bit mask of their positions, for the notes holding any."""
        known = self._catalog.paths
        paths = [p for nid in nids if (p := known.get(nid)) is not None]
        return self._now.stats.held_by_field(words, paths, fields)

    def word_weights(self, words: Sequence[str]) -> list[float]:
        """Each (analysed) word's IDF over the notes: what a word tells a note apart by."""
        return self._now.stats.word_weights(words)

    def stem_languages(self) -> frozenset[str]:
        """The languages some note is indexed with the stems of (`with_stems`): a question in
        one of them searches its own stems too."""
        return self._now.stem_languages()

    def doc_frequency(self, term: str) -> int:
        """In how many notes the (analysed) term or CJK bigram occurs, in its commonest field."""
        return self._now.stats.doc_frequency(term)

    def lead_block(self, nid: int, look: int, words: Iterable[str]) -> tuple[int, int] | None:
        """(ordinal, excerpt words) of a note's lead block among its first `look` blocks: the
        first of knowledge (outside a Relations / Raw Concept section) under a heading holding
        one of the analysed `words`, else the first of knowledge, else the first; None when
        it has none indexed. (A heading path starts with the note's title, so a title match
        puts every block under a matching heading: knowledge still comes before relations.)

        Two searches over the note's block keys and fast fields: reading the blocks' stored
        documents to see their headings cost 16 document reads a lead.
        """
        return self._now.lead_block(nid, look, words)

    def blocks(self, keys: Iterable[tuple[int, int]]) -> dict[tuple[int, int], IndexedBlock]:
        """Text and position of blocks, by (note id, ordinal), from the block store."""
        return self._now.blocks(keys)
