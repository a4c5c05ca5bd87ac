"""What the tier and out-of-domain decisions know about a question (`Evidence`).

Read from the searches' hits and, where a decision hangs on them, a few more lookups: every
term in one note, words the vault does not hold, the share of the question's rare words one
top note holds, and whether the question names a transcript speaker (DESIGN 5, docs/query.md
"Out of domain").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bridge.core.ranking import normalised_relevance
from bridge.core.tiers import Evidence
from bridge.index.analysis import QueryTerms, analyze
from bridge.index.search_index import Hit, SearchIndex
from bridge.query.dense import DenseFound
from bridge.query.params import EngineParams


class EvidenceReader:
    """`Evidence` of a question over one index. Thread-safe (its one cache is replaced whole)."""

    def __init__(self, index: SearchIndex, params: EngineParams) -> None:
        self.index = index
        self.params = params
        self._speaker_terms: tuple[frozenset[str], dict[str, frozenset[str]]] | None = None

    def names_any_speaker(self, terms: QueryTerms) -> bool:
        """True when the question names at least one transcript speaker of the vault."""
        self.named_speaker(terms)  # fills the speakers' terms
        if self._speaker_terms is None:
            return False
        words = set(terms.words)
        return any(toks and toks <= words for toks in self._speaker_terms[1].values())

    def named_speaker(self, terms: QueryTerms) -> str | None:
        """The one transcript speaker the query names, if exactly one."""
        speakers = self.index.speakers()
        if not speakers:
            return None
        if self._speaker_terms is None or self._speaker_terms[0] != speakers:
            self._speaker_terms = (speakers, {s: frozenset(analyze(s)) for s in speakers})
        words = set(terms.words)
        named = [s for s, toks in self._speaker_terms[1].items() if toks and toks <= words]
        return named[0] if len(named) == 1 else None

    def evidence(
        self,
        terms: QueryTerms,
        entry_hits: Sequence[Hit],
        scope: str | None,
        dense: DenseFound | None = None,
    ) -> Evidence:
        scale = self.params.ranking.relevance_scale
        scores = [normalised_relevance(h.score, scale) for h in entry_hits]
        top = scores[0] if scores else 0.0
        second = scores[1] if len(scores) > 1 else 0.0
        # A scoped query judges "out of domain" within its folder, like its ranking does.
        entries = self.index.note_count(scope)
        dense_top = dense.top if dense is not None and dense.hits else None
        line = self._line(dense)
        all_found, unknown = self._ood_inputs(terms, top, entries, scope, dense_top, line)
        coverage, speaker = 1.0, False
        low = dense_top is not None and line is not None and dense_top < line
        if low and not all_found:  # the other ways out of "nothing in memory", on need
            coverage = self.index.term_coverage(terms, [h.nid for h in entry_hits[:20]])
            speaker = self.names_any_speaker(terms)
        return Evidence(
            top_rel=top,
            second_rel=second,
            hits=len(scores),
            entries_in_vault=entries,
            all_terms_found=all_found,
            unknown_long_terms=unknown,
            long_terms=len(terms.long_words),
            has_terms=not terms.empty,
            dense_top=dense_top,
            dense_line=line if dense_top is not None else None,
            term_coverage=coverage,
            names_speaker=speaker,
        )

    def evidence_for(self, terms: QueryTerms, base: Evidence, scope: str | None) -> Evidence:
        """`base`, another query's evidence, with this query's out-of-domain inputs.

        For two queries whose known words are the same (tier 1), the searches find the same
        hits; only what the OOD rule counts (unknown words, all words found) can differ.
        """
        all_found, unknown = self._ood_inputs(
            terms, base.top_rel, base.entries_in_vault, scope, base.dense_top, base.dense_line
        )
        return replace(
            base,
            all_terms_found=all_found,
            unknown_long_terms=unknown,
            long_terms=len(terms.long_words),
            has_terms=not terms.empty,
        )

    def _line(self, dense: DenseFound | None) -> float | None:
        """The off-topic line: the setting's when fixed, else the vault's measured one; none
        while the dense channel has not embedded every note yet (`DenseFound.covered`)."""
        if dense is not None and not dense.covered:
            return None
        fixed = self.params.tiers.ood_dense
        if fixed is not None:
            return fixed
        return None if dense is None else dense.line

    def _ood_inputs(
        self,
        terms: QueryTerms,
        top: float,
        entries: int,
        scope: str | None,
        dense_top: float | None = None,
        line: float | None = None,
    ) -> tuple[bool, int]:
        """(some note has every term, long words unknown to the vault), where they matter."""
        tp = self.params.tiers
        if terms.empty:
            return True, 0
        if dense_top is not None and line is not None:
            # The dense channel decides (`is_out_of_domain`); every term in one note can
            # still overrule a low similarity (an error code, a name the model cannot read).
            if dense_top >= line:
                return True, 0
            return self.index.all_terms_match(terms, scope), 0
        # The extra lookups only matter in the band where they can change the decision.
        band = tp.ood_rel <= top < tp.ood_unknown_rel
        if entries < tp.ood_min_entries or not band:
            return True, 0
        all_found = self.index.all_terms_match(terms, scope)
        unknown = sum(1 for t in terms.long_words if not self.index.term_exists(t))
        return all_found, unknown
