"""Tier 2 retrieval: candidates from both channels, the ranker's order, the word budget.

Two stages (DESIGN 3, "Which note first"): the three BM25 searches, the dense passage search
and one hop of relations give a few dozen candidate notes; the ranker
(`bridge.core.ranker`, with the features of `bridge.query.features`) orders them, and that
order is the sources'. The budget is then filled with whole blocks by DESIGN 3's block rule
(`bridge.core.ranking`), the first source's best block first.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice

import numpy as np
import numpy.typing as npt

from bridge.core.copies import copy_groups, maybe_copies, word_pairs
from bridge.core.fusion import copy_factors, dense_parts, language_factors
from bridge.core.language import folder_language, question_language
from bridge.core.markdown import excerpt_text
from bridge.core.ranker import (
    CONFIDENCE,
    FEATURES,
    INDEX,
    RankerWeights,
    answer_probability,
    confidence,
    note_score,
    on_topic,
    weight_vector,
)
from bridge.core.ranker_weights import FITTED, FITTED_LEXICAL
from bridge.core.ranking import (
    NEUTRAL,
    BlockKey,
    block_scores,
    lifecycle_order,
    lifecycle_stream,
    lifecycle_value,
    normalised_relevance,
    pack,
)
from bridge.core.text import word_count
from bridge.core.tiers import Evidence
from bridge.index.analysis import QueryTerms, question_stems
from bridge.index.documents import IndexedBlock, excerpt_words
from bridge.index.graph_cache import GraphCache
from bridge.index.manifest import NoteRecord
from bridge.index.search_index import Hit, SearchIndex
from bridge.query.dense import NO_DENSE, DenseFound, DenseSearch
from bridge.query.evidence import EvidenceReader, confidence_inputs
from bridge.query.features import FeatureReader, Found, merged
from bridge.query.lifecycle import LifecycleProvider, NoteRef
from bridge.query.models import Excerpt, Source
from bridge.query.params import EngineParams
from bridge.semantic.languages import LanguageDetector

_LEAD_NOTES = 10  # entry-only notes that get a lead block, best first
_COPY_LOOKAHEAD = 5  # notes past the limit looked at for copies of the listed ones
_JOINED_PER_NOTE = 8  # notes one relation away that join the candidates, per note
# What the question's searches found in a note's text, equal for two copies (`maybe_copies`).
_TEXT_SIGNALS = tuple(INDEX[n] for n in ("block", "window", "coverage", "dense_abs", "centre"))
_COPY_BLOCKS = 400  # blocks of a note compared when looking for copies
# Notes' word pairs kept for the copy check: the same notes come back question after question.
_SHINGLES_KEPT = 512
_LEAD_BLOCKS = 16  # the first blocks of such a note, among which its lead block is chosen
# The ordinal of a lead block not chosen yet: which block leads is read only when packing
# reaches the note (most never are), see `_lead_notes`.
_LEAD = -1

# A block as an excerpt shows it, kept for the blocks packed most: the same turns and
# paragraphs go into answer after answer, and cutting the list marker and block id takes two
# regular expressions each time. Keyed by the text, so an edited block is a new key; not
# used when indexing, which sees each block once.
_excerpt = lru_cache(maxsize=8192)(excerpt_text)


@dataclass(frozen=True)
class RankedNote:
    """A candidate note as the ranker scored it (for benches and the fit script)."""

    path: str
    score: float
    features: tuple[float, ...]


@dataclass(frozen=True)
class Retrieval:
    """Ranked sources with their excerpts, and the evidence the tier decision needs."""

    sources: list[Source]
    evidence: Evidence
    words: int
    ranked: tuple[RankedNote, ...] = ()  # every candidate, best first
    question: npt.NDArray[np.float32] | None = None  # the question's vector, when embedded


_MIN_HEAD = 96  # blocks the lifecycle may reorder, at the least


def _head_size(
    ranked: Sequence[BlockKey], relevance: dict[BlockKey, float], budget: int, tolerance: float
) -> int:
    """How many of the best blocks the lifecycle may reorder: enough to fill the budget with
    blocks of four words, and every block within `tolerance` of the last of those."""
    head = min(len(ranked), max(_MIN_HEAD, budget // 4))
    if head == len(ranked):
        return head
    floor = relevance[ranked[head - 1]] / (1.0 + tolerance)
    while head < len(ranked) and relevance[ranked[head]] >= floor:
        head += 1
    return head


class Retriever:
    """Ranked sources with excerpts for a query's terms. Thread-safe for concurrent queries."""

    def __init__(
        self,
        index: SearchIndex,
        lifecycle: LifecycleProvider,
        params: EngineParams,
        clock: Callable[[], dt.datetime],
        dense: DenseSearch | None = None,
        detector: LanguageDetector | None = None,
        graph: GraphCache | None = None,
    ) -> None:
        self.index = index
        self.dense = dense
        self.lifecycle = lifecycle
        self.params = params
        self.clock = clock
        self.evidence = EvidenceReader(index, params)
        self.features = FeatureReader(index, dense, params.ranking.relevance_scale, graph)
        # The weights fitted with both channels, and those fitted without the dense one (for a
        # vault not embedded yet, the channel off, or a language the model does not serve).
        self._weights = {True: FITTED, False: FITTED_LEXICAL}
        self._vectors = {True: weight_vector(FITTED), False: weight_vector(FITTED_LEXICAL)}
        # On a large index (`overlap_windows`) the window search runs beside the entry and
        # block searches: tantivy releases the GIL while it searches, so on a second core they
        # overlap; on a small one the thread costs more CPU than the overlap saves. Two
        # workers: the API's event loop and an MCP or CLI caller may query at once.
        self._searches = ThreadPoolExecutor(2, thread_name_prefix="window-search")
        self._shingles: OrderedDict[tuple[int, bytes], frozenset[tuple[str, str]]] = OrderedDict()
        self._shingles_lock = threading.Lock()
        # Loaded by the first question that needs it.
        self._detector = detector or LanguageDetector()

    def weights_for(self, dense_ranked: bool) -> RankerWeights:
        """The ranker's weights with both channels, or those fitted without the dense one."""
        return self._weights[dense_ranked]

    def close(self) -> None:
        """Stop the window-search threads (a query still running finishes first)."""
        self._searches.shutdown(wait=True)

    def retrieve(
        self,
        terms: QueryTerms,
        budget: int,
        limit: int,
        scope: str | None = None,
        text: str | None = None,
    ) -> Retrieval:
        """Candidates from both channels and one hop of relations, ranked by one scoring
        function (`bridge.core.ranker`); then the word budget filled with their blocks.
        `text` is the question as asked: the dense channel embeds it."""
        params, ranking = self.params, self.params.ranking
        if terms.empty:
            return Retrieval([], Evidence(has_terms=False, confidence=0.0, held=0.0), 0)
        # The question is embedded while the BM25 searches run (onnxruntime frees the GIL).
        dense_later = None
        if self.dense is not None and text:
            dense_later = self._searches.submit(self.dense.find, text, scope, params.dense.depth)
        editions = self._lexical_editions()
        asked = self._question_language(text, editions) if text else None
        if asked is not None and asked in self.index.stem_languages():
            terms = question_stems(terms, text or "", asked)
        speaker = self.evidence.named_speaker(terms)
        windows_later = None
        wanted = self.window_count(budget)
        if self.index.document_count("windows") >= params.overlap_windows:
            windows_later = self._searches.submit(
                self.index.window_scores, terms, wanted, scope, speaker
            )
        entry_hits = self.index.search_entries(terms, params.entry_limit, scope)
        found = self.index.block_scores(terms, params.block_limit, scope, speaker)
        if windows_later is not None:
            around = windows_later.result()
        else:
            around = self.index.window_scores(terms, wanted, scope, speaker)
        blocks, windows = found.scores, around.scores
        words = around.words | found.words  # every candidate's excerpt words
        entries = {h.nid: h.score for h in entry_hits}
        spoken = found.spoken | around.spoken  # the named speaker's turns among candidates
        relation_blocks = found.flagged  # FLAG_METADATA is the only flag
        lexical = _lexical_notes(entries, blocks, windows)

        # The fields the words' own candidates hold are asked while the question is embedded;
        # with nothing to wait for, once for every candidate (each ask reads the words'
        # postings over the whole index, however few the notes).
        early = _best_of(lexical, params.candidates) if dense_later is not None else {}
        masks = self.features.field_masks(terms, list(early))
        dense = dense_later.result() if dense_later is not None else NO_DENSE
        if not dense.ready:  # the channel knows no language yet: the edition folders tell
            editions = self._folder_editions()
            asked = self._question_language(text, editions) if text and editions else None
        dense_blocks, dense_notes = dense_parts(dense.hits) if dense.ranks else ({}, {})

        # Stage 1: the candidates, a few dozen notes.
        direct = _best_of(lexical, params.candidates) | _best_of(dense_notes, params.candidates)
        records = self.index.records(direct)
        seeds = [
            *_best_of(lexical, ranking.relation_sources),
            *_best_of(dense_notes, ranking.relation_sources),
        ]
        referrer: dict[int, int] = {}
        for source, targets in self._related(seeds, records, scope).items():
            # A page that lists hundreds of others lends its first few: the rest would be
            # candidates nothing else speaks for, each costing its features.
            joined = [t for t in dict.fromkeys(targets) if t not in direct and t not in referrer]
            for target in joined[:_JOINED_PER_NOTE]:
                referrer[target] = source
        if referrer:
            records.update(self.index.records(referrer))
        candidates = [nid for nid in (*direct, *referrer) if nid in records]

        # Stage 2: one score over each candidate's features.
        other = self._language_factors(
            dense, dict.fromkeys(candidates, 1.0), records, editions, asked
        )
        state = Found(
            entries,
            blocks,
            windows,
            dense,
            records,
            joined=referrer,
            other_language=frozenset(n for n, f in other.items() if f < 1.0),
            lifecycle=self._lifecycle_values({n: records[n] for n in candidates}),
        )
        late = [n for n in candidates if n not in early]
        if late:
            masks = merged(masks, self.features.field_masks(terms, late))
        features = self.features.features(terms, state, candidates, text or "", masks)
        both = dense.ranks and dense.vector is not None
        vector, weights = self._vectors[both], self._weights[both]
        score = {nid: note_score(features[nid], vector) for nid in candidates}
        # The order of one score, each note's probability of answering; between notes within
        # `lifecycle_tolerance` of each other the lifecycle decides (DESIGN 3: it reorders
        # near-equals, never outranks relevance): the current of two near-identical notes first.
        shown_score = {n: answer_probability(score[n], weights) for n in candidates}
        ranked = lifecycle_order(
            sorted(candidates, key=lambda n: -score[n]), shown_score, state.lifecycle, ranking
        )

        # The word budget: DESIGN 3's block rule over the candidates' blocks, the lifecycle
        # reordering near-equals; the first note's best block leads, so the first source always
        # shows why it is first.
        allowed = set(candidates)
        priority = block_scores(
            blocks,
            windows,
            entries,
            ranking,
            spoken,
            relation_blocks,
            notes=allowed,
            dense=dense_blocks,
            dense_weight=params.dense.block_weight,
        )
        found_notes = {nid for nid, _ in priority}
        for nid, lead in self._lead_notes(entry_hits, found_notes).items():
            if nid in allowed:
                priority[(nid, _LEAD)] = lead
        note_values: dict[int, float] = dict(state.lifecycle)

        def values_of(part: Sequence[BlockKey]) -> dict[BlockKey, float]:
            return {k: note_values.get(k[0], 0.5) for k in part}

        by_relevance = sorted(priority, key=priority.__getitem__, reverse=True)  # stable
        first = next((k for k in by_relevance if ranked and k[0] == ranked[0]), None)
        if first is not None:
            by_relevance.remove(first)
        head = _head_size(by_relevance, priority, budget, ranking.lifecycle_tolerance)
        order: Iterator[BlockKey] = chain(
            [first] if first is not None else [],
            lifecycle_stream(by_relevance[:head], priority, values_of, ranking),
            by_relevance[head:],
        )
        # Fewer than 3 words left: what could still fit is a one-word turn from far down.
        resolved = self._resolved(order, words, priority, terms)
        texts: dict[BlockKey, IndexedBlock] = {}  # read as packing reaches them
        chosen = pack(self._readable(resolved, words, texts), words, budget, min_left=3)
        signals = {n: [features[n][i] for i in _TEXT_SIGNALS] for n in ranked}
        sources = self._sources(
            ranked, chosen, texts, records, shown_score, referrer, priority, limit, signals
        )
        used = sum(word_count(e.text) for s in sources for e in s.blocks)  # as shown
        explained = tuple(RankedNote(records[n].path, score[n], tuple(features[n])) for n in ranked)
        evidence = self._evidence(
            terms, text or "", entry_hits, dense, ranked, score, features, both
        )
        return Retrieval(sources, evidence, used, explained, dense.vector if both else None)

    def _evidence(
        self,
        terms: QueryTerms,
        text: str,
        entry_hits: Sequence[Hit],
        dense: DenseFound,
        ranked: Sequence[int],
        score: Mapping[int, float],
        features: Mapping[int, Sequence[float]],
        both: bool,
    ) -> Evidence:
        """What the tier decision reads (`Evidence`): the ranker's confidence that the first
        source answers, the share of the question's words the best-holding note holds, and
        the best passage's cosine with the vault's off-topic line."""
        total, unknown = self.evidence.words_weight(terms)
        share = unknown / total if total > 0 else 0.0
        scale = self.params.ranking.relevance_scale
        top_rel = normalised_relevance(entry_hits[0].score, scale) if entry_hits else 0.0
        weights = self._weights[both]
        named = self.evidence.names_held(terms, text)
        if not ranked:
            return Evidence(
                has_terms=True,
                confidence=0.0,
                held=0.0,
                on_topic=on_topic({"unknown": share}, weights),
                names_held=named,
                top_rel=top_rel,
                words_weight=total,
                dense_ranked=both,
            )
        first = dict(zip(FEATURES, features[ranked[0]], strict=True))
        second = score[ranked[1]] if len(ranked) > 1 else None
        held = max(features[n][INDEX["coverage"]] for n in ranked)
        close = self.evidence.closeness(dense) if both else 0.0
        inputs = confidence_inputs(first, score[ranked[0]], second, share, held, close)
        return Evidence(
            has_terms=True,
            confidence=confidence(inputs, weights),
            held=held,
            on_topic=on_topic(inputs, weights),
            names_held=named,
            top_rel=top_rel,
            inputs=tuple(inputs[n] for n in CONFIDENCE),
            words_weight=total,
            dense_ranked=both,
        )

    def _readable(
        self,
        order: Iterator[BlockKey],
        words: dict[BlockKey, int],
        texts: dict[BlockKey, IndexedBlock],
    ) -> Iterator[BlockKey]:
        """`order` without the blocks no reader wants as an excerpt (a Raw Concept line:
        "Author: agent:claude-code, ..."), their texts read 32 blocks at a time as packing
        reaches them (into `texts`, which the sources show), with the excerpt words of the
        blocks only the dense channel found (the BM25 searches return theirs): packing stops
        after a few dozen, and reading every candidate up front was a fifth of a query. A
        block that no longer exists is skipped."""
        while True:
            part = list(islice(order, 32))
            if not part:
                return
            texts.update(self.index.blocks(part))
            for key in part:
                block = texts.get(key)
                if block is None or _is_provenance(block.heading):
                    continue
                if key not in words:
                    words[key] = excerpt_words(block.text)
                yield key

    def _lexical_editions(self) -> frozenset[str]:
        """Without the dense channel, the languages of a vault laid out by language
        (`_folder_editions`). The dense channel knows its notes' languages."""
        if self.dense is not None:
            return frozenset()
        return self._folder_editions()

    def _folder_editions(self) -> frozenset[str]:
        """The languages of a vault laid out by language: two or more top folders named by
        language codes (`en/`, `de/`); none otherwise (a lone `it/` folder of IT notes is no
        edition)."""
        folders = self.index.folder_languages()
        return folders if len(folders) >= 2 else frozenset()

    def _question_language(self, text: str, editions: frozenset[str]) -> str | None:
        """The question's language, when the vault has notes it matters for: notes with stems
        in a language (`with_stems`), or editions (`_lexical_editions`); None otherwise,
        without running the detector.

        The detector's language when it is sure over every language, else when it is sure
        among English and the vault's languages (a short question's words are few).
        """
        among = self.index.stem_languages() | editions
        if not among:
            return None
        return question_language(self._detector.ranks(text), among | {"en"})

    def _language_factors(
        self,
        dense: DenseFound,
        note_score: dict[int, float],
        records: Mapping[int, NoteRecord],
        editions: frozenset[str],
        asked: str | None,
    ) -> dict[int, float]:
        """Notes to demote for being in another language than the question (`language_factors`),
        or, when its language is unknown, for being untranslated copies (`copy_factors`).

        Without the dense channel, a note's language is its edition folder's (`editions`), and
        the question's the detector's (`asked`): otherwise an English question could get the
        French edition's untranslated copy of the English page first. The same while the
        channel loads (`DenseFound.ready`: in a fresh `serve`'s first seconds it knows no
        language), and for the notes whose language it has not told yet (`DenseFound.covered`).
        """
        factor = self.params.dense.other_language
        if self.dense is None or not dense.ready:
            if not editions or asked is None:
                return {}
            return language_factors(
                self._folder_languages(note_score, records, editions), asked, factor
            )
        if dense.language is None:
            copies = self.dense.copies(note_score)
            return copy_factors(copies, note_score, factor)
        languages = {nid: self.dense.edition_language(nid) for nid in note_score}
        folders = self._folder_editions() if not dense.covered else frozenset()
        if folders:  # notes the channel has not told yet: their edition folder's language
            by_folder = self._folder_languages(note_score, records, folders)
            languages = {nid: lang or by_folder.get(nid) for nid, lang in languages.items()}
        return language_factors(languages, dense.language, factor)

    @staticmethod
    def _folder_languages(
        notes: Iterable[int], records: Mapping[int, NoteRecord], editions: frozenset[str]
    ) -> dict[int, str | None]:
        """Each note's edition folder's language (`editions`), else None."""
        return {
            nid: lang if (lang := folder_language(records[nid].path)) in editions else None
            for nid in notes
            if nid in records
        }

    def window_count(self, budget: int) -> int:
        """How many windows the window search returns for a budget of `budget` words.

        One window per `window_words` budget words, at least `window_floor`, at most
        `window_limit`. Each window is a candidate to turn into a map entry and rank, but it
        only adds 0.4 x its normalised score, so the windows far down the list lend little,
        and only as many blocks as the budget holds are packed; a large budget packs more
        blocks, and then the windows further down count.
        """
        params = self.params
        return min(
            params.window_limit, max(params.window_floor, budget // max(1, params.window_words))
        )

    def _lead_notes(self, entry_hits: Sequence[Hit], found_notes: set[int]) -> dict[int, float]:
        """A note found by its title, path or a heading alone still gets an excerpt.

        "# Zanzibar" over an unrelated body matches the entry search, but no block holds the
        word, so the note would have no block to pack and come back with no source at all.
        Such a note lends its entry part to one block: the first under a heading that holds a
        query term, else its first block of knowledge (not a relation line). Which block that
        is takes two searches (`SearchIndex.lead_block`), so the note enters the ranking as
        `(note, _LEAD)` and the block is chosen only if packing reaches it (`_resolved`), not
        up front for every such note. Returns each such note's entry part
        (its placeholder's priority), for the top entry hits no block of which was found.
        """
        if not entry_hits:
            return {}
        top = max(h.score for h in entry_hits)
        if top <= 0:
            return {}
        weight = self.params.ranking.entry_weight
        return {
            hit.nid: weight * hit.score / top
            for hit in entry_hits[:_LEAD_NOTES]
            if hit.nid not in found_notes
        }

    def _resolved(
        self,
        order: Iterable[BlockKey],
        words: dict[BlockKey, int],
        priority: dict[BlockKey, float],
        terms: QueryTerms,
    ) -> Iterator[BlockKey]:
        """`order` with each lead placeholder replaced by its note's lead block when reached
        (its words and priority recorded); a note without blocks is skipped."""
        for key in order:
            if key[1] != _LEAD:
                yield key
                continue
            lead = self._lead_block(key[0], terms)
            if lead is None:
                continue
            block, count = lead
            words[block] = count
            priority[block] = priority[key]
            yield block

    def _lead_block(self, nid: int, terms: QueryTerms) -> tuple[BlockKey, int] | None:
        """The note's lead block and its excerpt words (the rule: `SearchIndex.lead_block`)."""
        rec = self.index.records([nid]).get(nid)
        if rec is None:
            return None
        words = (*terms.words, *terms.bigrams)  # CJK headings are indexed as pairs too
        lead = self.index.lead_block(nid, min(rec.blocks, _LEAD_BLOCKS), words)
        return None if lead is None else ((nid, lead[0]), lead[1])

    def _sources(
        self,
        ranked: Sequence[int],
        chosen: list[BlockKey],
        texts: dict[BlockKey, IndexedBlock],
        records: Mapping[int, NoteRecord],
        score: Mapping[int, float],
        referrer: Mapping[int, int],
        priority: Mapping[BlockKey, float],
        limit: int,
        signals: Mapping[int, Sequence[float]],
    ) -> list[Source]:
        """The first `limit` notes of the ranking, each with its packed blocks (best first);
        a note none of whose blocks fit the budget is listed without an excerpt. `score` is
        each note's probability of answering (`answer_probability`); notes less than
        `source_ratio` as likely as the first are left out, but for those a relation brought
        in, which follow the others."""
        by_note: dict[int, list[BlockKey]] = {}
        for key in chosen:
            by_note.setdefault(key[0], []).append(key)
        floor = self.params.source_ratio * score[ranked[0]] if ranked else 0.0
        # Notes a relation of a better note brought in stay listed below the others even when
        # far down (see-also: what multi-hop questions need), as DESIGN 3's expansion lists them.
        listed = [n for n in ranked if score[n] >= floor and n in records]
        listed += [n for n in ranked if score[n] < floor and n in referrer and n in records]
        copies = self._copies(listed[: limit + _COPY_LOOKAHEAD], records, signals)
        hidden = {n for others in copies.values() for n in others}
        sources: list[Source] = []
        seen: set[str] = set()  # excerpt texts already given: never twice
        for nid in listed:
            if len(sources) >= limit:
                break
            if nid in hidden:
                continue
            rec = records[nid]
            keys = sorted(by_note.get(nid, ()), key=lambda k: -priority.get(k, 0.0))
            excerpts = []
            for k in keys:
                block = texts.get(k)
                if block is None:
                    continue
                shown = _excerpt(block.text)
                if " ".join(shown.split()) in seen:
                    continue
                seen.add(" ".join(shown.split()))
                excerpts.append(
                    Excerpt(
                        text=shown,
                        line=block.line,
                        block_id=block.block_id,
                        heading=block.heading,
                        score=round(priority.get(k, 0.0), 6),
                    )
                )
            via = referrer.get(nid)
            source_rec = records.get(via) if via is not None else None
            source = self._source(rec, excerpts, score[nid], source_rec)
            also = [records[n].path for n in copies.get(nid, ())]
            sources.append(source.model_copy(update={"also_in": also}) if also else source)
        return sources

    def _copies(
        self,
        notes: Sequence[int],
        records: Mapping[int, NoteRecord],
        signals: Mapping[int, Sequence[float]],
    ) -> dict[int, list[int]]:
        """Groups of copies among `notes` (best first), as {first: [the others]} (`copy_groups`):
        the text is read only for notes of about the same size that the question's searches
        scored alike (`signals`)."""
        pairs = maybe_copies({n: records[n].size for n in notes}, notes, signals)
        if not pairs:
            return {}

        def pairs_of(nid: int) -> frozenset[tuple[str, str]]:
            rec = records[nid]
            key = (nid, rec.hash)  # the same bytes: the same word pairs
            with self._shingles_lock:
                kept = self._shingles.get(key)
                if kept is not None:
                    self._shingles.move_to_end(key)
                    return kept
            count = min(rec.blocks, _COPY_BLOCKS)
            blocks = self.index.blocks((nid, i) for i in range(count))
            made = word_pairs("\n".join(blocks[k].text for k in sorted(blocks)))
            with self._shingles_lock:
                self._shingles[key] = made
                if len(self._shingles) > _SHINGLES_KEPT:
                    self._shingles.popitem(last=False)
            return made

        return copy_groups(notes, pairs, pairs_of)

    @staticmethod
    def _source(
        rec: NoteRecord, excerpts: list[Excerpt], score: float, referrer: NoteRecord | None
    ) -> Source:
        return Source(
            path=rec.path,
            title=rec.title,
            status=rec.status,
            score=round(score, 6),
            excerpt="\n\n".join(e.text for e in excerpts),
            via="relation" if referrer is not None else "search",
            related_from=referrer.path if referrer is not None else None,
            blocks=excerpts,
        )

    def _lifecycle_values(self, records: dict[int, NoteRecord]) -> dict[int, float]:
        """Each note's lifecycle value `L` (neutral when the lifecycle knows nothing of it)."""
        refs = [NoteRef(r.path, r.status, r.updated) for r in records.values()]
        by_path = self.lifecycle.facts(refs, self.clock())
        ranking = self.params.ranking
        return {
            nid: lifecycle_value(by_path.get(r.path, NEUTRAL), ranking)
            for nid, r in records.items()
        }

    def _related(
        self, seeds: Sequence[int], records: Mapping[int, NoteRecord], scope: str | None
    ) -> dict[int, list[int]]:
        """Resolved outgoing links of the notes relation expansion starts from."""
        resolver = self.index.link_resolver()
        related: dict[int, list[int]] = {}
        for nid in dict.fromkeys(seeds):
            rec = records.get(nid)
            if rec is None:
                continue
            targets = []
            for target in rec.links:
                path = resolver.resolve(target, rec.path)
                if path is None or (scope is not None and not path.startswith(scope + "/")):
                    continue
                stamp = self.index.stamp(path)
                if stamp is not None and stamp.nid != nid:
                    targets.append(stamp.nid)
            related[nid] = targets
        return related


def _is_provenance(heading: str) -> bool:
    """A block of an entry's Raw Concept section (task, source, author): where the note came
    from, never an excerpt a reader wants ("Author: agent:claude-code, ...")."""
    return heading.rsplit(" > ", 1)[-1].strip().lower() == "raw concept"


def _lexical_notes(
    entries: Mapping[int, float],
    blocks: Mapping[BlockKey, float],
    windows: Mapping[BlockKey, float],
) -> dict[int, float]:
    """Each note the BM25 searches found, by the best of its three normalised scores."""
    out: dict[int, float] = {}
    for scores in (entries, blocks, windows):
        top = max(scores.values(), default=0.0)
        if top <= 0:
            continue
        for key, value in scores.items():
            nid = key if isinstance(key, int) else key[0]
            share = value / top
            if share > out.get(nid, 0.0):
                out[nid] = share
    return out


def _best_of(scores: Mapping[int, float], count: int) -> dict[int, None]:
    """The `count` best keys of `scores`, best first (an ordered set)."""
    return dict.fromkeys(sorted(scores, key=scores.__getitem__, reverse=True)[:count])
