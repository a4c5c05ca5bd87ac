"""The index on disk: three tantivy indexes, the manifest and the block texts; opening them,
rebuilding them when they are unusable, and their writers and commits.

Each commit writes the three indexes and the block texts before the manifest, so an index can
only be ahead of the manifest after a crash, never behind it: the start-up comparison of the
manifest with the files re-indexes whatever was in flight.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import sqlite3
import stat
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import tantivy

from bridge.index import analysis
from bridge.index.block_store import BlockStore
from bridge.index.manifest import Manifest
from bridge.index.memory import fix_mmap_threshold
from bridge.index.schema import KINDS, SCHEMA_VERSION, build_schema

log = logging.getLogger(__name__)


class IndexBusyError(RuntimeError):
    """Another process (a running `serve`) holds the index writer."""


class IndexCommitError(RuntimeError):
    """tantivy refused a commit: the index on disk is not as this process expects it (what
    is pending is lost; `start_over` and a reconcile rebuild it from the files)."""


class IndexFiles:
    """What lives in `directory` (inside the state dir, never in the vault)."""

    def __init__(
        self, directory: Path, writer_heap_mb: int = 128, reading: str = "obsidian"
    ) -> None:
        fix_mmap_threshold()  # freed writer buffers go back to the system
        self.directory = directory
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
        self.reading = reading
        directory.mkdir(parents=True, exist_ok=True)
        self.rebuilt = False
        self.manifest = Manifest(directory / "manifest.sqlite")
        self.block_store, texts_kept = _open_block_store(directory / "blocks.sqlite")
        self.indexes = self._open(texts_kept)

    def _open(self, texts_kept: bool) -> dict[str, tantivy.Index]:
        """The three indexes (entries, blocks, windows); all rebuilt if any is unusable, or
        if the block texts they need were lost (`texts_kept` False)."""
        folder = self.directory / "tantivy"
        version = self.manifest.get_meta("schema_version")
        # An index from before dialects read its vault as Obsidian does.
        reading = self.manifest.get_meta("reading") or "obsidian"
        if folder.exists() and version == str(SCHEMA_VERSION) and reading != self.reading:
            log.warning("the vault is read as %s now (was %s); rebuilding", self.reading, reading)
        elif folder.exists() and version == str(SCHEMA_VERSION) and not texts_kept:
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
        return self.create()

    def create(self) -> dict[str, tantivy.Index]:
        """Three empty indexes, an empty manifest and no block texts: a rebuild starts here.

        The writers of the old indexes are dropped first, which releases their locks.
        """
        self._writers = {}
        folder = self.directory / "tantivy"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        self.manifest.clear()
        self.block_store.clear()
        self.manifest.set_meta("schema_version", str(SCHEMA_VERSION))
        self.manifest.set_meta("reading", self.reading)
        self.rebuilt = True
        self.indexes = {kind: self._open_kind(folder / kind, reuse=False) for kind in KINDS}
        return self.indexes

    def _open_kind(self, folder: Path, reuse: bool) -> tantivy.Index:
        if not reuse:
            folder.mkdir(parents=True)
        elif not folder.is_dir():
            raise FileNotFoundError(f"{folder} is missing")
        index = tantivy.Index(self.schema, path=str(folder), reuse=reuse)
        analysis.register(index)
        index.searcher().num_docs  # noqa: B018 - touches the segments: fails if corrupt
        return index

    def read_ahead(self) -> int:
        """Read every index file once, so the kernel holds it in its page cache; the bytes read.

        While the files are not in the page cache, every query reads a few dozen blocks and
        postings scattered over them, one small disk read each, and a fresh `serve`'s first
        answers wait on the disk. Reading, not `posix_fadvise(WILLNEED)`: Linux reads at most
        the device's read-ahead window per call, and the call does not exist on macOS. `serve`
        reads the files in a background thread (smallest first: term dictionaries and fast
        fields are touched by every query), at lower priority, in 1 MB reads that do not hold
        the GIL; the process keeps no copy, and the kernel may drop the clean pages again
        under memory pressure.
        """
        try:
            found = list(self.directory.rglob("*"))
        except OSError:  # the state dir went away (a stopping test, a removed folder)
            return 0
        sizes: dict[Path, int] = {}
        for path in found:
            with contextlib.suppress(OSError):
                info = path.stat()
                if stat.S_ISREG(info.st_mode):
                    sizes[path] = info.st_size
        buffer = bytearray(1 << 20)
        done = 0
        for path in sorted(sizes, key=sizes.__getitem__):
            with contextlib.suppress(OSError), path.open("rb", buffering=0) as file:
                while count := file.readinto(buffer):
                    done += count
        return done

    def searchers(self) -> dict[str, tantivy.Searcher]:
        """A searcher of each index as last committed."""
        return {kind: index.searcher() for kind, index in self.indexes.items()}

    def reload(self) -> dict[str, tantivy.Searcher]:
        """Searchers that see the commit just made."""
        for kind in KINDS:
            self.indexes[kind].reload()
        return self.searchers()

    @property
    def has_writers(self) -> bool:
        return bool(self._writers)

    def writers(self) -> dict[str, tantivy.IndexWriter]:
        """The three writers, taken on first use; `IndexBusyError` when another process has
        them."""
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

    def commit_writers(self, large: bool) -> None:
        """Commit the three writers: a small change on three threads at once, a `large` one
        (a start-up or a bulk import) one writer after the other.

        An agent's one-note write is mostly three tantivy commits, each writing and syncing its
        segment files without holding the GIL, so a small commit overlaps the three; a large
        one does not, as overlapped it takes more CPU and memory for no gain. The first error
        is raised after all finished.
        """
        writers = [self._writers[kind] for kind in KINDS]
        try:
            if large:
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

    def close(self) -> None:
        """Release the writer locks and close the manifest and the block texts (what is
        pending is the caller's to commit first)."""
        for writer in self._writers.values():
            writer.wait_merging_threads()
        self._writers = {}
        if self._committer is not None:
            self._committer.shutdown()
            self._committer = None
        self.manifest.close()
        self.block_store.close()


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
