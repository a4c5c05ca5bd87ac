"""The index schema: entry, block and window documents, each kind in its own tantivy index.

One schema serves the three indexes (a kind leaves the other kinds' fields empty). Separate
indexes, not one: tantivy's BM25 takes the document count N and the average field length from
the whole index, so with the three kinds mixed an entry's length would be compared with an
average taken over many times more documents than entries, and every term's IDF over the
wrong N.
"""

from __future__ import annotations

import hashlib

import tantivy

from bridge.index.analysis import ANALYZER

# 6: the manifest's content key hashes a note's inputs (`content_key`). No version-5 key matches
# one, so each note would be re-indexed at its next write, leaving deleted copies in the BM25
# statistics until a merge: the rebuild does it once, cleanly.
# 7-8: block and window documents carry the block's excerpt word count (`words`, a fast field):
# packing an answer's word budget reads it with the hit instead of each block's stored text;
# block documents index their heading path (`heading`) to find a note's lead block by search.
# 9: no stored `meta`: a block's text and position live in the block store (`block_store`).
# 10: a transcript turn's speaker is a fast field (`speaker_id`), read with the hits: the named
# speaker's turns are found without a second, speaker-filtered search.
# 11: the block store keeps each note's heading paths once (`block_store`).
# 12: Chinese, Japanese, Thai... text is indexed as character pairs in the word fields, not in
# fields of its own (`spaced_bigrams`): those fields' average length, near zero in a mostly
# English vault, made every CJK note score as if hundreds of times too long. Heading paths
# too, so a CJK question picks a found note's lead block by its heading.
# 13: a note in a language with a stemmer (frontmatter `lang`, else a top folder named by its
# code) has its words' stems in that language beside its words (`with_stems`), and its entry
# document says which language (`stems`): a question in that language searches its stems too.
# 14: the title field holds a note's aliases beside its title and the summary field its
# description (`description`, `desc`, Logseq's `description::`) when it has no `summary`; the
# folder field holds the tree's levels (a dialect's namespaces, Dendron's dotted names); the
# manifest records the names a link may use for a note (`names`).
# 15: the bridge's overview region is not in an entry's body, and its blocks are flagged like a
# Relations section's (`in_region`): it describes the notes it lists.
SCHEMA_VERSION = 15
# The block is in a Relations or Raw Concept section (`METADATA_SECTIONS`): it describes
# another note or where this one came from, not the knowledge itself.
FLAG_METADATA = 1

# Entry documents: one per note. Boosts follow DESIGN section 3.
ENTRY_FIELDS: dict[str, float] = {
    "title": 3.0,
    "path_text": 1.5,
    "tags": 2.0,
    "summary": 2.0,
    "body": 1.0,
}
BLOCK_FIELD = "block"
HEADING_FIELD = "heading"  # a block's heading path, searched only to pick a lead block
STEMS_FIELD = "stems"  # the language whose stems an entry's note carries (`with_stems`)
KINDS = ("entries", "blocks", "windows")
WINDOW_FIELD = "window"


def build_schema() -> tantivy.Schema:
    """The schema; `SCHEMA_VERSION` changes whenever this does (the index is then rebuilt)."""
    b = tantivy.SchemaBuilder()
    b.add_text_field("path", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_text_field("key", stored=False, tokenizer_name="raw", index_option="basic")
    # Every folder above the note ("a", "a/b"): a query can be scoped to a subtree.
    b.add_text_field("folder", stored=False, tokenizer_name="raw", index_option="basic")
    # On entry documents: the language whose stems the note's text carries (`with_stems`).
    b.add_text_field(STEMS_FIELD, stored=False, tokenizer_name="raw", index_option="basic")
    # Fast numeric ids: a hit is turned into (note, block) without loading a stored document.
    b.add_unsigned_field("nid", stored=False, indexed=False, fast=True)
    b.add_unsigned_field("ord", stored=False, indexed=False, fast=True)
    b.add_unsigned_field("flags", stored=False, indexed=False, fast=True)
    # The (centre) block's words as an excerpt counts them: the budget is packed from hits
    # alone, and only the blocks it keeps are read from the block store.
    b.add_unsigned_field("words", stored=False, indexed=False, fast=True)
    # Text fields keep frequencies only: the engine issues no phrase queries, and positions
    # would roughly double the index.
    for name in (*ENTRY_FIELDS, BLOCK_FIELD, WINDOW_FIELD):
        b.add_text_field(name, stored=False, tokenizer_name=ANALYZER, index_option="freq")
    b.add_text_field(HEADING_FIELD, stored=False, tokenizer_name=ANALYZER, index_option="basic")
    # The speaker of a transcript turn (`speaker_id`; absent: not a turn), on block documents.
    b.add_unsigned_field("speaker", stored=False, indexed=False, fast=True)
    return b.build()


def speaker_id(name: str) -> int:
    """A speaker's (lower-cased) name as a non-zero 64-bit number, the same in every process
    (Python's `hash` of a string is not)."""
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") or 1


def block_key(nid: int, ord_: int) -> str:
    """The term that finds one block document."""
    return f"{nid}:{ord_}"
