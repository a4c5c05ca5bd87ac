"""The query engine: caches (tiers 0-1), block retrieval (tier 2), routing, OOD.

Tiers 3 and 4 need an LLM; they are reached through the `Answerer` seam when one is
configured. Without one, a question that needs them gets the ranked excerpts and
`answer: null`, with a message saying so.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from typing import Protocol, assert_never

from bridge.core.text import normalise_query, word_count
from bridge.core.tiers import Route, route
from bridge.index.analysis import QueryTerms, query_terms
from bridge.index.search_index import SearchIndex
from bridge.query.cache import QueryCache
from bridge.query.lifecycle import LifecycleProvider, StatusOnlyLifecycle
from bridge.query.models import QueryResult, Source
from bridge.query.params import EngineParams
from bridge.query.retrieval import Retrieval, Retriever

__all__ = ["Answerer", "EngineParams", "QueryEngine", "Retrieval", "normalise_scope"]

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
        self.retriever = Retriever(index, self.lifecycle, self.params, clock)

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
        cached = self.cache.fuzzy(
            tokens, QueryCache.options_prefix(options), generation, self._interchangeable
        )
        if cached is not None:
            return self._replay(cached, text, 1, start)
        result = self._answer(text, terms, budget, limit, scope, generation, start)
        if not (result.message or "").startswith(LLM_FAILED_PREFIX):
            self.cache.put(key, tokens, generation, result)  # a failure may succeed next time
        self._record_access(result)
        return result

    def _interchangeable(self, differing: frozenset[str]) -> bool:
        """May two queries that differ by these words share an answer (tier 1)?

        Trigger: Jaccard >= 0.6 also holds for "when did Caroline go to the support group" and
        the same question about Melanie. Why: a differing word the vault knows and that picks
        out notes changes what retrieval finds; on LoCoMo such near-misses cost 0.6 points of
        recall. Outcome: the words that differ must be unknown to the vault (a typo, a
        paraphrase) or common to at least `fuzzy_common_share` of its notes.
        """
        notes = max(1, self.index.note_count())
        for token in differing:
            frequency = self.index.doc_frequency(token)
            if 0 < frequency < self.params.fuzzy_common_share * notes:
                return False
        return True

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
        """Ranked sources with excerpts under `budget` words (see `Retriever.retrieve`)."""
        return self.retriever.retrieve(terms, budget, limit, scope)


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
