"""The query engine: caches (tiers 0-1), block retrieval (tier 2), routing, OOD.

Tiers 3 and 4 need an LLM; they are reached through the `Answerer` seam when one is
configured. Without one, a question that needs them gets the ranked excerpts and
`answer: null`, with a message saying so.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, assert_never

from bridge.core.markdown import excerpt_text
from bridge.core.ranking import (
    NEUTRAL,
    BlockKey,
    LifecycleFacts,
    RankingParams,
    above_cutoff,
    block_scores,
    expand_relations,
    fused_score,
    normalised_relevance,
    pack,
)
from bridge.core.relations import LinkResolver
from bridge.core.text import normalise_query, word_count
from bridge.core.tiers import Evidence, Route, TierParams, route
from bridge.index.analysis import QueryTerms, analyze, query_terms
from bridge.index.documents import IndexedBlock
from bridge.index.manifest import NoteRecord
from bridge.index.schema import FLAG_METADATA
from bridge.index.search_index import SearchIndex
from bridge.query.cache import QueryCache
from bridge.query.lifecycle import LifecycleProvider, NoteRef, StatusOnlyLifecycle
from bridge.query.models import Excerpt, QueryResult, Source

OOD_ANSWER = "Nothing in memory about this."
LLM_FAILED_PREFIX = "The LLM could not answer"
LLM_FAILED = LLM_FAILED_PREFIX + " ({error}); these are the ranked excerpts."
NO_TERMS = "The query has no searchable words (only common words, punctuation or nothing)."
NO_LLM = (
    "No LLM is configured, so these are the ranked excerpts without a written answer "
    "(set VAULT_BRIDGE_LLM_MODEL to let tier {tier} answer)."
)


class Answerer(Protocol):
    """Tiers 3 and 4, implemented over an LLM by the curation/LLM layer."""

    def one_call(self, query: str, sources: Sequence[Source]) -> str: ...

    def agentic(self, query: str, sources: Sequence[Source]) -> str: ...


@dataclass(frozen=True)
class EngineParams:
    """Search sizes and defaults; the weights and thresholds live in their own params."""

    entry_limit: int = 100
    block_limit: int = 400
    window_limit: int = 400
    default_budget: int = 500
    llm_budget_words: int = 1500
    answer_words: int = 150
    cache_size: int = 1024
    fuzzy_threshold: float = 0.6
    ranking: RankingParams = field(default_factory=RankingParams)
    tiers: TierParams = field(default_factory=TierParams)


@dataclass(frozen=True)
class Retrieval:
    """Ranked sources with their excerpts, and the evidence the tier decision needs."""

    sources: list[Source]
    evidence: Evidence
    words: int


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class QueryEngine:
    """Answers queries over one index. Thread-safe for concurrent queries."""

    def __init__(
        self,
        index: SearchIndex,
        lifecycle: LifecycleProvider | None = None,
        params: EngineParams | None = None,
        answerer: Answerer | None = None,
        clock: Callable[[], dt.datetime] = _utcnow,
    ) -> None:
        self.index = index
        self.lifecycle = lifecycle or StatusOnlyLifecycle()
        self.params = params or EngineParams()
        self.answerer = answerer
        self.clock = clock
        self.cache = QueryCache(self.params.cache_size, self.params.fuzzy_threshold)
        self._resolver: tuple[int, LinkResolver] | None = None
        self._speaker_terms: tuple[frozenset[str], dict[str, frozenset[str]]] | None = None

    # -- public ----------------------------------------------------------------------------

    def query(
        self,
        text: str,
        budget_words: int | None = None,
        limit: int = 10,
        scope: str | None = None,
    ) -> QueryResult:
        """Answer through the tiers: exact cache, fuzzy cache, direct, LLM (if configured).

        `scope` limits the search to one folder of the vault (`conversations/team-chat`).
        """
        start = time.perf_counter()
        budget = budget_words or self.params.default_budget
        scope = normalise_scope(scope)
        normalised = normalise_query(text)
        options = (budget, limit, scope)
        generation = self.index.generation
        key = QueryCache.key(normalised, options)
        cached = self.cache.exact(key, generation)
        if cached is not None:
            return self._replay(cached, text, 0, start)
        terms = query_terms(normalised)
        tokens = terms.token_set()
        cached = self.cache.fuzzy(tokens, QueryCache.options_prefix(options), generation)
        if cached is not None:
            return self._replay(cached, text, 1, start)
        result = self._answer(text, terms, budget, limit, scope, generation, start)
        if not (result.message or "").startswith(LLM_FAILED_PREFIX):
            self.cache.put(key, tokens, generation, result)  # a failure may succeed next time
        self._record_access(result)
        return result

    def search(
        self,
        text: str,
        budget_words: int | None = None,
        limit: int = 10,
        scope: str | None = None,
    ) -> QueryResult:
        """Ranked sources with excerpts, no caches and no out-of-domain cut: "show me notes"."""
        start = time.perf_counter()
        generation = self.index.generation
        terms = query_terms(normalise_query(text))
        budget = budget_words or self.params.default_budget
        found = self.retrieve(terms, budget, limit, normalise_scope(scope))
        result = QueryResult(
            query=text,
            answer=None,
            tier=2,
            latency_ms=0.0,
            ood=False,
            sources=found.sources,
            generation=generation,
            relevance=found.evidence.top_rel,
            message=None if not terms.empty else NO_TERMS,
            words=found.words,
        )
        self._record_access(result)
        return result.model_copy(update={"latency_ms": _ms(start)})

    # -- tiers -----------------------------------------------------------------------------

    def _replay(self, cached: QueryResult, text: str, tier: int, start: float) -> QueryResult:
        self._record_access(cached)
        return cached.model_copy(update={"query": text, "tier": tier, "latency_ms": _ms(start)})

    def _answer(
        self,
        text: str,
        terms: QueryTerms,
        budget: int,
        limit: int,
        scope: str | None,
        generation: int,
        start: float,
    ) -> QueryResult:
        found = self.retrieve(terms, budget, limit, scope)
        decision = route(found.evidence, self.params.tiers)
        skeleton = QueryResult(
            query=text,
            answer=None,
            tier=2,
            latency_ms=0.0,
            ood=False,
            generation=generation,
            relevance=found.evidence.top_rel,
        )
        with_sources = {"sources": found.sources, "words": found.words}
        match decision:
            case Route.NOTHING:
                result = skeleton.model_copy(update={"message": NO_TERMS})
            case Route.OOD:
                result = skeleton.model_copy(update={"ood": True, "answer": OOD_ANSWER})
            case Route.DIRECT:
                answer = self._direct_answer(found.sources)
                result = skeleton.model_copy(update={"answer": answer, **with_sources})
            case Route.ONE_CALL | Route.AGENTIC:
                tier = 3 if decision is Route.ONE_CALL else 4
                update = self._llm_answer(tier, text, terms, limit, scope)
                result = skeleton.model_copy(update={**with_sources, **update})
            case _:
                assert_never(decision)
        return result.model_copy(update={"latency_ms": _ms(start)})

    def _direct_answer(self, sources: Sequence[Source]) -> str | None:
        """Tier 2: the best blocks of the top note, a short read (`answer_words`), best first."""
        if not sources or not sources[0].blocks:
            return None
        chosen: list[str] = []
        used = 0
        for block in sources[0].blocks:
            words = word_count(block.text)
            if chosen and used + words > self.params.answer_words:
                break
            chosen.append(block.text)
            used += words
        return "\n\n".join(chosen)

    def _llm_answer(
        self, tier: int, text: str, terms: QueryTerms, limit: int, scope: str | None
    ) -> dict[str, object]:
        """Tier 3 or 4 over a larger prefetch than the caller's budget; on failure, say why.

        Trigger: the model errs or times out. Why: the excerpts are still useful and the
        question may succeed later. Outcome: `answer: null` with the reason, not cached.
        """
        if self.answerer is None:
            return {"message": NO_LLM.format(tier=tier)}
        context = self.retrieve(terms, self.params.llm_budget_words, max(limit, 20), scope)
        try:
            if tier == 3:
                answer = self.answerer.one_call(text, context.sources)
            else:
                answer = self.answerer.agentic(text, context.sources)
        except Exception as exc:  # any model failure: degrade to the excerpts
            return {"message": LLM_FAILED.format(error=exc)}
        return {"answer": answer, "tier": tier}

    def _record_access(self, result: QueryResult) -> None:
        if result.sources:
            notes = {s.path: s.status for s in result.sources}
            self.lifecycle.record_access(notes, self.clock())

    # -- retrieval -------------------------------------------------------------------------

    def retrieve(
        self, terms: QueryTerms, budget: int, limit: int, scope: str | None = None
    ) -> Retrieval:
        """Block ranking, lifecycle fusion, relation expansion, cut-off and budget packing."""
        p, rp = self.params, self.params.ranking
        if terms.empty:
            return Retrieval([], self._evidence(terms, [], scope), 0)
        entry_hits = self.index.search_entries(terms, p.entry_limit, scope)
        block_hits = self.index.search_blocks(terms, p.block_limit, scope=scope)
        window_hits = self.index.search_windows(terms, p.window_limit, scope)
        entries = {h.nid: h.score for h in entry_hits}
        blocks = {(h.nid, h.ord): h.score for h in block_hits}
        windows = {(h.nid, h.ord): h.score for h in window_hits}
        speaker_blocks: set[BlockKey] = set()
        speaker = self._named_speaker(terms)
        if speaker is not None:
            speaker_blocks = {
                (h.nid, h.ord)
                for h in self.index.search_blocks(terms, p.block_limit, speaker, scope)
            }
        relation_blocks = {(h.nid, h.ord) for h in block_hits if h.flags & FLAG_METADATA}
        combined = block_scores(blocks, windows, entries, rp, speaker_blocks, relation_blocks)

        # Note-level relevance: the entry's BM25, else its best block's.
        raw: dict[int, float] = dict(entries)
        for (nid, _), score in blocks.items():
            raw.setdefault(nid, 0.0)
            if nid not in entries:
                raw[nid] = max(raw[nid], score)
        for nid, _ in combined:
            raw.setdefault(nid, 0.0)
        records = self.index.records(raw)
        facts = self._facts(records)
        note_score = {
            nid: fused_score(normalised_relevance(s), facts.get(nid, NEUTRAL), rp)
            for nid, s in raw.items()
            if nid in records
        }
        # Cut-off on direct hits, then one hop along relations from the best of them.
        kept = set(above_cutoff(note_score, rp.cutoff))
        ranked = sorted(((n, note_score[n]) for n in kept), key=lambda kv: -kv[1])
        referrer: dict[int, int] = {}
        for joined in expand_relations(ranked, self._related(ranked, records, scope), rp):
            note_score[joined.target] = max(note_score.get(joined.target, 0.0), joined.score)
            referrer[joined.target] = joined.referrer
            kept.add(joined.target)
        missing = [nid for nid in referrer if nid not in records]
        if missing:
            records.update(self.index.records(missing))

        # Block priority: the fused score with the block's own relevance (half for blocks of
        # notes that only joined through a relation).
        top_block = max(combined.values(), default=0.0)
        priority: dict[BlockKey, float] = {}
        for key, score in combined.items():
            if key[0] in kept and top_block > 0:
                value = fused_score(score / top_block, facts.get(key[0], NEUTRAL), rp)
                priority[key] = value * (rp.relation_factor if key[0] in referrer else 1.0)
        order = sorted(priority, key=lambda k: -priority[k])
        chosen, texts = self._pack(order, budget)
        sources = self._sources(chosen, texts, records, note_score, referrer)
        listed = {s.path for s in sources}
        for nid in sorted(referrer, key=lambda n: -note_score[n]):
            rec = records.get(nid)
            if rec is not None and rec.path not in listed:  # see-also, no excerpt words
                sources.append(self._source(rec, [], note_score[nid], records.get(referrer[nid])))
        sources = sources[:limit]
        words = sum(word_count(b.text) for s in sources for b in s.blocks)
        return Retrieval(sources, self._evidence(terms, entry_hits, scope), words)

    def _pack(
        self, order: list[BlockKey], budget: int
    ) -> tuple[list[BlockKey], dict[BlockKey, IndexedBlock]]:
        """Fetch block texts in priority order, a chunk at a time, until the budget is full."""
        texts: dict[BlockKey, IndexedBlock] = {}
        words: dict[BlockKey, int] = {}
        chosen: list[BlockKey] = []
        used = 0
        for start in range(0, len(order), 64):
            chunk = order[start : start + 64]
            texts.update(self.index.blocks(chunk))
            for key in chunk:
                if key in texts:
                    words[key] = word_count(excerpt_text(texts[key].text))
            picked = pack(chunk, words, budget - used)
            chosen += picked
            used += sum(words[k] for k in picked)
            if used >= budget or budget - used < 3:
                break
        return chosen, texts

    def _sources(
        self,
        chosen: list[BlockKey],
        texts: dict[BlockKey, IndexedBlock],
        records: dict[int, NoteRecord],
        note_score: dict[int, float],
        referrer: dict[int, int],
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
                    text=excerpt_text(texts[k].text),
                    line=texts[k].line,
                    block_id=texts[k].block_id,
                    heading=texts[k].heading,
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

    def _facts(self, records: dict[int, NoteRecord]) -> dict[int, LifecycleFacts]:
        refs = [NoteRef(r.path, r.status, r.updated) for r in records.values()]
        by_path = self.lifecycle.facts(refs, self.clock())
        return {nid: by_path[r.path] for nid, r in records.items() if r.path in by_path}

    def _related(
        self, ranked: list[tuple[int, float]], records: dict[int, NoteRecord], scope: str | None
    ) -> dict[int, list[int]]:
        """Resolved outgoing links of the notes relation expansion looks at."""
        resolver = self._link_resolver()
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

    def _link_resolver(self) -> LinkResolver:
        version = self.index.paths_version
        if self._resolver is None or self._resolver[0] != version:
            self._resolver = (version, LinkResolver(self.index.paths()))
        return self._resolver[1]

    def _named_speaker(self, terms: QueryTerms) -> str | None:
        """The one transcript speaker the query names, if exactly one."""
        speakers = self.index.speakers()
        if not speakers:
            return None
        if self._speaker_terms is None or self._speaker_terms[0] != speakers:
            self._speaker_terms = (speakers, {s: frozenset(analyze(s)) for s in speakers})
        words = set(terms.words)
        named = [s for s, toks in self._speaker_terms[1].items() if toks and toks <= words]
        return named[0] if len(named) == 1 else None

    def _evidence(
        self, terms: QueryTerms, entry_hits: Sequence[object], scope: str | None
    ) -> Evidence:
        scores = [normalised_relevance(getattr(h, "score", 0.0)) for h in entry_hits]
        top = scores[0] if scores else 0.0
        second = scores[1] if len(scores) > 1 else 0.0
        tp = self.params.tiers
        entries = self.index.note_count()
        all_found, unknown = True, 0
        # The extra lookups only matter in the band where they can change the decision.
        band = tp.ood_rel <= top < tp.ood_unknown_rel
        if not terms.empty and entries >= tp.ood_min_entries and band:
            all_found = self.index.all_terms_match(terms, scope)
            unknown = sum(1 for t in terms.long_words if not self.index.term_exists(t))
        return Evidence(
            top_rel=top,
            second_rel=second,
            hits=len(scores),
            entries_in_vault=entries,
            all_terms_found=all_found,
            unknown_long_terms=unknown,
            long_terms=len(terms.long_words),
            has_terms=not terms.empty,
        )


def normalise_scope(scope: str | None) -> str | None:
    """A folder scope as indexed (`a/b`), or None for the whole vault."""
    if scope is None:
        return None
    cleaned = scope.strip().strip("/")
    if not cleaned or cleaned == ".":
        return None
    if ".." in cleaned.split("/") or "\\" in cleaned:
        raise ValueError(f"scope `{scope}` must be a folder inside the vault")
    return cleaned


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
