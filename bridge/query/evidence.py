"""What the tier and out-of-domain decisions know about a question (`Evidence`).

The ranker's confidence that the first source answers, how much of the question's words one
note holds, and the dense channel's best cosine against the vault's off-topic line (DESIGN 5,
docs/query.md "Confidence and out of domain"). Also the transcript speaker a question names,
which the block rule boosts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from bridge.core.ranker import CONFIDENCE, RankerWeights, confidence, on_topic
from bridge.core.tiers import Evidence
from bridge.index.analysis import QueryTerms, analyze
from bridge.index.search_index import SearchIndex
from bridge.query.dense import DenseFound
from bridge.query.params import EngineParams


class EvidenceReader:
    """`Evidence` of a question over one index. Thread-safe (its one cache is replaced whole)."""

    def __init__(self, index: SearchIndex, params: EngineParams) -> None:
        self.index = index
        self.params = params
        self._speaker_terms: tuple[frozenset[str], dict[str, frozenset[str]]] | None = None

    def names_held(self, terms: QueryTerms, text: str) -> bool:
        """The question names something a note holds: a word written as a name ("Maya",
        "JWT", "Dataview": a capital past the sentence's first word) that a note holds, or a
        transcript speaker of the vault. "A question is never refused when a note holds its
        rare words": names are the rare words a person writes as such."""
        if self.names_any_speaker(terms):
            return True
        for name in _names(text):
            if any(self.index.doc_frequency(t) > 0 for t in analyze(name)):
                return True
        return False

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

    @staticmethod
    def closeness(dense: DenseFound | None) -> float:
        """How far the best passage is above unrelated questions' in this vault
        (`Probes.z`); 0 while the dense channel has not embedded every note yet
        (`DenseFound.covered`), or gives nothing."""
        if dense is None or not dense.covered or not dense.hits or dense.closeness is None:
            return 0.0
        return dense.closeness

    def words_weight(self, terms: QueryTerms) -> tuple[float, float]:
        """(the question's words' summed rarity, the part of it in words no note holds)."""
        words = [*terms.words, *terms.bigrams]
        weights = self.index.word_weights(words)
        unknown = sum(w for word, w in zip(words, weights, strict=True) if not self._known(word))
        return sum(weights), unknown

    def _known(self, word: str) -> bool:
        return self.index.doc_frequency(word) > 0

    def for_words(self, terms: QueryTerms, base: Evidence, weights: RankerWeights) -> Evidence:
        """`base`, another question's evidence, decided again for this question's words.

        Tier 1 reuses an answer only when the words that differ match no note, so the searches
        find the same notes: what changes is how much of the question they hold. The shares
        are rescaled to this question's words (a word no note holds weighs most), and the
        confidence is worked out again from them: "dunning emails lowdown" and "dunning
        emails" retrieve the same notes, but one note holds all of the second.
        """
        total, unknown = self.words_weight(terms)
        if total <= 0 or base.words_weight <= 0:
            return replace(base, has_terms=not terms.empty)
        scale = base.words_weight / total
        inputs = dict(zip(CONFIDENCE, base.inputs, strict=True)) if base.inputs else {}
        if inputs:
            inputs["coverage"] = min(1.0, inputs["coverage"] * scale)
            inputs["held"] = min(1.0, inputs["held"] * scale)
            inputs["unknown"] = unknown / total
        held = min(1.0, base.held * scale)
        topic = {
            "held": held,
            "closeness": inputs.get("closeness", 0.0),
            "unknown": unknown / total,
        }
        return replace(
            base,
            has_terms=not terms.empty,
            held=held,
            on_topic=on_topic(topic, weights),
            confidence=confidence(inputs, weights) if inputs else base.confidence,
            inputs=tuple(inputs[n] for n in CONFIDENCE) if inputs else base.inputs,
            words_weight=total,
        )


def confidence_inputs(
    first: Mapping[str, float],
    score: float,
    second: float | None,
    unknown: float,
    held: float,
    closeness: float,
) -> dict[str, float]:
    """What the confidence reads (`CONFIDENCE`): the first note's features, its score, how
    far it leads the second note (5 when it is alone), the unknown words' share, the most of
    the question's words one candidate holds, and the best passage's closeness."""
    return {
        "score": score,
        "lead": score - second if second is not None else 5.0,
        "coverage": first.get("coverage", 0.0),
        "dense_abs": first.get("dense_abs", 0.0),
        "entry_abs": first.get("entry_abs", 0.0),
        "unknown": unknown,
        "held": held,
        "closeness": closeness,
    }


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w-]*[A-Za-z0-9]|[A-Z]{2,}[\w-]*)")


def _names(text: str) -> list[str]:
    """Words of `text` written as names: a capital, not opening a sentence (and not "I")."""
    return [m.group(1) for m in _NAME.finditer(text.strip())]
