"""Tier 2 retrieval: block ranking, lifecycle fusion, relations, cut-off, budget packing.

The rules are pure functions in `bridge.core.ranking`; this class runs the three BM25
searches, fetches what the rules need (note records, lifecycle facts, links, block texts) and
applies them in order (docs/query.md, "Ranking").
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice

from bridge.core.fusion import (
    LEXICAL,
    ChannelWeights,
    channel_weights,
    copy_factors,
    dense_leaders,
    dense_parts,
    fused_note_scores,
    language_factors,
    leader_places,
    with_leaders,
)
from bridge.core.language import folder_language, question_language
from bridge.core.markdown import excerpt_text
from bridge.core.ranking import (
    NEUTRAL,
    BlockKey,
    above_cutoff,
    block_scores,
    expand_relations,
    lifecycle_stream,
    lifecycle_value,
    normalised_relevance,
    pack,
    title_factors,
)
from bridge.core.tiers import Evidence
from bridge.index.analysis import QueryTerms, analyze, question_stems
from bridge.index.documents import IndexedBlock, excerpt_words
from bridge.index.manifest import NoteRecord
from bridge.index.queries import idf
from bridge.index.search_index import Hit, SearchIndex
from bridge.query.dense import NO_DENSE, DenseFound, DenseSearch
from bridge.query.evidence import EvidenceReader
from bridge.query.lifecycle import LifecycleProvider, NoteRef
from bridge.query.models import Excerpt, Source
from bridge.query.params import EngineParams
from bridge.semantic.languages import LanguageDetector

_LEAD_NOTES = 10  # entry-only notes that get a lead block, best first
_LEAD_BLOCKS = 16  # the first blocks of such a note, among which its lead block is chosen
# The ordinal of a lead block not chosen yet: which block leads is read only when packing
# reaches the note (most never are), see `_lead_notes`.
_LEAD = -1

# A block as an excerpt shows it, kept for the blocks packed most: the same turns and
# paragraphs go into answer after answer, and cutting the list marker and block id (two
# regular expressions) was a twentieth of a LoCoMo query. Keyed by the text, so an edited
# block is a new key; not used when indexing, which sees each block once.
_excerpt = lru_cache(maxsize=8192)(excerpt_text)


@dataclass(frozen=True)
class Retrieval:
    """Ranked sources with their excerpts, and the evidence the tier decision needs."""

    sources: list[Source]
    evidence: Evidence
    words: int


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
    ) -> None:
        self.index = index
        self.dense = dense
        self.lifecycle = lifecycle
        self.params = params
        self.clock = clock
        self.evidence = EvidenceReader(index, params)
        # On a large index the window search runs beside the entry and block searches:
        # tantivy releases the GIL while it searches, so on a second core they overlap.
        # Measured with the thread on and off (`retrieve` alternated in one process; with
        # 100 windows a query, docs/benchmarks.md "Issue 13, fourth pass"): 100,000 notes
        # (1.6 M windows) 6.60 -> 5.52 ms wall for 6% more CPU; 10,000 notes (161,000
        # windows) 3.31 -> 3.33 ms for 11% more CPU. The threshold lies between the two, not
        # measured at itself. Two workers: the API's event loop and an MCP or CLI caller may
        # query at once.
        self._searches = ThreadPoolExecutor(2, thread_name_prefix="window-search")
        self._detector = LanguageDetector()  # loaded by the first question that needs it

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
        """Block ranking (both channels), lifecycle fusion, relation expansion, cut-off and
        budget packing. `text` is the question as asked: the dense channel embeds it."""
        p, rp = self.params, self.params.ranking
        if terms.empty:
            return Retrieval([], self.evidence.evidence(terms, [], scope), 0)
        # The question is embedded while the BM25 searches run (onnxruntime frees the GIL).
        dense_later = None
        if self.dense is not None and text:
            dense_later = self._searches.submit(self.dense.find, text, scope, p.dense.depth)
        editions = self._lexical_editions()
        asked = self._question_language(text, editions) if text else None
        if asked is not None and asked in self.index.stem_languages():
            terms = question_stems(terms, text or "", asked)
        speaker = self.evidence.named_speaker(terms)
        windows_later = None
        wanted = self.window_count(budget)
        if self.index.document_count("windows") >= p.overlap_windows:
            windows_later = self._searches.submit(
                self.index.window_scores, terms, wanted, scope, speaker
            )
        entry_hits = self.index.search_entries(terms, p.entry_limit, scope)
        found = self.index.block_scores(terms, p.block_limit, scope, speaker)
        if windows_later is not None:
            around = windows_later.result()
        else:
            around = self.index.window_scores(terms, wanted, scope, speaker)
        blocks, windows = found.scores, around.scores
        words = around.words | found.words  # every candidate's excerpt words
        entries = {h.nid: h.score for h in entry_hits}
        spoken = found.spoken | around.spoken  # the named speaker's turns among candidates
        relation_blocks = found.flagged  # FLAG_METADATA is the only flag
        # The notes of the candidates (the blocks either search found), and the notes found
        # by their entry alone, which lend their entry part to a lead block.
        found_notes = {nid for nid, _ in blocks}
        found_notes.update(nid for nid, _ in windows)
        # What needs only the lexical side is done before waiting for the question's vector
        # (its embedding is the longer half: 9-10 ms against 2-4 ms of BM25 searches).
        raw: dict[int, float] = dict(entries)
        for (nid, _), score in blocks.items():
            if nid not in entries:
                raw[nid] = max(raw.get(nid, 0.0), score)
        for nid in found_notes:
            raw.setdefault(nid, 0.0)
        records = self.index.records(raw)
        coverage = self._coverage(terms, entry_hits) if _may_fuse(dense_later) else 1.0
        titles = self._title_factors(terms, entries, records)

        dense = dense_later.result() if dense_later is not None else NO_DENSE
        if not dense.ready:  # the channel knows no language yet: the edition folders tell
            editions = self._folder_editions()
            asked = self._question_language(text, editions) if text and editions else None
        dense_blocks, dense_notes = dense_parts(dense.hits)
        new_notes = [nid for nid in dense_notes if nid not in raw]
        if new_notes:
            records.update(self.index.records(new_notes))
            for nid in new_notes:
                raw[nid] = 0.0
        found_notes.update(dense_notes)
        leads = self._lead_notes(entry_hits, found_notes)

        # Note-level relevance: the entry's BM25, else its best block's; with the dense
        # channel, a weighted mean of both (`fused_note_scores`).
        lexical = {
            nid: normalised_relevance(s, rp.relevance_scale)
            for nid, s in raw.items()
            if nid in records
        }
        weights = self._channel_weights(coverage, dense)
        note_score = fused_note_scores(
            lexical, {n: d for n, d in dense_notes.items() if n in records}, weights.share
        )
        # Notes in another language than the question's demoted where some are in its
        # language; notes the question names by their whole title lifted.
        factors = self._language_factors(dense, note_score, records, editions, asked)
        for nid, factor in titles.items():
            factors[nid] = factors.get(nid, 1.0) * factor
        for nid, factor in factors.items():
            note_score[nid] *= factor
        # Cut-off on direct hits, then one hop along relations from the best of them.
        best_first = above_cutoff(note_score, rp.cutoff)
        kept = set(best_first)
        leaders = self._leaders(dense_notes, weights, coverage, factors, records)
        kept.update(leaders)
        ranked = [(n, note_score[n]) for n in best_first]
        referrer: dict[int, int] = {}
        for joined in expand_relations(ranked, self._related(ranked, records, scope), rp):
            note_score[joined.target] = max(note_score.get(joined.target, 0.0), joined.score)
            referrer[joined.target] = joined.referrer
            kept.add(joined.target)
        missing = [nid for nid in referrer if nid not in records]
        if missing:
            records.update(self.index.records(missing))

        # Block priority: the block's relevance (half for blocks of notes that only joined
        # through a relation); then the lifecycle reorders near-equals (DESIGN 3), by each
        # note's lifecycle value, used once per note. Only the blocks of the notes kept are
        # scored: the cut-off has dropped the others.
        allowed = kept.intersection(records)
        priority = block_scores(
            blocks,
            windows,
            entries,
            rp,
            spoken,
            relation_blocks,
            notes=allowed,
            dense=dense_blocks,
            dense_weight=weights.dense_weight,
            lexical_scale=weights.lexical_scale,
        )
        for nid, score in leads.items():
            if nid in allowed:
                priority[(nid, _LEAD)] = score
        if factors:  # a lead block too: a note found by its title alone leads with it
            for key in priority:
                priority[key] *= factors.get(key[0], 1.0)
        if referrer:
            for key in priority:
                if key[0] in referrer:
                    priority[key] *= rp.relation_factor
        # Lifecycle facts are read only for the notes that need them, once each.
        note_values: dict[int, float] = {}

        def notes_values(nids: Iterable[int]) -> dict[int, float]:
            new = {n: records[n] for n in nids if n not in note_values}
            if new:
                note_values.update(self._lifecycle_values(new))
            return note_values

        def values_of(part: Sequence[BlockKey]) -> dict[BlockKey, float]:
            values = notes_values(k[0] for k in part)
            return {k: values[k[0]] for k in part}

        by_relevance = sorted(priority, key=priority.__getitem__, reverse=True)  # stable
        # Only the head can be packed: a budget of B words holds at most ~B/4 blocks. The
        # lifecycle reorders the head (and the near-equals just below it); the tail stays in
        # relevance order. The head's order is made as packing pulls it, so lifecycle facts
        # are read for the notes of the blocks it reaches (and the near-equals below them).
        head = _head_size(by_relevance, priority, budget, rp.lifecycle_tolerance)

        order: Iterator[BlockKey] = chain(
            lifecycle_stream(by_relevance[:head], priority, values_of, rp), by_relevance[head:]
        )
        if leaders:
            places = leader_places(
                by_relevance,
                priority,
                leaders,
                notes_values,
                rp.lifecycle_tolerance,
                rp.lifecycle_margin,
                note_score,
                p.dense.lead_margin,
            )
            order = with_leaders(order, places)
        # Fewer than 3 words left: what could still fit is a one-word turn from far down.
        resolved = self._resolved(order, words, priority, terms)
        if dense_blocks:
            resolved = self._counted(resolved, words)
        chosen = pack(resolved, words, budget, min_left=3)
        texts = self.index.blocks(chosen)  # the text of the packed blocks only
        sources = self._sources(chosen, texts, records, note_score, referrer, priority)
        listed = {s.path for s in sources}
        for nid in sorted(referrer, key=lambda n: -note_score[n]):
            if len(sources) >= limit:  # the rest would be cut below
                break
            rec = records.get(nid)
            if rec is not None and rec.path not in listed:  # see-also, no excerpt words
                sources.append(self._source(rec, [], note_score[nid], records.get(referrer[nid])))
        sources = sources[:limit]
        # The word counts packing made, for the sources `limit` kept.
        shown = {s.path for s in sources}
        used = sum(words[k] for k in chosen if (r := records.get(k[0])) and r.path in shown)
        return Retrieval(sources, self.evidence.evidence(terms, entry_hits, scope, dense), used)

    def _leaders(
        self,
        dense_notes: Mapping[int, float],
        weights: ChannelWeights,
        coverage: float,
        factors: Mapping[int, float],
        records: Mapping[int, NoteRecord],
    ) -> list[int]:
        """The dense channel's best notes to keep among the first sources (`leader_places`).

        None when the channel does not rank, none demoted for their language, and none when
        one of the best lexical notes holds every word of the question (`coverage` 1): the
        words said what was meant, and the channel's nearest note to a name it does not know
        ("zephyrine") is noise, which the cut-off would have dropped.
        """
        count = self.params.dense.leaders
        if count <= 0 or weights is LEXICAL or coverage >= 1.0 - 1e-9:
            return []
        return [
            nid
            for nid in dense_leaders(dense_notes, count)
            if nid in records and factors.get(nid, 1.0) >= 1.0
        ]

    def _counted(self, order: Iterator[BlockKey], words: dict[BlockKey, int]) -> Iterator[BlockKey]:
        """`order` with the excerpt words of the blocks only the dense channel found (the
        BM25 searches return theirs), read 32 blocks at a time as packing reaches them: it
        stops after a few dozen, and reading every dense candidate up front was a fifth of a
        query. A block that no longer exists is skipped."""
        while True:
            part = list(islice(order, 32))
            if not part:
                return
            wanted = [k for k in part if k not in words]
            if wanted:
                texts = self.index.blocks(wanted)
                for key in wanted:
                    block = texts.get(key)
                    if block is not None:
                        words[key] = excerpt_words(block.text)
            yield from (k for k in part if k in words)

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

    def _coverage(self, terms: QueryTerms, entry_hits: Sequence[Hit]) -> float:
        """How much of the question's rare words the best lexical notes hold (0-1); not
        measured when the dense share is fixed and no leaders are kept (it would not be used)."""
        dp = self.params.dense
        if dp.share_exact == dp.share_vague and dp.leaders <= 0:
            return 1.0
        return self.index.term_coverage(terms, [h.nid for h in entry_hits[:5]])

    def _channel_weights(self, coverage: float, dense: DenseFound) -> ChannelWeights:
        """The lexical weights without dense hits, or from a channel that has not seen the
        whole vault yet; else by the lexical match's strength.

        Trigger: on a fresh `serve`, the notes embedded first beat those not embedded yet: a
        third of the way through the Obsidian Hub 12 of 52 first sources were right against
        17 by words (the help vault: 16 of 44 against 18). Its guides, which answer most
        own-words questions, are embedded last: with 98% of the notes embedded, 14 were right,
        and 15 with the channel weighted by the share of notes it had seen; 22 once every note
        had vectors (docs/benchmarks.md, "A fresh serve"). Outcome: `serve` ranks by words
        until the vault is embedded, then by meaning too.
        """
        if not dense.ranks:
            return LEXICAL
        return channel_weights(coverage, self.params.dense)

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
        the question's the detector's (`asked`): lexical-only, an English question got the
        French edition's untranslated copy of the English page first. The same while the
        channel loads (`DenseFound.ready`): in a fresh `serve`'s first seconds it knows no
        language, and 2 of the help vault's 28 English questions got another edition's page
        first (docs/benchmarks.md, "A fresh serve"); and for the notes whose language it has
        not told yet (`DenseFound.covered`: minutes at 100,000 notes).
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

    def _title_factors(
        self, terms: QueryTerms, entries: dict[int, float], records: dict[int, NoteRecord]
    ) -> dict[int, float]:
        """Notes whose whole title the question names, lifted (`title_factors`).

        Only the entry search's notes are looked at: a note the question names by its whole
        title matches the title field (x3) with every word, so it is among them, and the
        work stays bounded (every candidate's title, at 100,000 notes, cost 1-1.7 ms a query
        and 45 MB of cached titles).
        """
        boost = self.params.ranking.title_boost
        if boost <= 0 or not terms.words:
            return {}
        docs = max(1, self.index.document_count("entries"))

        known: dict[str, float] = {}

        def rarity(word: str) -> float:  # read only when some title is named, once a word
            if word not in known:
                known[word] = idf(docs, self.index.doc_frequency(word))
            return known[word]

        titles = {nid: _title_words(rec.title) for nid in entries if (rec := records.get(nid))}
        return title_factors(titles, terms.words, rarity, boost)

    def window_count(self, budget: int) -> int:
        """How many windows the window search returns for a budget of `budget` words.

        Trigger: the window search returned 400 windows for every query, each one a
        candidate to turn into a map entry and rank. Why: a window only adds 0.4 x its
        normalised score, so the windows far down its list lend little, and only as many
        blocks as the budget holds (~B/20) are packed. Outcome: one window per 5 budget
        words, at least 100, at most `window_limit` (400): 100 at the default 500 words,
        400 from 2,000; a LoCoMo query 17% faster. Measured on LoCoMo dev (recall@200/500/1000
        71.0/80.3/84.7 with 400 windows; 70.9/80.6/84.7 with 100; 25 to 400 all within 0.5 at
        500 words), but with 100 at every budget recall@2000 fell 0.4 points: hence the
        scaling (docs/benchmarks.md, "Issue 13, fourth pass").
        """
        p = self.params
        return min(p.window_limit, max(p.window_floor, budget // max(1, p.window_words)))

    def _lead_notes(self, entry_hits: Sequence[Hit], found_notes: set[int]) -> dict[int, float]:
        """A note found by its title, path or a heading alone still gets an excerpt.

        Trigger: "# Zanzibar" over an unrelated body matches the entry search, but no block
        holds the word, so the note had no block to pack and came back with no source at all.
        Outcome: such a note lends its entry part to one block: the first under a heading
        that holds a query term, else its first block of knowledge (not a relation line).
        Which block that is takes two searches (`SearchIndex.lead_block`), so the note enters
        the ranking as `(note, _LEAD)` and the block is chosen only if packing reaches it
        (`_resolved`): at 10,000 notes, choosing it for every such note up front read 76
        stored blocks a query, a third of its time. Returns each such note's entry part
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
        chosen: list[BlockKey],
        texts: dict[BlockKey, IndexedBlock],
        records: dict[int, NoteRecord],
        note_score: dict[int, float],
        referrer: dict[int, int],
        priority: dict[BlockKey, float],
    ) -> list[Source]:
        """Notes of the packed blocks, in order of their best block."""
        by_note: dict[int, list[BlockKey]] = {}
        for key in chosen:
            by_note.setdefault(key[0], []).append(key)
        sources = []
        for nid, keys in by_note.items():
            rec = records.get(nid)
            if rec is None:
                continue
            excerpts = [
                Excerpt(
                    text=_excerpt(texts[k].text),
                    line=texts[k].line,
                    block_id=texts[k].block_id,
                    heading=texts[k].heading,
                    score=round(priority.get(k, 0.0), 6),
                )
                for k in keys  # best first: the first block is the best answer
            ]
            via = referrer.get(nid)
            source_rec = records.get(via) if via is not None else None
            sources.append(self._source(rec, excerpts, note_score.get(nid, 0.0), source_rec))
        return sources

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
        rp = self.params.ranking
        return {
            nid: lifecycle_value(by_path.get(r.path, NEUTRAL), rp) for nid, r in records.items()
        }

    def _related(
        self, ranked: list[tuple[int, float]], records: dict[int, NoteRecord], scope: str | None
    ) -> dict[int, list[int]]:
        """Resolved outgoing links of the notes relation expansion looks at."""
        resolver = self.index.link_resolver()
        related: dict[int, list[int]] = {}
        for nid, _ in ranked[: self.params.ranking.relation_sources]:
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


def _may_fuse(later: Future[DenseFound] | None) -> bool:
    """Whether the dense channel's answer may still be fused, so the lexical match's
    coverage (which sets the dense share) is worth measuring now.

    Trigger: the coverage, one search over the question's words, was measured for every
    question while the dense channel was on, also when it could give nothing to fuse: a
    `serve` still embedding the vault, a question in a language the model does not serve, a
    CLI query before any note was embedded. It was 13% of a tier-2 answer's time on 10,000
    generated notes with no vectors (py-spy, `bench/engine_speed.py`). Outcome: when the
    dense search has already come back with nothing that ranks, it is not measured; while the
    question is still being embedded it is, beside it, as before. Nothing else changes:
    `_channel_weights` reads the coverage only when the hits rank (`DenseFound.ranks`).
    """
    if later is None:
        return False
    return not later.done() or later.result().ranks


@lru_cache(maxsize=16_384)
def _title_words(title: str) -> frozenset[str]:
    """A title's index terms (stop words dropped, stemmed), as a question's are analysed.

    Kept for 16,384 titles, the stems interned (one string for every title holding it): with
    4,096 a vault of 10,000 notes overflowed it and a tier-2 answer spent 6% analysing titles
    again; 16,384 took it 11-14% faster there (`bench/engine_speed.py`), for about 8 MB once
    full (481 bytes a title there; docs/benchmarks.md).
    """
    return frozenset(map(sys.intern, analyze(title)))
