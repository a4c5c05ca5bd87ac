"""The query engine: caches (tiers 0-1), block retrieval (tier 2), routing, OOD.

Tiers 3 and 4 need an LLM; they are reached through the `Answerer` seam when one is
configured. Without one, a question that needs them gets the ranked excerpts and
`answer: null`, with a message saying so.
"""

from __future__ import annotations

import datetime as dt
import re
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Protocol, assert_never

from bridge.core.paths import normalise_folder
from bridge.core.text import normalise_query
from bridge.core.tiers import Evidence, Route, is_out_of_domain, route
from bridge.index.analysis import QueryTerms, query_terms
from bridge.index.graph_cache import GraphCache
from bridge.index.search_index import SearchIndex
from bridge.query.cache import CacheEntry, QueryCache
from bridge.query.dense import DenseSearch
from bridge.query.direct import DirectAnswer, direct_answer
from bridge.query.lifecycle import LifecycleProvider, StatusOnlyLifecycle
from bridge.query.models import NO_TERMS, QueryResult, Source
from bridge.query.params import EngineParams
from bridge.query.retrieval import Retrieval, Retriever
from bridge.query.uses import Credit, UseLedger
from bridge.semantic.languages import LanguageDetector

__all__ = ["Answerer", "EngineParams", "QueryEngine", "Retrieval", "normalise_scope"]

OOD_ANSWER = "Nothing in memory about this."
LLM_FAILED_PREFIX = "The LLM could not answer"
LLM_FAILED = LLM_FAILED_PREFIX + " ({error}); these are the ranked excerpts."
NO_LLM = (
    "No LLM is configured, so these are the ranked excerpts without a written answer "
    "(set VAULT_BRIDGE_LLM_MODEL to let tier {tier} answer)."
)
NO_MATCH = "Nothing in memory about this: no note holds any of the query's words."
NO_SENTENCE = (
    "No sentence of the first sources answers this in so many words: their excerpts are below."
)
NOTHING_CLOSE = (
    "Nothing in memory is close to this: no note holds most of its words, and none is near it "
    "in meaning."
)


class Answerer(Protocol):
    """Tiers 3 and 4, implemented over an LLM by the curation/LLM layer.

    `started` is the `time.monotonic()` at which the request arrived: the answer's time
    budget counts from it, so time spent before the model is asked is not free.
    """

    def one_call(self, query: str, sources: Sequence[Source], started: float) -> str: ...

    def agentic(self, query: str, sources: Sequence[Source], started: float) -> str: ...


# `@path/to/note.md` as the answer prompts ask the model to cite (DESIGN 2: relations).
_CITATION = re.compile(r"@([^\s@`()\[\]<>\"']+?\.md)\b")


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
        dense: DenseSearch | None = None,
        detector: LanguageDetector | None = None,
        graph: GraphCache | None = None,
    ) -> None:
        """`graph`: the bridge's link graph, shared with the API (`bridge.runtime`)."""
        self.index = index
        self.lifecycle = lifecycle or StatusOnlyLifecycle()
        self.params = params or EngineParams()
        self.answerer = answerer
        self.clock = clock
        self.cache = QueryCache(self.params.cache_size, self.params.fuzzy_threshold)
        self.retriever = Retriever(
            index, self.lifecycle, self.params, clock, dense, detector, graph
        )
        self.uses = UseLedger()

    # -- public ----------------------------------------------------------------------------

    def query(
        self,
        text: str,
        budget_words: int | None = None,
        limit: int = 10,
        scope: str | None = None,
        arrived: float | None = None,
    ) -> QueryResult:
        """Answer through the tiers: exact cache, fuzzy cache, direct, LLM (if configured).

        `scope` limits the search to one folder of the vault (`conversations/team-chat`).
        The notes the answer was taken from are credited as used (DESIGN 4), once each.
        `arrived` is the `time.monotonic()` at which the request arrived (default: now); an
        LLM answer's time budget counts from it.
        """
        start = time.perf_counter()
        arrived = time.monotonic() if arrived is None else arrived
        check_request(text, budget_words, limit)
        budget = budget_words or self.params.default_budget
        scope = self._known_scope(scope)
        normalised = normalise_query(text)
        options = (budget, limit, scope)
        generation = self.index.generation
        dense = self.retriever.dense
        basis = (generation, 0 if dense is None else dense.version)
        key = QueryCache.key(normalised, options)
        cached = self.cache.exact(key, basis)
        if cached is not None:
            return self._deliver(cached, _replayed(cached, text, 0), start)
        terms = query_terms(normalised)
        tokens = terms.token_set()
        cached = self.cache.fuzzy(
            tokens,
            QueryCache.options_prefix(options),
            basis,
            lambda entry: self._same_answer(terms, entry, scope),
        )
        if cached is not None:
            return self._deliver(cached, _replayed(cached, text, 1), start)
        result, evidence = self._answer(text, terms, budget, limit, scope, generation, arrived)
        if not (result.message or "").startswith(LLM_FAILED_PREFIX):
            # a failure may succeed next time
            self.cache.put(key, tokens, basis, result, evidence)
        return self._deliver(result, {}, start)

    def _same_answer(self, terms: QueryTerms, entry: CacheEntry, scope: str | None) -> bool:
        """May this query take the cached answer (tier 1)? Only if it would get the same one.

        Trigger: Jaccard >= 0.6 also holds for "when did Caroline go to the support group" and
        the same question about Melanie, or for Gina's and Jon's favourite dance. Why: any
        differing word the vault holds (a name, a topic word) changes what retrieval finds.
        Outcome: every differing word must match no note (a typo, a filler word; stop and
        question words are never query terms), so the searches find exactly the same hits;
        and the out-of-domain rule, which counts unknown words, must route both the same way.
        """
        differing = terms.token_set() ^ entry.tokens
        if any(self.index.doc_frequency(token) > 0 for token in differing):
            return False
        if entry.evidence is None:
            return False
        weights = self.retriever.weights_for(entry.evidence.dense_ranked)
        mine = self.retriever.evidence.for_words(terms, entry.evidence, weights)
        return route(mine, self.params.tiers) == route(entry.evidence, self.params.tiers)

    def search(
        self,
        text: str,
        budget_words: int | None = None,
        limit: int = 10,
        scope: str | None = None,
    ) -> QueryResult:
        """Ranked sources with excerpts, no caches: "show me notes". Nothing when neither
        channel has anything close (`is_out_of_domain`): a made-up word finds no notes.

        Nothing is credited: a list of notes is not a use. Opening one of them with the
        result's `query_id` is (`use`).
        """
        start = time.perf_counter()
        check_request(text, budget_words, limit)
        generation = self.index.generation
        terms = query_terms(normalise_query(text))
        budget = budget_words or self.params.default_budget
        found = self.retrieve(terms, budget, limit, self._known_scope(scope), text)
        far = is_out_of_domain(found.evidence, self.params.tiers)
        message = NO_TERMS if terms.empty else NOTHING_CLOSE if far else None
        result = QueryResult(
            query=text,
            answer=None,
            tier=2,
            latency_ms=0.0,
            ood=far,
            sources=[] if far else found.sources,
            generation=generation,
            relevance=found.evidence.top_rel,
            message=message,
            words=0 if far else found.words,
        )
        return self._deliver(result, {}, start)

    def _known_scope(self, scope: str | None) -> str | None:
        """`normalise_scope`, and a `ValueError` for a folder that holds no indexed note.

        `--scope nosuch` (a typo) would search an empty set and answer "tier 4, no sources" as
        if the memory were empty: a usage error names it instead.
        """
        folder = normalise_scope(scope)
        if folder is not None and self.index.note_count(folder) == 0:
            raise ValueError(f"no notes in a folder `{folder}` of the vault (scope)")
        return folder

    def use(self, query_id: str, path: str) -> Credit:
        """Credit `path` as used by the answer `query_id` (opened from it, marked helpful).

        At most one credit per note per query; the note must be one of the answer's sources.
        """
        outcome = self.uses.credit(query_id, path)
        if outcome is Credit.CREDITED:
            self._record_use([path], {})
        return outcome

    def feedback(self, query_id: str, path: str, helpful: bool) -> Credit | None:
        """A client's verdict on one source of an answer: helpful is a use, credited once.

        Not helpful gives no credit (and takes none back: the note may still have been the
        answer); it returns None once the query id and the note check out.
        """
        if helpful:
            return self.use(query_id, path)
        offered = self.uses.offered(query_id)
        if offered is None:
            return Credit.UNKNOWN_QUERY
        return None if path in offered else Credit.NOT_OFFERED

    # -- delivering ------------------------------------------------------------------------

    def _deliver(self, result: QueryResult, update: dict[str, object], start: float) -> QueryResult:
        """The answer as the caller gets it: a new query id, the notes it used credited."""
        query_id = uuid.uuid4().hex
        out = result.model_copy(update={**update, "query_id": query_id, "latency_ms": _ms(start)})
        self.uses.issue(query_id, [s.path for s in out.sources])
        credited = [
            path
            for path in out.answered_from
            if self.uses.credit(query_id, path, offered_only=False) is Credit.CREDITED
        ]
        if credited:
            self._record_use(credited, {s.path: s.status for s in out.sources})
        return out

    def _record_use(self, paths: Sequence[str], known: dict[str, str | None]) -> None:
        statuses: dict[str, str | None] = {}
        for path in paths:
            if path in known:
                statuses[path] = known[path]
            else:
                stamp = self.index.stamp(path)
                rec = self.index.records([stamp.nid]).get(stamp.nid) if stamp else None
                statuses[path] = rec.status if rec is not None else None
        self.lifecycle.record_access(statuses, self.clock())

    # -- tiers -----------------------------------------------------------------------------

    def _answer(
        self,
        text: str,
        terms: QueryTerms,
        budget: int,
        limit: int,
        scope: str | None,
        generation: int,
        arrived: float,
    ) -> tuple[QueryResult, Evidence]:
        found = self.retrieve(terms, budget, limit, scope, text)
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
                direct = self._direct_answer(text, terms, found)
                result = skeleton.model_copy(
                    update={
                        "answer": direct.text if direct else None,
                        "answered_from": direct.cited if direct else [],
                        "message": None if direct else NO_SENTENCE,
                        **with_sources,
                    }
                )
            case Route.ONE_CALL | Route.AGENTIC:
                tier = 3 if decision is Route.ONE_CALL else 4
                if self.answerer is None and not found.sources:
                    # Trigger: no note holds any query word and no model could look further.
                    # Why: "these are the ranked excerpts" over an empty list read as a fault.
                    update: dict[str, object] = {"message": NO_MATCH}
                else:
                    update = self._llm_answer(tier, text, terms, limit, scope, arrived)
                result = skeleton.model_copy(update={**with_sources, **update, "tier": tier})
            case _:
                assert_never(decision)
        return result, found.evidence

    def _direct_answer(self, text: str, terms: QueryTerms, found: Retrieval) -> DirectAnswer | None:
        """Tier 2: the sentences of the first source that answer, chosen by words and meaning,
        in reading order, cited."""
        dense, vector = self.retriever.dense, found.question

        def meaning(nid: int) -> Sequence[tuple[int, int, float]]:
            if dense is None or vector is None:
                return []
            return dense.passage_cosines(vector, nid)

        return direct_answer(
            self.index, text, terms, found.sources, self.params.answer_words, meaning
        )

    def _llm_answer(
        self,
        tier: int,
        text: str,
        terms: QueryTerms,
        limit: int,
        scope: str | None,
        arrived: float,
    ) -> dict[str, object]:
        """Tier 3 or 4 over a larger prefetch than the caller's budget; on failure, say why.

        Trigger: no model is configured, or it errs or times out. Why: the excerpts are still
        useful, and the caller must know that the question needed a model (the tier says
        which) and why it got none. Outcome: `answer: null` with the reason; a failure is not
        cached.
        """
        if self.answerer is None:
            return {"message": NO_LLM.format(tier=tier)}
        context = self.retrieve(terms, self.params.llm_budget_words, max(limit, 20), scope, text)
        try:
            if tier == 3:
                answer = self.answerer.one_call(text, context.sources, arrived)
            else:
                answer = self.answerer.agentic(text, context.sources, arrived)
        except Exception as exc:  # any model failure: degrade to the excerpts
            return {"message": LLM_FAILED.format(error=exc)}
        return {"answer": answer, "answered_from": self._cited(answer)}

    def _cited(self, answer: str) -> list[str]:
        """The indexed notes an LLM answer cites as `@path.md`, in order, once each."""
        cited = (m.group(1) for m in _CITATION.finditer(answer))
        return [p for p in dict.fromkeys(cited) if self.index.stamp(p) is not None]

    # -- retrieval -------------------------------------------------------------------------

    def retrieve(
        self,
        terms: QueryTerms,
        budget: int,
        limit: int,
        scope: str | None = None,
        text: str | None = None,
    ) -> Retrieval:
        """Ranked sources with excerpts under `budget` words (see `Retriever.retrieve`);
        with `text`, the question as asked, the dense channel searches by meaning too."""
        return self.retriever.retrieve(terms, budget, limit, scope, text)


MAX_QUERY_CHARS = 100_000
BUDGET_RANGE = (10, 100_000)
LIMIT_RANGE = (1, 1000)


def check_request(text: str, budget_words: int | None, limit: int) -> None:
    """The same bounds for every way in (HTTP, MCP, CLI, Python): `ValueError` saying which.

    The HTTP API's schema had them; the MCP tools and the CLI passed a negative budget,
    `limit=-1` or a 200,000-character query straight through.
    """
    if len(text) > MAX_QUERY_CHARS:
        raise ValueError(
            f"the query is {len(text):,} characters; at most {MAX_QUERY_CHARS:,} are accepted"
        )
    low, high = BUDGET_RANGE
    if budget_words is not None and not low <= budget_words <= high:
        raise ValueError(f"budget_words must be between {low} and {high:,}, not {budget_words}")
    low, high = LIMIT_RANGE
    if not low <= limit <= high:
        raise ValueError(f"limit must be between {low} and {high}, not {limit}")


def normalise_scope(scope: str | None) -> str | None:
    """A folder scope as indexed (`a/b`), or None for the whole vault.

    Checked like every folder a caller names (`normalise_folder`); `UnsafePathError` is a
    `ValueError` saying what is wrong.
    """
    if scope is None or scope.strip() == ".":
        return None
    return normalise_folder(scope) or None


def _replayed(cached: QueryResult, text: str, tier: int) -> dict[str, object]:
    """What a cache hit changes in the cached answer: the query as asked, the tier, and which
    question the answer was computed for."""
    return {"query": text, "tier": tier, "reused_from": cached.reused_from or cached.query}


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
