"""Term coverage: the share of a question's words, weighted by rarity, that one note holds.

It sets how much the dense channel counts and feeds the out-of-domain rule, so its value is
checked against its definition, on questions longer than one coverage search takes.
"""

from __future__ import annotations

from pathlib import Path

from bridge.index.analysis import analyze, query_terms
from bridge.index.queries import idf
from bridge.index.search_index import SearchIndex
from bridge.index.sync import reconcile
from bridge.vault.store import VaultStore

# Animal names: no stop words among them, so each is one question word.
ANIMALS = [
    "zebra",
    "walrus",
    "quokka",
    "okapi",
    "tapir",
    "gecko",
    "ibis",
    "lemur",
    "narwhal",
    "oryx",
    "puffin",
    "dingo",
    "marmot",
    "jackal",
    "bison",
    "heron",
    "otter",
    "yak",
    "koala",
    "panda",
    "badger",
    "ferret",
    "hyena",
    "llama",
    "moose",
    "wombat",
    "gibbon",
    "mongoose",
    "pelican",
]


def _vault(root: Path) -> dict[str, str]:
    notes = {
        # Holds all animals but the last three, over more words than one search takes (23).
        "zoo/many.md": " ".join(ANIMALS[:-3]),
        "zoo/few.md": "zebra walrus gibbon",
        "zoo/other.md": "mongoose pelican and a zebra",
        "garden/roses.md": "roses need sun",
    }
    for rel, body in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {path.stem.title()}\n\n{body}\n", encoding="utf-8")
    return notes


def _expected(index: SearchIndex, words: tuple[str, ...], held: set[str]) -> float:
    docs = index.document_count("entries")
    stems = {stem for word in held for stem in analyze(word)}
    weights = [idf(docs, index.doc_frequency(w)) for w in words]
    return sum(w for w, word in zip(weights, words, strict=True) if word in stems) / sum(weights)


def test_coverage_is_the_best_notes_rarity_weighted_share(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    notes = _vault(vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(VaultStore(vault), index)
    nid = {rel: stamp.nid for rel in notes if (stamp := index.stamp(rel)) is not None}

    # 30 words: 29 animals (two searches' worth) and one no note holds.
    terms = query_terms(" ".join([*ANIMALS, "aardwolf"]))
    assert len(terms.words) == len(ANIMALS) + 1 > 23

    many = _expected(index, terms.words, set(ANIMALS[:-3]))
    assert index.term_coverage(terms, [nid["zoo/many.md"]]) == many
    other = _expected(index, terms.words, {"mongoose", "pelican", "zebra"})
    assert index.term_coverage(terms, [nid["zoo/other.md"]]) == other
    # Among several notes, the best one's share; a note holding none adds nothing.
    asked = [nid["garden/roses.md"], nid["zoo/few.md"], nid["zoo/other.md"]]
    assert index.term_coverage(terms, asked) == other
    assert index.term_coverage(terms, [nid["garden/roses.md"]]) == 0.0
    assert 0.8 < many < 1.0 and other < many
    index.close()
