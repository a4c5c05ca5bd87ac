"""The one text analyzer used for documents and queries, and query term extraction."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import tantivy

from bridge.core.text import QUESTION_WORDS, STOP_WORDS, cjk_bigrams, has_no_space_script

ANALYZER = "vb_en"
# Contractions split at the apostrophe ("didn't" -> "didn", "t"); their stems are stop words too.
_CONTRACTION_STEMS = (
    "didn doesn isn wasn weren aren hadn hasn haven couldn wouldn shouldn mustn shan"
)


@lru_cache(maxsize=1)
def text_analyzer() -> tantivy.TextAnalyzer:
    """Words: split, drop tokens over 40 bytes, lower-case, fold accents, stop words, stem."""
    stop = sorted(set(STOP_WORDS) | set(_CONTRACTION_STEMS.split()))
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.custom_stopword(stop))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def register(index: tantivy.Index) -> None:
    """Analyzers are not stored in the index; every opened index needs them registered."""
    index.register_tokenizer(ANALYZER, text_analyzer())


def analyze(text: str) -> list[str]:
    """The index terms of a text, in order (duplicates kept)."""
    return list(text_analyzer().analyze(text))


@lru_cache(maxsize=1)
def _question_stems() -> frozenset[str]:
    return frozenset(t for w in QUESTION_WORDS for t in analyze(w))


@dataclass(frozen=True)
class QueryTerms:
    """What a query searches for: word terms, CJK bigrams, and long words to check for OOD."""

    words: tuple[str, ...]
    bigrams: tuple[str, ...]
    long_words: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.words and not self.bigrams

    def token_set(self) -> frozenset[str]:
        return frozenset(self.words) | frozenset(self.bigrams)


def query_terms(query: str, max_terms: int = 64) -> QueryTerms:
    """Terms of a query: stop and question words dropped, duplicates removed, order kept.

    A 100 KB paste must not become a 20,000-clause query, so only the first `max_terms`
    distinct terms count.
    """
    questions = _question_stems()
    words: list[str] = []
    long_words: list[str] = []
    for raw in query.split():
        for term in analyze(raw):
            if term in questions or term in words or has_no_space_script(term):
                continue  # no-space scripts are searched by their bigrams instead
            if len(words) < max_terms:
                words.append(term)
                if sum(c.isalpha() for c in raw) >= 4:
                    long_words.append(term)
    # Through the analyzer, as the indexed pairs went (`spaced_bigrams`): a pair holding a
    # combining mark (Thai tone marks) is split there, and must be here too.
    grams = (token for gram in cjk_bigrams(query) for token in analyze(gram))
    bigrams = list(dict.fromkeys(grams))[:max_terms]
    return QueryTerms(tuple(words), tuple(bigrams), tuple(long_words))
