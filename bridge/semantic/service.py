"""The dense channel of one vault: passages planned from the index, embedded in the background.

`SemanticIndex` keeps every embedded passage in a `PassageMatrix` (searched per question) and
in the model's `VectorStore` (so a restart embeds nothing it has seen). Notes come from the
search index, never from the files directly: the index's commit listener says which notes
changed, and the block store holds their text. Lexical search serves from the first second;
this catches up beside it, one core at most, changed notes first.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import islice

import numpy as np

from bridge.core.fusion import PassageHit
from bridge.core.language import (
    edition_folders,
    edition_language,
    folder_language,
    question_language,
)
from bridge.core.passages import CARD
from bridge.index.search_index import SearchIndex
from bridge.query.dense import DenseFound, NoteSimilarity
from bridge.semantic.calibration import Probes, is_stale, probe_stats, probe_vectors
from bridge.semantic.languages import LanguageDetector
from bridge.semantic.lazy import LazyEmbedder
from bridge.semantic.matrix import DenseHit, PassageMatrix
from bridge.semantic.model import Embedder, Vectors
from bridge.semantic.planner import NotePlan, PassagePlanner, units_of
from bridge.semantic.store import StoredNote, VectorStore, as_stored
from bridge.thread_priority import lower_thread_priority

log = logging.getLogger(__name__)

_NOTES_PER_STEP = 64  # notes planned at a time
_BOILERPLATE_NOTES = 200  # from this many notes, template lines are counted
_BATCH = 32  # passages embedded per model call
Progress = Callable[[int, int], None]


class SemanticIndex:
    """Passage vectors of the vault's notes, kept up to date with the index."""

    def __init__(
        self,
        index: SearchIndex,
        store: VectorStore,
        embedder: Embedder,
        detector: LanguageDetector | None = None,
        declared: Callable[[str], object] | None = None,
        passage_words: int = 160,
        passages_per_note: int = 32,
    ) -> None:
        self.index = index
        self.store = store
        self.embedder = embedder
        self.identity = embedder.identity
        self.detector = detector or LanguageDetector()
        self.planner = PassagePlanner(
            index,
            self.identity,
            self.detector,
            declared or (lambda path: None),
            passage_words,
            passages_per_note,
        )
        self.matrix = PassageMatrix(self.identity.dim)
        # One row per note: its card (`bridge.core.passages.card`), kept apart from the
        # passages: a card is what the note is about, not a span of its blocks to rank.
        self.cards = PassageMatrix(self.identity.dim)
        self._cond = threading.Condition()
        self._queue: dict[str, None] = {}  # paths to (re)plan, oldest first
        # The notes whose vectors are served (in the matrix, maybe no rows), by note id. A
        # served note's language is told under the same id (`_told_nid`): no map of its own.
        self._served = _NoteIds()
        self._lang: dict[int, str | None] = {}
        self._told_nid: dict[str, int] = {}  # path -> the note id its language is counted under
        self._languages: Counter[str] = Counter()
        # Notes under a top-level folder named by a language code: the code, and per code
        # the languages its notes' texts are in (which folders are editions: `edition_folders`).
        self._folder: dict[int, str] = {}
        self._folder_languages: dict[str, Counter[str]] = {}
        self._editions: frozenset[str] | None = frozenset()  # None: to be worked out again
        self._loaded = False
        self._working = False
        # Notes taken off the queue by the step in flight: still pending to a person, so
        # `pending` counts them.
        self._in_flight = 0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.embedded_now = 0  # passages embedded by this process (not loaded)
        self._scopes: dict[str, tuple[int, frozenset[int]]] = {}
        # (passages at, how close unrelated questions get): `bridge.semantic.calibration`.
        self._line: tuple[int, Probes | None] | None = None
        self._line_lock = threading.Lock()
        # Bumped whenever what `find` can find changes, so a cached answer is for one version:
        # a question asked while the vault is being embedded is answered lexically, and the
        # answer cache must not keep giving that answer once every note has vectors.
        self._version = 0
        # `serve`'s worker has embedded (or loaded) every note once. Until then a question's
        # best passage may be missing only because its note has no vectors yet, so the dense
        # channel neither ranks nor gives an off-topic verdict (`DenseFound.covered`): a
        # half-embedded vault would call questions about its other half off-topic.
        self._caught_up = False
        index.add_commit_listener(self._changed)

    # -- lifecycle -------------------------------------------------------------------------

    def load(self) -> None:
        """Take stock: every indexed note is queued; those stored for their current content
        are loaded from the vector file when their turn comes, without embedding."""
        records = self.index.all_records()
        self.planner.count_boilerplate(self.store, records)
        plan = self.planner.signature()
        stored = self.store.paths()
        # Passages cut by other rules now: every note's rows go (before the new rules are
        # recorded, so a kill -9 between the two never trusts old rows), every note is
        # planned again, and only passages whose text changed are embedded (vectors are
        # keyed by text). Otherwise only the rows of notes gone from the vault go.
        new_rules = self.store.meta("plan") != plan
        self.store.forget(stored if new_rules else stored - {r.path for r in records})
        if new_rules:
            self.store.set_meta("plan", plan)
        self._line = self._stored_line()  # checked against the passages when next asked
        with self._cond:
            self._loaded = True
            for rec in records:
                self._queue.setdefault(rec.path, None)
            self._cond.notify_all()

    def start(self) -> None:
        """Embed in a background thread (low priority), as `serve` does."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._background, name="embedding", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the worker after the batch in flight (saved: nothing is lost) and close."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
        self.store.close()

    def _changed(self, generation: int, paths: list[str]) -> None:
        with self._cond:
            if not self._loaded:
                return  # `load` takes everything the index holds
            for path in paths:
                self._queue.pop(path, None)
                self._queue[path] = None
            self._cond.notify_all()

    def _background(self) -> None:
        lower_thread_priority()
        try:
            if not self._loaded:
                self.load()
            self._warm()
            self._bump()  # the model answers questions from now on
            self._learn_languages()
            while True:
                with self._cond:
                    while not self._queue and not self._stopping:
                        self._cond.wait()
                    if self._stopping:
                        return
                self.step(settle=True)
        except Exception:  # the dense channel must never take the bridge down
            log.exception("embedding stopped; the memory answers lexically until restarted")

    def _model_ready(self) -> bool:
        return not isinstance(self.embedder, LazyEmbedder) or self.embedder.loaded

    def _warm(self) -> None:
        """Load the model and the language detector now, in this thread, and run each once.

        With every note already embedded, nothing else would load them before the first
        question, which would wait for both; the person who opens Obsidian asks first.
        """
        self.detector.ranks("a question to warm up the detector")
        if isinstance(self.embedder, LazyEmbedder):  # loading asks no remote model anything
            self.embedder.model()

    def run(self, progress: Progress | None = None, embed: bool = True) -> None:
        """Do what is pending in this thread: `reindex` embeds everything; a CLI command
        without `serve` (`embed=False`) loads what is stored and embeds nothing, so its notes
        changed since stay lexical until `serve` or `reindex` embeds them."""
        if not self._loaded:
            self.load()
        total = len(self._queue)
        while self._queue and not self._stopping:
            self.step(embed)
            if progress is not None:
                progress(total - len(self._queue), total)
        if embed:  # `reindex`: the off-topic line for what it embedded, kept with the vectors
            self.off_topic_line()

    # -- the work --------------------------------------------------------------------------

    def step(self, embed: bool = True, settle: bool = False) -> None:
        """Plan up to 64 queued notes, embed what no vector exists for, save, and serve them
        (with `embed` False, only the notes whose vectors are all stored are served).

        With `settle` (the background worker), the step that leaves nothing queued also works
        out the off-topic line for what is embedded now, before the channel says it is idle:
        a question asked once `wait_idle` returns meets the vault's line, not the model's.
        """
        with self._cond:
            paths = list(islice(self._queue, _NOTES_PER_STEP))
            for path in paths:
                del self._queue[path]
            if not self._queue:  # a dict keeps its largest table: a new one drops it
                self._queue = {}
            self._working = True
            self._in_flight = len(paths)
        try:
            stored = self.store.notes(paths)  # a step's at a time, not all notes' at once
            if not embed:  # only what is stored can be served without embedding
                paths = [p for p in paths if p in stored or self.index.stamp(p) is None]
            plans = [plan for p in paths if (plan := self._plan(p, stored.get(p))) is not None]
            self._embed(plans, embed)
            if settle and not self._queue:
                self.off_topic_line()
                self._caught_up = True
        finally:
            with self._cond:
                self._working = False
                self._in_flight = 0
                self._cond.notify_all()

    def _plan(self, path: str, stored: StoredNote | None) -> NotePlan | None:
        stamp = self.index.stamp(path)
        if stamp is None:
            self._drop(path)
            self.store.forget([path])
            self.planner.forget(path)
            return None
        rec = self.index.records([stamp.nid]).get(stamp.nid)
        if rec is None:
            return None  # not committed yet: its commit will queue it again
        return self.planner.from_store(rec, stored)

    def _fresh_plan_of(self, plan: NotePlan) -> NotePlan:
        rec = self.index.records([plan.nid]).get(plan.nid)
        return plan if rec is None else self.planner.fresh(rec)

    def _embed(self, plans: Sequence[NotePlan], embed: bool = True) -> None:
        keys = [p.key for plan in plans for p in plan.passages]
        vectors = self.store.vectors(keys)
        # A stored note whose vectors were collected since: plan it from its blocks again.
        plans = [
            self._fresh_plan_of(plan)
            if any(not p.text and p.key not in vectors for p in plan.passages)
            else plan
            for plan in plans
        ]
        missing = {p.key: p.text for plan in plans for p in plan.passages if p.key not in vectors}
        todo = list(missing.items()) if embed else []
        new: dict[bytes, Vectors] = {}
        for start in range(0, len(todo), _BATCH):
            if self._stopping:
                return  # nothing of this step is saved; the next start plans it again
            part = todo[start : start + _BATCH]
            made = as_stored(self.embedder.embed([text for _, text in part], "passage"))
            new.update({key: made[i] for i, (key, _) in enumerate(part)})
        vectors.update(new)
        if not embed:
            for plan in plans:
                if all(p.key in vectors for p in plan.passages):
                    self._serve(plan, np.array([vectors[p.key] for p in plan.passages]))
            return
        stored = [units_of(plan) for plan in plans]
        self.store.save(stored, new)
        self.embedded_now += len(new)
        for plan in plans:
            self._serve(plan, np.array([vectors[p.key] for p in plan.passages]))

    def _serve(self, plan: NotePlan, vectors: Vectors) -> None:
        old = self._told_nid.get(plan.path)
        if old is not None and old != plan.nid and old in self._served:
            self._drop(plan.path)
        rows = [i for i, p in enumerate(plan.passages) if p.first != CARD]
        about = [i for i, p in enumerate(plan.passages) if p.first == CARD]
        spans = [(plan.passages[i].first, plan.passages[i].last) for i in rows]
        self.matrix.put(plan.nid, spans, vectors[rows] if rows else vectors[:0])
        self.cards.put(plan.nid, [(CARD, CARD)] * len(about), vectors[about[:1]])
        with self._cond:
            self._version += 1
            self._served.add(plan.nid)
            self._in_flight = max(0, self._in_flight - 1)  # counted as embedded from now
            self._know(plan.path, plan.nid, plan.lang)

    def _know(self, path: str, nid: int, lang: str | None) -> None:
        """Count note `nid` (at `path`) as in `lang` (under `_cond`)."""
        old = self._told_nid.get(path)
        if old is not None and old != nid:
            self._forget_language(old)
            self._lang.pop(old, None)
        self._told_nid[path] = nid
        self._forget_language(nid)
        self._lang[nid] = lang
        code = folder_language(path)
        if code is not None:
            self._folder[nid] = code
        if lang is not None:
            self._languages[lang] += 1
            if code is not None:
                self._folder_languages.setdefault(code, Counter())[lang] += 1
        self._editions = None

    def _learn_languages(self) -> None:
        """Tell every queued note's language before embedding any (`serve`'s first pass).

        The question's language demotes only notes whose language is known, and on a vault
        laid out in several languages another edition's page would come first until the note
        was embedded. A pass of its own because telling a language (reading the note's blocks,
        running the detector) costs a small part of embedding its passages: every note's
        language is known soon after the start, the detector still run once per note (the
        planner keeps what it told); a stored note's language comes from the vector file.
        """
        with self._cond:
            paths = list(self._queue)
        for start in range(0, len(paths), _NOTES_PER_STEP):
            if self._stopping:
                return
            chunk = paths[start : start + _NOTES_PER_STEP]
            nids = [stamp.nid for p in chunk if (stamp := self.index.stamp(p)) is not None]
            records = self.index.records(nids)
            heads = self.store.heads(chunk)
            told: list[tuple[str, int, str | None]] = []
            for rec in records.values():
                stored = heads.get(rec.path)
                if stored is not None and stored[0] == rec.content:
                    told.append((rec.path, rec.nid, stored[1]))
                else:
                    told.append((rec.path, rec.nid, self.planner.language(rec)))
            with self._cond:
                for path, nid, lang in told:
                    known = self._told_nid.get(path)
                    if known is None or known not in self._served:  # a served one knows its own
                        self._know(path, nid, lang)
                self._version += 1

    def _drop(self, path: str) -> None:
        with self._cond:
            nid = self._told_nid.get(path)
            served = nid is not None and self._served.discard(nid)
        if served and nid is not None:
            self.matrix.drop(nid)
            self.cards.drop(nid)
        with self._cond:
            # Every note served was told (`_know`), under the same id: one id to forget.
            told = self._told_nid.pop(path, None)
            if told is None:
                return
            self._version += 1
            self._forget_language(told)
            self._lang.pop(told, None)
            self._editions = None

    def _forget_language(self, nid: int) -> None:
        """Take note `nid`'s language out of the counts (under `_cond`)."""
        lang = self._lang.get(nid)
        code = self._folder.pop(nid, None)
        if lang is not None:
            self._languages[lang] -= 1
            if code is not None:
                self._folder_languages[code][lang] -= 1

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing is queued or being embedded (tests, benches)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._loaded and not self._queue and not self._working, timeout
            )

    # -- reading ---------------------------------------------------------------------------

    @property
    def version(self) -> int:
        """See `DenseSearch.version`."""
        return self._version

    def _bump(self) -> None:
        with self._cond:  # threads bump it (embedding, a question measuring the line)
            self._version += 1

    @property
    def state(self) -> str:
        """`embedding` while notes wait, else `ready`."""
        with self._cond:
            busy = not self._loaded or bool(self._queue) or self._working
        return "embedding" if busy else "ready"

    def status(self) -> dict[str, object]:
        """What `/v1/status` shows: the model, the state and the progress in notes."""
        probes = self._kept_probes()
        with self._cond:
            loaded = self._loaded
            pending = len(self._queue) + self._in_flight if loaded else self.index.note_count()
            done = self._served.count
            known = len(self._told_nid)
            languages = {lang: n for lang, n in self._languages.items() if n > 0}
        return {
            "model": self.identity.name,
            "state": self.state,
            "sections": len(self.matrix),
            "embedded": done,
            "pending": pending,
            # The first pass reads every note's language before embedding any: minutes on a
            # large vault during which `embedded` stays 0; this is that pass's progress.
            "languages_known": known,
            "languages": dict(sorted(languages.items(), key=lambda item: -item[1])),
            "off_topic_line": None if probes is None else round(probes.line, 3),
        }

    def language_of(self, nid: int) -> str | None:
        """The note's language as the channel knows it (None: unknown or not yet seen)."""
        return self._lang.get(nid)

    def edition_language(self, nid: int) -> str | None:
        """The language a reader finds the note in: its edition folder's in a vault laid out
        by language (`edition_folders`), else its text's. What ranking prefers or demotes."""
        # Two dict reads (each atomic) decide most notes: those in no language's folder.
        code = self._folder.get(nid)
        lang = self._lang.get(nid)
        if code is None or code == lang:
            return lang
        with self._cond:
            if self._editions is None:
                counts = {c: +langs for c, langs in self._folder_languages.items()}
                self._editions = edition_folders(counts)
            return edition_language(lang, code, self._editions)

    def is_copy(self, nid: int) -> bool:
        """True for a note in one language's edition whose text is in another (an untranslated
        copy of another edition's page)."""
        text = self._lang.get(nid)
        edition = self.edition_language(nid)
        return text is not None and edition is not None and edition != text

    def copies(self, nids: Iterable[int]) -> list[int]:
        """The notes among `nids` that are copies (`is_copy`). A note outside every language's
        folder is in its own text's language, so in a vault without such folders there are
        none, and the few hundred candidates of a question are not looked at one by one."""
        if not self._folder:  # one dict read (atomic), as `edition_language`'s
            return []
        return [nid for nid in nids if self.is_copy(nid)]

    def vault_languages(self) -> frozenset[str]:
        """The languages the vault's notes are known to be in."""
        with self._cond:
            return frozenset(lang for lang, n in self._languages.items() if n > 0)

    def question_language(self, text: str) -> str | None:
        """The question's language: the detector's when it is sure over all languages (a
        Chinese question is Chinese whatever the vault holds), else the one it is sure of
        among the vault's own (a short English question in an English vault is English)."""
        return question_language(self.detector.ranks(text), self.vault_languages())

    def embed_question(self, text: str, lang: str | None) -> Vectors | None:
        """The question's vector, or None when the model does not serve its language."""
        if not self.identity.serves(lang) or len(self.matrix) == 0:
            return None
        vector: Vectors = self.embedder.embed([text], "query")[0]
        return vector

    def search(
        self, vector: Vectors, limit: int, notes: Iterable[int] | None = None
    ) -> list[DenseHit]:
        """The passages most similar to `vector` (within `notes` when given)."""
        allowed = None if notes is None else set(notes)
        return self.matrix.search(vector, limit, allowed)

    def similar(self, nid: int, limit: int) -> list[tuple[int, float]] | None:
        """Notes most like note `nid`: the cosine of their best passage to its mean passage.

        None when the note has no vectors (not embedded yet, or in a language the model does
        not serve).
        """
        vectors = self.matrix.vectors_of(nid)
        if len(vectors) == 0:
            return None
        centre = vectors.mean(axis=0)
        norm = float(np.linalg.norm(centre))
        if norm == 0:
            return None
        hits = self.matrix.search(centre / norm, (limit + 1) * 8 + len(vectors))
        best: dict[int, float] = {}
        for hit in hits:
            if hit.nid != nid and hit.nid not in best:
                best[hit.nid] = hit.score
        return sorted(best.items(), key=lambda item: -item[1])[:limit]

    def nearest(self, text: str, exclude: str | None = None) -> tuple[str, float] | None:
        """The note whose passage is most like `text` (a new note's), and the cosine.

        None when nothing is embedded yet or the text is in a language the model skips.
        """
        if len(self.matrix) == 0 or not text.strip():
            return None
        if not self.identity.serves(self.question_language(text)):
            return None
        vector = self.embedder.embed([text], "passage")[0]
        for hit in self.matrix.search(vector, 8):
            path = self.index.path_of(hit.nid)
            if path is not None and path != exclude:
                return path, hit.score
        return None

    def find(self, text: str, scope: str | None, depth: int) -> DenseFound:
        """The engine's question (`DenseSearch`): the question's language and best passages.

        While `serve`'s embedding thread is still loading the model or the language detector
        (the first seconds), nothing: the question is answered lexically, not made to wait.
        """
        if self._thread is not None and not (self.detector.loaded and self._model_ready()):
            return DenseFound((), None, 0.0, covered=False, ready=False)
        lang = self.question_language(text)
        if self._thread is not None and not self._caught_up:
            # Until every note was embedded once the channel neither ranks nor judges
            # (`DenseFound.covered`): only the question's language is of use, so the question
            # is not embedded (on a core the embedding thread is using).
            return DenseFound((), lang, 0.0, covered=False)
        vector = self.embed_question(text, lang)
        if vector is None:
            return DenseFound((), lang, 0.0)
        hits = self.search(vector, depth, None if scope is None else self._scoped(scope))
        found = tuple(PassageHit(h.nid, h.first, h.last, h.score) for h in hits)
        # With `serve`'s thread, the line it keeps current; without, worked out on need.
        probes = self._kept_probes() if self._thread is not None else self.off_topic_line()
        top = found[0].score if found else 0.0
        return DenseFound(
            found,
            lang,
            top,
            vector=vector,
            closeness=None if probes is None else probes.z(top),
        )

    def passage_cosines(self, vector: Vectors, nid: int) -> list[tuple[int, int, float]]:
        """See `DenseSearch.passage_cosines`."""
        spans, rows = self.matrix.passages_of(nid)
        if not spans:
            return []
        cosines = rows @ np.asarray(vector, dtype=np.float32).reshape(-1)
        return [(first, last, float(c)) for (first, last), c in zip(spans, cosines, strict=True)]

    def note_similarity(self, vector: Vectors, nids: Iterable[int]) -> dict[int, NoteSimilarity]:
        """See `DenseSearch.note_similarity`: every passage of each note, not only those the
        question's search returned, so a note found by its words alone is measured too."""
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        rows, found, starts = self.matrix.vectors_of_many(list(nids))
        if not found:
            return {}
        cosines = rows @ q
        best = np.maximum.reduceat(cosines, starts)
        counts = np.diff([*starts, len(rows)])
        centres = np.add.reduceat(rows, starts, axis=0) / counts[:, None]
        norms = np.linalg.norm(centres, axis=1)
        towards = (centres @ q) / np.where(norms > 0, norms, 1.0)
        cards, carded, first = self.cards.vectors_of_many(found)
        card = dict(zip(carded, (cards[first] @ q).tolist(), strict=True)) if carded else {}
        return {
            nid: NoteSimilarity(
                best=float(best[i]),
                centre=float(towards[i]) if norms[i] > 0 else 0.0,
                card=card.get(nid, 0.0),
                spread=max(0.0, 1.0 - float(norms[i])),
            )
            for i, nid in enumerate(found)
        }

    def off_topic_line(self) -> Probes | None:
        """How close unrelated questions get in this vault (`calibration`): kept in memory and
        with the vectors, and worked out again only when the number of passages has moved by
        a tenth since. None before anything is embedded."""
        with self._line_lock:  # `load` took the stored one
            passages = len(self.matrix)
            if self._line is not None and not is_stale(self._line[0], passages):
                return self._line[1]
            probes = self._measure() if passages else None
            if self._line is None or self._line[1] != probes:
                self._bump()
            self._line = (passages, probes)
            if passages and probes is not None:
                self.store.set_meta("off_topic_probes", json.dumps([passages, *probes]))
            return probes

    def _kept_probes(self) -> Probes | None:
        """The probes as last worked out (none before the first time)."""
        kept = self._line
        return None if kept is None else kept[1]

    def _stored_line(self) -> tuple[int, Probes | None] | None:
        """The probes kept with the vectors, if any can be read (else measured again)."""
        raw = self.store.meta("off_topic_probes")
        if raw is None:
            return None
        try:
            passages, mean, sd = json.loads(raw)
            return int(passages), Probes(float(mean), float(sd))
        except (ValueError, TypeError):
            return None

    def _measure(self) -> Probes | None:
        vectors = probe_vectors(self.embedder)
        return probe_stats([hits[0].score for v in vectors if (hits := self.matrix.search(v, 1))])

    def _scoped(self, scope: str) -> frozenset[int]:
        """The note ids under folder `scope`, kept while the set of paths is unchanged."""
        version = self.index.paths_version
        cached = self._scopes.get(scope)
        if cached is not None and cached[0] == version:
            return cached[1]
        prefix = scope + "/"
        nids = frozenset(
            stamp.nid
            for path in self.index.paths()
            if path.startswith(prefix) and (stamp := self.index.stamp(path)) is not None
        )
        if len(self._scopes) > 64:
            self._scopes.clear()
        self._scopes[scope] = (version, nids)
        return nids


class _NoteIds:
    """A set of note ids as a byte per id: the catalog's ids count up from 1, so a byte per id
    is far smaller than a dict by path."""

    def __init__(self) -> None:
        self._flags = bytearray()
        self.count = 0

    def __contains__(self, nid: int) -> bool:
        return 0 <= nid < len(self._flags) and self._flags[nid] == 1

    def add(self, nid: int) -> None:
        if nid >= len(self._flags):
            self._flags.extend(bytes(max(nid + 1 - len(self._flags), len(self._flags) // 2)))
        if not self._flags[nid]:
            self._flags[nid] = 1
            self.count += 1

    def discard(self, nid: int) -> bool:
        """Take `nid` out; True when it was in."""
        if nid not in self:
            return False
        self._flags[nid] = 0
        self.count -= 1
        return True
