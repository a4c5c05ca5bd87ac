"""The guide of a Logseq graph and a Dendron vault: the dialect named, a real note of the vault
shown, the example entry and the outline in the vault's own conventions."""

from __future__ import annotations

from pathlib import Path

from bridge.core.entry import parse_note
from bridge.guide.gather import gather_guide
from bridge.guide.models import Guide
from bridge.guide.render import render_guide
from bridge.runtime import open_bridge
from bridge.settings import Settings
from tests.vault.test_dialect_vaults import copy_of


def guide_of(tmp_path: Path, name: str) -> tuple[Guide, str]:
    bridge = open_bridge(Settings(vault=copy_of(tmp_path, name), state_dir=tmp_path / "s"))
    try:
        bridge.sync()
        guide = gather_guide(bridge)
        return guide, render_guide(guide)
    finally:
        bridge.close()


def test_the_guide_of_a_logseq_graph_shows_a_real_page_and_writes_its_example_as_one(
    tmp_path: Path,
) -> None:
    guide, text = guide_of(tmp_path, "logseq")
    assert guide.dialect.name == "logseq"
    sample = guide.dialect.sample
    vault = tmp_path / "logseq"
    assert sample is not None and (vault / sample.path).read_text() == sample.text
    assert "key:: value" in text and "## This vault's dialect: logseq" in text
    example = guide.example
    assert example.source == "built_in"
    assert example.path == "pages/product___pricing___seat_minimum.md"
    assert not example.text.startswith("---") and "status:: draft" in example.text
    assert "- ## Relations\n\t- [[product/pricing/team_plan]]" in example.text
    folders = [f.path for f in guide.outline.folders]
    assert "auth" in folders and "journals" in folders


def test_the_guide_of_a_dendron_vault_uses_its_dotted_tree(tmp_path: Path) -> None:
    guide, text = guide_of(tmp_path, "dendron")
    assert guide.dialect.name == "dendron"
    sample = guide.dialect.sample
    assert sample is not None and sample.path.startswith("notes/proj.")
    assert "epoch milliseconds" in text
    example = guide.example
    assert example.path == "notes/product.pricing.seat_minimum.md"
    assert "[[product.pricing.team_plan]]" in example.text
    assert "updated: 1795192800000" in example.text  # 2026-11-20T16:40Z in milliseconds
    assert parse_note(example.path, example.text).frontmatter["id"]
    folders = {(f.path, f.notes) for f in guide.outline.folders}
    assert ("proj", 4) in folders and ("proj/auth", 2) in folders


def test_the_llm_sees_a_dendron_vault_as_its_dotted_tree(tmp_path: Path) -> None:
    from bridge.llm.context import tree_outline
    from bridge.llm.tools import MemoryTools

    bridge = open_bridge(Settings(vault=copy_of(tmp_path, "dendron"), state_dir=tmp_path / "s"))
    try:
        bridge.sync()
        tools = MemoryTools(bridge.engine, bridge.store)
        # `proj.auth.md` is a note of `proj` and the level `auth/` below it, as in Dendron.
        listed = "auth/\n@notes/proj.auth.md\n@notes/proj.billing.md"
        assert tools.list_folder("proj") == listed
        assert tools.list_folder("proj/auth") == (
            "@notes/proj.auth.jwt.md\n@notes/proj.auth.keys.md"
        )
        outline = tree_outline(bridge.index, dialect=bridge.store.dialect)
        assert "proj/\n" in outline and "  auth/\n" in outline
    finally:
        bridge.close()
