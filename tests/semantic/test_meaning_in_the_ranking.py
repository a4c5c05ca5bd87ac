"""The ranker weighs meaning beside words, with the real bundled model: a question in other
words whose answering page shares none of its words, in a section whose other pages share
many of them."""

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


def test_the_page_that_answers_in_other_words_is_listed_by_meaning(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", PAGES)
    before = {rel: (vault / rel).read_bytes() for rel in PAGES}
    meaning = _embedded(vault, tmp_path / "default")  # the defaults: both channels
    words = _embedded(vault, tmp_path / "off", embed_model="off")
    try:
        # The channel alone has the answer among its two best pages...
        assert meaning.semantic is not None
        found = meaning.semantic.find(QUESTION, None, 100)
        best: list[str] = []
        for hit in found.hits:
            path = meaning.index.path_of(hit.nid)
            if path is not None and path not in best:
                best.append(path)
        assert ANSWER in best[:2]
        # ...the pages that share the question's words outrank it lexically; with meaning
        # weighed in, it comes well before where words alone put it.
        alone = [s.path for s in words.engine.search(QUESTION, limit=10).sources]
        sources = [s.path for s in meaning.engine.search(QUESTION, limit=10).sources]
        by_words = alone.index(ANSWER) if ANSWER in alone else len(alone)
        assert ANSWER in sources[:5]
        assert sources.index(ANSWER) + 2 <= by_words
        # A question whose every word a note holds gets that note first, not the channel's
        # nearest neighbours of a name it does not know.
        named = meaning.engine.search("Plausible", limit=10).sources
        assert named[0].path == ANSWER
    finally:
        meaning.close()
        words.close()
    assert {rel: (vault / rel).read_bytes() for rel in PAGES} == before  # nothing rewritten
