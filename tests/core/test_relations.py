from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.markdown import parse_structure
from bridge.core.relations import (
    LinkResolver,
    WikiLink,
    find_wikilinks,
    link_display_text,
    links_in_blocks,
    links_in_frontmatter,
    parse_wikilink,
    wikilink_to_agent,
)


def test_note_paths_are_written_as_agents_write_them() -> None:
    assert wikilink_to_agent("a/b/c.md") == "@a/b/c.md"
    assert wikilink_to_agent("a/b/c") == "@a/b/c.md"


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        ("a/b", WikiLink("a/b")),
        ("a/b|Alias", WikiLink("a/b", alias="Alias")),
        ("a/b#Heading", WikiLink("a/b", heading="Heading")),
        ("a/b#^blk-1", WikiLink("a/b", block="blk-1")),
        ("a/b#H|x", WikiLink("a/b", heading="H", alias="x")),
        ("a/b\\|x", WikiLink("a/b", alias="x")),
    ],
)
def test_link_parts_are_kept(inner: str, expected: WikiLink) -> None:
    link = parse_wikilink(inner)
    assert link == expected
    assert parse_wikilink(link.render()[2:-2]) == expected


def test_render_to_a_new_target_keeps_alias_heading_block() -> None:
    assert parse_wikilink("old#H|x").render("new/path") == "[[new/path#H|x]]"
    assert parse_wikilink("old#^b").render("n") == "[[n#^b]]"
    assert WikiLink("img", embed=True).render() == "![[img]]"


def test_links_inside_code_are_not_links() -> None:
    body = (
        "Text [[yes]] and `[[no_span]]`.\n\n```\n[[no_fence]]\n```\n\n"
        "- item [[also_yes]] ``[[no `double` span]]``\n"
    )
    targets = [link.target for link in links_in_blocks(parse_structure(body).blocks)]
    assert targets == ["yes", "also_yes"]


def test_relations_section_links_carry_reasons() -> None:
    body = (
        "# T\n\n## Relations\n- [[a/b]] - because\n- [[c|C]] — dash\n\n## Narrative\nSee [[d]].\n"
    )
    links = links_in_blocks(parse_structure(body).blocks)
    assert [(lk.target, lk.origin, lk.reason) for lk in links] == [
        ("a/b", "relations", "because"),
        ("c", "relations", "dash"),
        ("d", "body", None),
    ]


def test_attachments_are_not_relations() -> None:
    assert find_wikilinks("![[diagram.png]] [[note]] [[file.pdf]]")[0].target == "note"
    assert len(links_in_blocks(parse_structure("![[d.png]] [[n]]").blocks)) == 1


def test_frontmatter_related_accepts_links_and_bare_paths() -> None:
    links = links_in_frontmatter(["[[a/b]]", "c/d", 3, None])
    assert [(lk.target, lk.origin) for lk in links] == [
        ("a/b", "frontmatter"),
        ("c/d", "frontmatter"),
    ]
    assert [lk.target for lk in links_in_frontmatter("[[x]] and [[y]]")] == ["x", "y"]


class TestResolver:
    paths = (
        "engineering/auth/jwt_expiry.md",
        "archive/old/jwt_expiry.md",
        "jwt_expiry.md",
        "billing/plans/annual_plan.md",
        "billing/plans/Team Plan.md",
        "deep/a/b/renewal.md",
        "other/renewal.md",
    )

    def resolver(self) -> LinkResolver:
        return LinkResolver(self.paths)

    def test_exact_path_wins(self) -> None:
        r = self.resolver()
        assert r.resolve("archive/old/jwt_expiry") == "archive/old/jwt_expiry.md"
        assert r.resolve("billing/plans/annual_plan.md") == "billing/plans/annual_plan.md"

    def test_name_prefers_the_shortest_path(self) -> None:
        assert self.resolver().resolve("jwt_expiry") == "jwt_expiry.md"
        assert self.resolver().resolve("renewal") == "other/renewal.md"

    def test_unique_name_and_path_suffix(self) -> None:
        r = self.resolver()
        assert r.resolve("annual_plan") == "billing/plans/annual_plan.md"
        assert r.resolve("auth/jwt_expiry") == "engineering/auth/jwt_expiry.md"
        assert r.resolve("b/renewal") == "deep/a/b/renewal.md"

    def test_case_insensitive_and_spaces(self) -> None:
        r = self.resolver()
        assert r.resolve("Billing/Plans/ANNUAL_PLAN") == "billing/plans/annual_plan.md"
        assert r.resolve("team plan") == "billing/plans/Team Plan.md"

    def test_relative_to_the_linking_note(self) -> None:
        r = LinkResolver(["a/b/x.md", "a/c/x.md", "a/b/y.md"])
        assert r.resolve("../c/x", source="a/b/y.md") == "a/c/x.md"
        assert r.resolve("./x", source="a/b/y.md") == "a/b/x.md"

    def test_unresolved_is_reported_not_guessed(self) -> None:
        r = self.resolver()
        resolved, unresolved = r.resolve_all(
            [WikiLink("annual_plan"), WikiLink("missing/note"), WikiLink("plans")], "x.md"
        )
        assert [p for _, p in resolved] == ["billing/plans/annual_plan.md"]
        assert [lk.target for lk in unresolved] == ["missing/note", "plans"]


# The reading of links, as one regex with an optional `!` gave it: the faster scan must agree.
_REFERENCE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")


def _reference_display(text: str) -> str:
    def shown(match: re.Match[str]) -> str:
        link = parse_wikilink(match.group(2))
        return link.alias or link.target.rsplit("/", 1)[-1].replace("_", " ")

    return _REFERENCE.sub(shown, text)


@given(
    st.lists(st.sampled_from(["[[", "]]", "!", "[", "]", "a", "b/c_d", "|", "x", "#", "\n", " "]))
)
@settings(max_examples=1500, deadline=None)
def test_links_are_read_as_the_one_regex_read_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert link_display_text(text) == _reference_display(text)
    expected = [
        parse_wikilink(m.group(2), embed=bool(m.group(1)), origin="body", line=None)
        for m in _REFERENCE.finditer(text)
    ]
    assert find_wikilinks(text) == [link for link in expected if link.target]


def _reference_resolve(paths: list[str], target: str, source: str | None) -> str | None:
    """Obsidian's rule as the resolver first implemented it, with a map of exact paths."""
    exact: dict[str, str] = {}
    by_name: dict[str, list[str]] = {}
    for path in sorted(paths, key=lambda p: (p.count("/"), len(p), p)):
        lowered = path.removesuffix(".md").lower()
        exact.setdefault(lowered, path)
        by_name.setdefault(lowered.rsplit("/", 1)[-1], []).append(path)
    key = target.strip().replace("\\", "/")
    key = (key[:-3] if key.lower().endswith(".md") else key).lower().lstrip("/")
    if not key:
        return source
    if key in exact:
        return exact[key]
    if source and "/" in source:
        stack: list[str] = []
        for part in source.rsplit("/", 1)[0].lower().split("/") + key.split("/"):
            if part == "..":
                if stack:
                    stack.pop()
            elif part not in {"", "."}:
                stack.append(part)
        if "/".join(stack) in exact:
            return exact["/".join(stack)]
    for candidate in by_name.get(key.rsplit("/", 1)[-1], []):
        lowered = candidate.removesuffix(".md").lower()
        if lowered == key or lowered.endswith("/" + key):
            return candidate
    return None


_SEGMENTS = ["a", "A", "b", "note", "Note", "x y", "..", "."]


@given(
    st.lists(
        st.lists(st.sampled_from(_SEGMENTS[:6]), min_size=1, max_size=3).map(
            lambda parts: "/".join(parts) + ".md"
        ),
        max_size=8,
    ),
    st.lists(st.sampled_from([*_SEGMENTS, "", "note.md", "NOTE.MD"]), max_size=4).map("/".join),
    st.sampled_from([None, "a/b.md", "a/x y/c.md", "note.md"]),
)
@settings(max_examples=1500, deadline=None)
def test_links_resolve_as_the_first_resolver_did(
    paths: list[str], target: str, source: str | None
) -> None:
    resolver = LinkResolver(paths)
    assert resolver.resolve(target, source) == _reference_resolve(paths, target, source)


_PATHS = st.lists(st.sampled_from(_SEGMENTS[:6]), min_size=1, max_size=3).map(
    lambda parts: "/".join(parts) + ".md"
)


@given(
    st.lists(_PATHS, max_size=8),
    st.lists(_PATHS, max_size=4),
    st.lists(_PATHS, max_size=4),
    st.lists(st.sampled_from([*_SEGMENTS, "", "note.md", "NOTE.MD"]), max_size=4).map("/".join),
    st.sampled_from([None, "a/b.md", "a/x y/c.md", "note.md"]),
)
@settings(max_examples=1000, deadline=None)
def test_an_updated_resolver_resolves_as_one_built_anew(
    before: list[str], added: list[str], removed: list[str], target: str, source: str | None
) -> None:
    """After an agent's ADDs (and deletions) links resolve as over the vault's new paths,
    and the resolver queries were already reading still answers as before (each remembers
    its own answers: the link asked of the old one first, and again after)."""
    after = sorted((set(before) - set(removed)) | set(added))
    old = LinkResolver(set(before))
    was = old.resolve(target, source)
    updated = old.updated(added, removed)
    assert updated.resolve(target, source) == _reference_resolve(after, target, source)
    assert updated.resolve(target, source) == _reference_resolve(after, target, source)
    assert old.resolve(target, source) == was == _reference_resolve(before, target, source)
