"""A note's language, and a question's, as the dense channel and ranking use them (pure).

DESIGN 3: "a note's language (frontmatter `lang`, folder, detection) is known; a question gets
notes in its language first where they exist." A declared `lang` wins; then detection on the
note's readable text when the detector is sure; then a top-level folder named by a language
code (`zh/`, `pt-br/`), which only decides for notes too short to detect, so a folder named
`it/` holding IT notes in English is still read as English. Unknown stays unknown: an
unknown language is embedded and never demoted.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping

from bridge.core.paths import top_folder

# ISO 639-1 codes (the detector's labels are a subset). A folder is a language only by one.
_CODES = (
    "af am an ar as az be bg bn br bs ca cs cy da de dz el en eo es et eu fa fi fo fr ga gl gu "
    "he hi hr ht hu hy id is it ja jv ka kk km kn ko ku ky la lb lo lt lv mg mk ml mn mr ms mt "
    "nb ne nl nn no oc or pa pl ps pt qu ro ru rw se si sk sl sq sr sv sw ta te th tl tr ug uk "
    "ur uz vi vo wa xh zh zu"
)
_ISO = frozenset(_CODES.split())
_CODE = re.compile(r"^([a-z]{2})(?:[-_][a-z0-9]{2,8})*$")
SURE = 0.9  # detector confidence needed to name a note's or a question's language
MIN_LETTERS = 40  # below this a note is too short to detect reliably


def language_code(value: object) -> str | None:
    """`en`, `en-US`, `zh_Hans`, `PT-br` -> the ISO 639-1 code; anything else -> None."""
    if not isinstance(value, str):
        return None
    match = _CODE.match(value.strip().lower())
    if match is None or match.group(1) not in _ISO:
        return None
    # One string per code, not one per note: the dense channel keeps a note's language
    # and folder code for every note.
    return sys.intern(match.group(1))


def declared(properties: Mapping[str, object]) -> object:
    """What a note's frontmatter says its language is: `lang`, else `language` (unchecked)."""
    return properties.get("lang", properties.get("language"))


def folder_language(path: str) -> str | None:
    """The language a note's top-level folder names, if it names one (`de/Sync.md` -> de)."""
    top = top_folder(path)
    return language_code(top) if top else None


def note_language(
    declared: object, path: str, detected: tuple[str, float] | None, letters: int
) -> str | None:
    """Declared `lang` > a sure detection of enough text > the folder > unknown."""
    code = language_code(declared)
    if code is not None:
        return code
    if detected is not None and letters >= MIN_LETTERS and detected[1] >= SURE:
        return language_code(detected[0])
    return folder_language(path)


def sure_language(ranks: Mapping[str, float], among: frozenset[str] | None) -> str | None:
    """The language a detector is sure of, choosing only among `among` (the vault's own).

    A question's words are few ("kanban board plugin" is most likely Frisian over all the
    detector's languages, and not by much), but the vault holds only a few languages, and
    choosing among those is easy (Latin script and English words: English): the detector's
    probabilities renormalised over the vault's languages; sure at `SURE`.
    """
    if among is not None:
        ranks = {lang: p for lang, p in ranks.items() if lang in among}
    total = sum(ranks.values())
    if total <= 0:
        return None
    lang, best = max(ranks.items(), key=lambda item: item[1])
    return lang if best / total >= SURE else None


def question_language(ranks: Mapping[str, float], among: frozenset[str]) -> str | None:
    """A question's language: the one the detector is sure of over all languages (a Chinese
    question is Chinese whatever the vault holds), else the one it is sure of among `among`,
    the vault's own (a short English question in an English vault is English)."""
    sure = sure_language(ranks, None)
    if sure is not None:
        return sure
    if len(among) == 1 and ranks:
        return next(iter(among))
    return sure_language(ranks, among) if among else None


def letter_count(text: str) -> int:
    """How many letters `text` holds (what detection can go on)."""
    return sum(1 for ch in text if ch.isalpha())


def edition_folders(counts: Mapping[str, Mapping[str, int]]) -> frozenset[str]:
    """The language codes whose top-level folders are editions of the vault in that language.

    `counts`: for each top-level folder named by a language code (by its code), how many of
    its notes are in each language, as their text reads (unknown left out).

    A documentation vault in many languages keeps each edition in a folder (`en/`, `zh/`,
    `es/`...), and an edition not yet translated holds English copies of its pages:
    `zh/Bases/Create a base.md` is word for word `en/Bases/Create a base.md`. Read by their
    text, both are English, and an English question would get the Chinese edition's copy
    first as often as the English page. By folder, because the vault's own layout says which
    edition a page belongs to, and a reader of the English edition wants its page: a folder
    is an edition when most of its notes of known language are in the language it is named
    for; and once two folders are editions, the vault is laid out by language, so every
    folder named by a code is one (an edition still mostly untranslated included). A lone
    `it/` folder of IT notes in English is no edition: its notes read as English.
    """
    editions = {
        code for code, langs in counts.items() if 2 * langs.get(code, 0) > sum(langs.values())
    }
    if len(editions) >= 2:
        return frozenset(counts)
    return frozenset(editions)


def edition_language(
    text_language: str | None, folder_code: str | None, editions: frozenset[str]
) -> str | None:
    """The language a reader finds a note in: its edition's, else its text's."""
    if folder_code is not None and folder_code in editions:
        return folder_code
    return text_language
