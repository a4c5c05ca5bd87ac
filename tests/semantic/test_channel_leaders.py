"""The dense channel's own best pages stay among the first sources (`dense_leaders`), with the
real bundled model: a question in other words whose answering page shares none of its words,
in a section whose other pages share many of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from tests.conftest import write_notes

PAGES = {
    "publish/publish-your-site.md": "# Publish your site\n\nTo publish pages, open the publish "
    "dialog, pick the pages to publish and confirm. Published pages appear on your site within "
    "a minute. You can unpublish pages from the same dialog.\n",
    "publish/custom-domain.md": "# Custom domain\n\nServe your published pages from your own "
    "domain. Add a CNAME record pointing to the publish servers, then enter the domain in the "
    "site options. Published pages keep their paths.\n",
    "publish/password.md": "# Password protection\n\nProtect published pages with a password "
    "so only people who know it can read them. Set the password in the site options; every "
    "published page then asks for it.\n",
    "publish/seo.md": "# Search engine optimisation\n\nPublished pages include a description "
    "and a preview image for search engines. Set the description property on the pages you "
    "publish to control the snippet.\n",
    "publish/layout.md": "# Layout of published pages\n\nChoose whether published pages show "
    "the navigation, the graph view, the table of contents and backlinks. These options apply "
    "to every published page of the site.\n",
    "publish/limits.md": "# Limits\n\nHow many pages can I publish? A site holds up to 10,000 "
    "published pages, and each page can be up to 5 MB. There is no limit on how many people "
    "visit them.\n",
    "publish/visit.md": "# Visiting a published site\n\nPeople who visit your published pages "
    "can follow links, search the site and switch between light and dark themes. Visiting "
    "needs no account.\n",
    # The answer: none of the question's words ("see", "many", "people", "visit", "published").
    "publish/analytics.md": "# Analytics\n\nConnect Google Analytics or Plausible to your site "
    "to count visitors and traffic. Each view is recorded, so you can follow which notes "
    "readers open most and where they come from.\n",
}
ANSWER = "publish/analytics.md"
QUESTION = "can I see how many people visit my published pages?"


def _embedded(vault: Path, state: Path, **settings: Any) -> Bridge:
    bridge = open_bridge(Settings(vault=vault, state_dir=state, **settings))
    bridge.sync()
    bridge.prepare_semantic(embed=True)
    return bridge


def test_the_page_the_meaning_search_ranks_high_is_among_the_first_three_sources(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", PAGES)
    before = {rel: (vault / rel).read_bytes() for rel in PAGES}
    with_rule = _embedded(vault, tmp_path / "default")  # the defaults
    without_rule = _embedded(vault, tmp_path / "off", dense_leaders=0)
    try:
        # The channel alone has the answer among its two best pages...
        assert with_rule.semantic is not None
        found = with_rule.semantic.find(QUESTION, None, 100)
        best: list[str] = []
        for hit in found.hits:
            path = with_rule.index.path_of(hit.nid)
            if path is not None and path not in best:
                best.append(path)
        assert ANSWER in best[:2]
        # ...the pages that share the question's words outrank it lexically, so without the
        # rule it is cut off; with it (the default), it is among the first three sources.
        alone = [s.path for s in without_rule.engine.search(QUESTION, limit=10).sources]
        assert ANSWER not in alone[:3]
        sources = [s.path for s in with_rule.engine.search(QUESTION, limit=10).sources]
        assert ANSWER in sources[:3]
        # The first place stays the fused ranking's, and every lexical source is still listed.
        assert sources[0] == alone[0]
        assert set(alone) <= set(sources)
        # A question whose every word a note holds gets that note, not the channel's
        # nearest neighbours of a name it does not know.
        named = with_rule.engine.search("Plausible", limit=10).sources
        assert [s.path for s in named] == [ANSWER]
    finally:
        with_rule.close()
        without_rule.close()
    assert {rel: (vault / rel).read_bytes() for rel in PAGES} == before  # nothing rewritten


# A long page whose one block holds the question's words ("change", "site") and a short one
# that says what is meant in other words ("typeface", "palette").
LOOKS = {
    **PAGES,
    "publish/manage-sites.md": "# Manage sites\n\nA site is a collection of published pages."
    "\n\n## Create a site\n\nOpen the publish dialog and click Create site; enter the site ID."
    "\n\n## Delete a site\n\nOpen the publish dialog, switch site and click Delete site.\n\n"
    "## Site options\n\nSite name, home page, logo, custom domain, search engine indexing. "
    "Change the site options from the publish dialog.\n\n## Appearance\n\nTheme: light, dark "
    "or adapt to system. Light/dark toggle. Change the site appearance options at any time.\n",
    "publish/customize.md": "# Customize your site\n\nGive your published site its own look: "
    "upload a stylesheet named publish.css with your CSS snippets to restyle the typeface, "
    "the palette and the spacing, and a favicon for the browser tab.\n",
}
LOOKS_QUESTION = "can I change the colours and fonts of my published site?"


def test_the_page_both_channels_prefer_as_a_note_leads_by_the_margin_asked(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", LOOKS)
    close = _embedded(vault, tmp_path / "close", dense_lead_margin=0)
    never = _embedded(vault, tmp_path / "never", dense_lead_margin=2)
    try:
        assert close.semantic is not None
        found = close.semantic.find(LOOKS_QUESTION, None, 100)
        assert close.index.path_of(found.hits[0].nid) == "publish/customize.md"
        # The fusion rates the short page higher as a note, but the long page's block leads:
        # without the rule the short page is second.
        kept = never.engine.search(LOOKS_QUESTION, limit=10).sources
        assert [s.path for s in kept[:2]] == ["publish/manage-sites.md", "publish/customize.md"]
        assert kept[1].score > kept[0].score
        # With a margin the two notes' relevance clears, it leads; the rest keep their order.
        led = close.engine.search(LOOKS_QUESTION, limit=10).sources
        assert [s.path for s in led[:2]] == ["publish/customize.md", "publish/manage-sites.md"]
        assert [s.path for s in led[2:]] == [s.path for s in kept[2:]]
        assert {s.path: s.score for s in led} == {s.path: s.score for s in kept}
    finally:
        close.close()
        never.close()
