"""Text normalisation shared by the index, the query engine and the caches.

Word splitting, lower-casing, stemming and stop words are tantivy's analyzer's job (one
analyzer for documents and queries, so they always agree). What lives here is what tantivy
does not do: NFKC normalisation of queries for the caches, the question words a query drops,
and character bigrams for scripts written without spaces (Chinese, Japanese, Thai...), whose
runs tantivy's tokenizer would otherwise keep as one long, unfindable token.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# A fuller list than tantivy's built-in English one (which keeps "did", "you", "what"...);
# used by the analyzer for documents and queries alike, so matching stays symmetric.
STOP_WORDS: tuple[str, ...] = (
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "cannot",
    "could",
    "couldn't",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn't",
    "has",
    "hasn't",
    "have",
    "haven't",
    "having",
    "he",
    "he'd",
    "he'll",
    "he's",
    "her",
    "here",
    "here's",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "i",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "itself",
    "let's",
    "me",
    "more",
    "most",
    "mustn't",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shan't",
    "she",
    "she'd",
    "she'll",
    "she's",
    "should",
    "shouldn't",
    "so",
    "some",
    "such",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "there's",
    "these",
    "they",
    "they'd",
    "they'll",
    "they're",
    "they've",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasn't",
    "we",
    "we'd",
    "we'll",
    "we're",
    "we've",
    "were",
    "weren't",
    "what's",
    "when's",
    "where's",
    "which",
    "while",
    "who's",
    "whom",
    "why's",
    "with",
    "won't",
    "would",
    "wouldn't",
    "you",
    "you'd",
    "you'll",
    "you're",
    "you've",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "also",
    "just",
    "s",
    "t",
    "d",
    "ll",
    "m",
    "re",
    "ve",
    "y",
)

# Dropped from queries only: they say what kind of answer is wanted, not what it is about.
QUESTION_WORDS: frozenset[str] = frozenset(
    {
        "what",
        "when",
        "where",
        "who",
        "whom",
        "whose",
        "which",
        "why",
        "how",
        "whats",
        "anything",
        "something",
    }
)

_WHITESPACE = re.compile(r"\s+")
# Scripts written without spaces between words.
_NO_SPACE_SCRIPTS = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\u31f0-\u31ff\uff66-\uff9f"  # Katakana extensions, half-width Katakana
    "\uac00-\ud7af\u1100-\u11ff"  # Hangul
    "\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff"  # Thai, Lao, Myanmar, Khmer
)
_NO_SPACE_RUN = re.compile(f"[{_NO_SPACE_SCRIPTS}]+")


def normalise_query(text: str) -> str:
    """NFKC, lower case, collapsed white space: the key of the exact-match cache."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def _run_pairs(run: str) -> list[str]:
    """A no-space-script run's overlapping character pairs (a lone character as is)."""
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_bigrams(text: str) -> list[str]:
    """Overlapping character bigrams of every no-space-script run (a lone character as is).

    `東京の会議` -> `東京 京の の会 会議`: any two adjacent characters of a note match the same
    bigram in a query, which is how CJK search engines work without a dictionary.
    """
    runs = _NO_SPACE_RUN.findall(unicodedata.normalize("NFKC", text))
    return [pair for run in runs for pair in _run_pairs(run)]


def _spaced_pairs(run: re.Match[str]) -> str:
    return " " + " ".join(_run_pairs(run.group())) + " "


def spaced_bigrams(text: str) -> str:
    """The text with every no-space-script run written as its `cjk_bigrams`, space-separated.

    Why in the text itself: the bigrams are then indexed in the same fields as the words
    around them, so BM25 sees a Chinese note's length in the same units as an English one's.
    In a field of their own, empty for most notes of a mostly-English vault, the field's
    average length was near zero and any Chinese note looked hundreds of times too long.
    Text without such a run is returned as it is (no normalisation).
    """
    if text.isascii() or _NO_SPACE_RUN.search(text) is None:
        return text
    return _NO_SPACE_RUN.sub(_spaced_pairs, unicodedata.normalize("NFKC", text))


def has_no_space_script(text: str) -> bool:
    """True when the text contains Chinese, Japanese, Korean, Thai... characters."""
    return _NO_SPACE_RUN.search(text) is not None


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard similarity of two token sets (0.0 for two empty sets)."""
    left, right = set(a), set(b)
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def word_count(text: str) -> int:
    """Words as a reader (and the word budget) counts them: runs of non-space characters.

    A run of a no-space script counts one word per character pair, so a Chinese excerpt
    cannot slip a whole page past the budget as "one word".
    """
    if text.isascii() or _NO_SPACE_RUN.search(text) is None:
        return len(text.split())  # the common case, without a regex per word
    count = 0
    for token in text.split():
        runs = _NO_SPACE_RUN.findall(token)
        extra = sum(max(0, (len(r) + 1) // 2 - 1) for r in runs)
        count += 1 + extra
    return count
