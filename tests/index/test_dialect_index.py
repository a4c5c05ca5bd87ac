"""What a dialect changes in the index: aliases found like titles, descriptions like summaries,
scopes over the tree's levels, link names for the resolver, and a rebuild when the reading
changes."""

from __future__ import annotations

from pathlib import Path

from bridge.core.dialect import Dendron, describe
from bridge.index.analysis import query_terms
from bridge.index.search_index import SearchIndex
from bridge.index.sync import reconcile
from bridge.vault.store import VaultStore
from tests.vault.test_dialect_vaults import copy_of, open_store


def indexed(store: VaultStore, state: Path) -> SearchIndex:
    index = SearchIndex(state, reading=describe(store.dialect))
    reconcile(store, index)
    return index


def top_path(index: SearchIndex, query: str, scope: str | None = None) -> str | None:
    hits = index.search_entries(query_terms(query), 5, scope)
    if not hits:
        return None
    stamp = {rec.nid: rec.path for rec in index.all_records()}
    return stamp[hits[0].nid]


def test_a_logseq_alias_finds_its_page_and_backups_are_never_indexed(tmp_path: Path) -> None:
    store = open_store(copy_of(tmp_path, "logseq"))
    index = indexed(store, tmp_path / "state")
    assert top_path(index, "session cookies") == "pages/auth___sessions.md"
    assert top_path(index, "renewed on activity") == "pages/auth___sessions.md"  # description
    assert top_path(index, "memcached") is None  # only the stale backups say it
    assert not any(p.startswith("logseq/") for p in index.paths())


def test_links_resolve_by_page_names_in_the_index(tmp_path: Path) -> None:
    store = open_store(copy_of(tmp_path, "logseq"))
    index = indexed(store, tmp_path / "state")
    resolver = index.link_resolver()
    assert resolver.resolve("login sessions") == "pages/auth___sessions.md"
    assert resolver.resolve("Nov 2nd, 2026") == "journals/2026_11_02.md"
    assert resolver.resolve("auth/key rotation") == "pages/Auth___Key Rotation.md"
    # A new alias written by a person is followed once the note is indexed again.
    page = store.root / "pages" / "Deploy.md"
    page.write_text("alias:: shipping\n\n" + page.read_text())
    reconcile(store, index)
    assert index.link_resolver().resolve("Shipping") == "pages/Deploy.md"


def test_a_dendron_scope_is_a_level_of_dotted_names(tmp_path: Path) -> None:
    store = open_store(copy_of(tmp_path, "dendron"))
    index = indexed(store, tmp_path / "state")
    assert top_path(index, "signing keys rotate", scope="proj/auth") == "notes/proj.auth.keys.md"
    assert top_path(index, "signing keys rotate", scope="proj/billing") is None
    # `desc` is the summary; the record's `updated` is a time the lifecycle can read.
    assert top_path(index, "refresh tokens") == "notes/proj.auth.jwt.md"
    record = next(r for r in index.all_records() if r.path == "notes/proj.auth.jwt.md")
    assert record.updated is not None and record.updated.startswith("2024-11-19T")


def test_an_index_read_in_another_dialect_is_rebuilt(tmp_path: Path) -> None:
    vault = copy_of(tmp_path, "dendron")
    obsidian = VaultStore(vault)  # the same files read as Obsidian reads them
    first = SearchIndex(tmp_path / "state")
    reconcile(obsidian, first)
    assert "README.md" in first.paths()
    first.close()
    store = open_store(vault)
    assert isinstance(store.dialect, Dendron)
    again = SearchIndex(tmp_path / "state", reading=describe(store.dialect))
    assert again.rebuilt  # the files did not change, but what they say did
    reconcile(store, again)
    assert "README.md" not in again.paths()
    assert top_path(again, "refresh tokens") == "notes/proj.auth.jwt.md"
    again.close()
    assert not SearchIndex(tmp_path / "state", reading=describe(store.dialect)).rebuilt


def test_obsidian_aliases_and_descriptions_are_searched(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "eng" / "auth").mkdir(parents=True)
    (vault / "eng" / "auth" / "expiry.md").write_text(
        "---\naliases: [bearer lifetime]\ndescription: Tokens are renewed hourly.\n---\n"
        "# Token expiry\n\nAccess tokens expire.\n"
    )
    (vault / "eng" / "auth" / "other.md").write_text("# Other\n\nNothing about it.\n")
    index = indexed(VaultStore(vault), tmp_path / "state")
    assert top_path(index, "bearer lifetime") == "eng/auth/expiry.md"
    assert top_path(index, "renewed hourly") == "eng/auth/expiry.md"
    # Obsidian does not resolve a link by an alias: it stays unresolved, as Obsidian shows it.
    assert index.link_resolver().resolve("bearer lifetime") is None
