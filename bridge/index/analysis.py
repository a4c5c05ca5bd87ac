"""The one text analyzer used for documents and queries, and query term extraction."""

from __future__ import annotations

from dataclasses import dataclass, replace
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


# Languages with a Snowball stemmer in tantivy, by ISO 639-1 code (English is the analyzer's own).
STEMMERS: dict[str, str] = {
    "ar": "arabic",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "it": "italian",
    "nb": "norwegian",
    "nl": "dutch",
    "nn": "norwegian",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
}


@lru_cache(maxsize=1)
def _words() -> tantivy.TextAnalyzer:
    """The words as the index's analyzer splits them, lower-cased: one token per word."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .build()
    )


@lru_cache(maxsize=32)
def _word_analyzers(lang: str) -> tuple[tantivy.TextAnalyzer, ...]:
    """For one lower-cased word: its stem in `lang`; the word as the index's analyzer makes it
    (stop words kept); that stem as the index's analyzer makes it."""
    native = tantivy.Filter.stemmer(STEMMERS[lang])
    english = tantivy.Filter.stemmer("english")
    fold = tantivy.Filter.ascii_fold()

    def chain(*filters: tantivy.Filter) -> tantivy.TextAnalyzer:
        builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        for one in filters:
            builder = builder.filter(one)
        return builder.build()

    return chain(native), chain(fold, english), chain(native, fold, english)


@lru_cache(maxsize=200_000)  # words, over every language: a few MB at most
def _native_stem(word: str, lang: str) -> str:
    """The stem `native_stems` adds for one lower-cased word ("" for none), remembered: a
    vault's words repeat, and three analyzer calls a word were most of indexing a note."""
    native, indexed, restemmed = _word_analyzers(lang)
    if indexed.analyze(word) == restemmed.analyze(word):
        return ""
    return str(native.analyze(word)[0])


def native_stems(text: str, lang: str) -> list[str]:
    """The stems, in language `lang`, of the words of `text` that its stemmer changes beyond
    what the index's own (English) analyzer makes of the word.

    The index's English stemmer leaves "instalo" and "instalar", "Notiz" and "Notizen" apart,
    so a Spanish question asking how to "instalo" the app would miss the page "Descargar e
    instalar". Beside the words, not instead of them: a note's words still match (its
    language may be guessed wrong, a German page quotes English), and a question in the
    note's language adds its own stems (the keyword and stem pair search engines index). A
    stem the index would hold anyway ("evernot" of "Evernote" in a French note) is left out:
    counted twice, it would lift French pages over English ones for English questions. Empty
    for a language without a stemmer here.
    """
    if lang not in STEMMERS or not text.strip():
        return []
    return [stem for word in _words().analyze(text) if (stem := _native_stem(word, lang))]


def with_stems(text: str, lang: str | None) -> str:
    """`text` followed by its `native_stems` in `lang` (the text alone without a stemmer)."""
    if lang is None or not text:
        return text
    stems = native_stems(text, lang)
    return f"{text}\n{' '.join(stems)}" if stems else text


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
    # The words' stems in the question's language (`question_stems`), searched beside them.
    stems: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.words and not self.bigrams

    def token_set(self) -> frozenset[str]:
        return frozenset(self.words) | frozenset(self.bigrams)

    @property
    def searched(self) -> tuple[str, ...]:
        """Every term the BM25 searches look for: words, CJK pairs and native stems."""
        return (*self.words, *self.bigrams, *self.stems)


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


def question_stems(terms: QueryTerms, text: str, lang: str) -> QueryTerms:
    """`terms` with the question's stems in `lang` (`native_stems`), as the index holds them
    for notes in that language: through the analyzer, without terms already asked."""
    have = set(terms.words) | set(terms.bigrams)
    stems: list[str] = []
    for stem in native_stems(text, lang):
        for term in analyze(stem):
            if term not in have:
                have.add(term)
                stems.append(term)
    return replace(terms, stems=tuple(stems[:64])) if stems else terms
