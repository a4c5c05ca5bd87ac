"""Dialects as plain values: page names, tree paths, file names and notes read as each tool
reads them (no files)."""

from __future__ import annotations

import datetime as dt

import pytest

from bridge.core.dialect import (
    OBSIDIAN,
    Dendron,
    Foam,
    Logseq,
    file_for,
    is_file_path,
    page_name,
    tree_folders,
    tree_path,
)
from bridge.core.dialect_write import moved_text, relink_definitions
from bridge.core.entry import parse_note
from bridge.core.logseq import page_properties, set_property, split_list
from bridge.core.logseq_dates import format_date, parse_date
from bridge.core.relations import LinkResolver, parse_wikilink

LOGSEQ = Logseq()
LEGACY = Logseq(file_name_format="legacy")
DENDRON = Dendron(vaults=("notes",), vault_names=("personal",))


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("pages/auth___sessions.md", "auth/sessions"),
        ("pages/Auth___Key Rotation.md", "Auth/Key Rotation"),
        ("pages/New to Logseq%3F.md", "New to Logseq?"),
        # Logseq adds `___` to a name ending in a dot (Windows cannot hold it).
        ("pages/Tweet___Time Managem...___.md", "Tweet/Time Managem..."),
        ("journals/2026_11_02.md", "Nov 2nd, 2026"),
    ],
)
def test_logseq_page_names_decode_namespaces_and_journal_dates(path: str, name: str) -> None:
    assert page_name(LOGSEQ, path) == name


def test_a_legacy_graph_reads_dots_and_percent_slashes_as_namespaces() -> None:
    assert page_name(LEGACY, "pages/auth.sessions.md") == "auth/sessions"
    assert page_name(LEGACY, "pages/auth%2Fsessions.md") == "auth/sessions"


def test_tree_paths_come_from_namespaces_and_dotted_names() -> None:
    assert tree_path(LOGSEQ, "pages/billing___cycle___dunning.md") == "billing/cycle/dunning"
    assert tree_folders(LOGSEQ, "pages/billing___cycle___dunning.md") == (
        "billing",
        "billing/cycle",
    )
    assert tree_path(DENDRON, "notes/proj.auth.jwt.md") == "proj/auth/jwt"
    assert tree_folders(DENDRON, "notes/proj.auth.jwt.md") == ("proj", "proj/auth")
    two = Dendron(vaults=("a", "b"))
    assert tree_path(two, "b/proj.x.md") == "b/proj/x"
    assert tree_path(OBSIDIAN, "a/b/c.md") == "a/b/c"
    assert tree_path(Foam(), "a/b/c.md") == "a/b/c"


def test_new_notes_are_named_in_the_dialect() -> None:
    assert file_for(LOGSEQ, "billing/cycle/dunning.md") == "pages/billing___cycle___dunning.md"
    assert file_for(LEGACY, "billing/cycle/dunning.md") == "pages/billing%2Fcycle%2Fdunning.md"
    assert file_for(DENDRON, "proj/auth/api_keys.md") == "notes/proj.auth.api_keys.md"
    assert file_for(Dendron(), "proj/auth/api_keys.md") == "proj.auth.api_keys.md"
    assert file_for(OBSIDIAN, "a/b/c.md") == "a/b/c.md"
    # A name Logseq reads back as the same page.
    assert page_name(LOGSEQ, file_for(LOGSEQ, "a/what is it?.md")) == "a/what is it?"


def test_file_paths_and_tree_paths_are_told_apart() -> None:
    assert is_file_path(LOGSEQ, "pages/x.md")
    assert not is_file_path(LOGSEQ, "billing/cycle/x.md")
    assert is_file_path(DENDRON, "notes/proj.auth.md")
    assert not is_file_path(DENDRON, "proj/auth/x.md")
    assert is_file_path(Dendron(), "proj.auth.md")


def test_journal_dates_both_ways() -> None:
    day = dt.date(2026, 11, 2)
    assert format_date(day, "MMM do, yyyy") == "Nov 2nd, 2026"
    assert format_date(day, "EEEE, dd.MM.yyyy") == "Monday, 02.11.2026"
    assert format_date(dt.date(2026, 11, 11), "do MMMM yyyy") == "11th November 2026"
    assert parse_date("2026_11_02", "yyyy_MM_dd") == day
    assert parse_date("2026_11_31", "yyyy_MM_dd") is None
    assert parse_date("notes", "yyyy_MM_dd") is None


def test_logseq_page_properties_and_lists() -> None:
    text = "title:: A/B\nalias:: one, [[two, three]]\n\n- first block\n  id:: 123\n"
    props = page_properties(text)
    assert props.values == {"title": "A/B", "alias": "one, [[two, three]]"}
    assert (props.start, props.end) == (0, 2)
    assert split_list("one, [[two, three]], #four") == ("one", "two, three", "four")
    # A first block made of properties only is the page's properties too.
    first_block = page_properties("- alias:: x\n  tags:: y\n- text\n")
    assert first_block.values == {"alias": "x", "tags": "y"}
    assert page_properties("- text\n").values == {}


def test_set_property_changes_one_line_and_keeps_the_rest() -> None:
    text = "alias:: x\nstatus:: draft\n\n- a block\r\n"
    assert set_property(text, "status", "stable") == "alias:: x\nstatus:: stable\n\n- a block\r\n"
    added = set_property("alias:: x\n\n- a\n", "status", "core")
    assert added == "alias:: x\nstatus:: core\n\n- a\n"
    assert set_property("- a\n", "status", "core") == "status:: core\n- a\n"


def test_a_logseq_page_reads_as_logseq_shows_it() -> None:
    text = (
        "title:: Auth/Sessions\nalias:: login sessions\ntags:: security, [[auth flow]]\n"
        "status:: stable\ndescription:: Sessions last 12 hours.\n\n"
        "- Stored in Redis.\n  id:: 6650a1b2-0000-4000-8000-000000000001\n"
        "\t- Cookie is HttpOnly, see [[Auth/Key Rotation]].\n"
        "- ## Expiry\n\t- Idle sessions expire after 30 minutes.\n"
    )
    note = parse_note("pages/auth___sessions.md", text, LOGSEQ)
    assert note.title == "Auth/Sessions"
    assert note.aliases == ("login sessions",)
    assert note.entry.tags == ("security", "auth flow")
    assert note.entry.status == "stable"
    assert note.entry.summary == note.description == "Sessions last 12 hours."
    assert note.problems == ()
    # The page's names: its file's, its title and its alias.
    assert set(note.names) == {"auth/sessions", "Auth/Sessions", "login sessions"}
    first = note.blocks[0]
    assert first.text == "- Stored in Redis." and first.block_id.startswith("6650a1b2")
    expiry = next(b for b in note.blocks if "Idle" in b.text)
    assert expiry.heading_path == ("Expiry",)
    # Links in the outline and in properties (`tags::` names pages too).
    assert [link.target for link in note.links] == ["Auth/Key Rotation", "auth flow"]


def test_a_journal_page_is_created_on_its_day() -> None:
    note = parse_note("journals/2026_11_02.md", "- did things\n", LOGSEQ)
    assert note.title == "Nov 2nd, 2026"
    assert note.entry.created == dt.datetime(2026, 11, 2, tzinfo=dt.UTC)


def test_a_dendron_note_reads_epoch_dates_desc_and_alias_first_links() -> None:
    text = (
        "---\nid: cnslfarfqeclfb6iqodb71f\ntitle: JWT expiry\ndesc: Tokens live 24 hours.\n"
        "updated: 1732000000000\ncreated: 1731200000000\n---\n# A heading that is no title\n\n"
        "See [[key rotation|dendron://personal/proj.auth.keys#rotation]] and "
        "[[RFC|dendron://archive/rfc.7]].\n"
    )
    note = parse_note("notes/proj.auth.jwt.md", text, DENDRON)
    assert note.title == "JWT expiry"  # Dendron's title is `title`, not the first heading
    assert note.entry.summary == note.description == "Tokens live 24 hours."
    assert note.entry.updated == dt.datetime(2024, 11, 19, 7, 6, 40, tzinfo=dt.UTC)
    assert note.problems == ()  # epoch milliseconds are dates here
    own, other = note.links
    assert (own.target, own.alias, own.heading) == ("proj.auth.keys", "key rotation", "rotation")
    assert own.render() == "[[key rotation|dendron://personal/proj.auth.keys#rotation]]"
    # A vault this workspace does not hold: the link keeps its vault and resolves to nothing.
    assert other.target == "dendron://archive/rfc.7"
    # The same note read as Obsidian reads it: the dates are no dates.
    assert {p.code for p in parse_note("notes/x.md", text).problems} == {"bad_value"}


def test_a_dendron_note_without_title_is_named_by_its_last_part() -> None:
    note = parse_note("notes/proj.billing.md", "---\nid: x\n---\nBilling.\n", DENDRON)
    assert note.title == "Billing"


def test_foam_titles_and_link_reference_definitions() -> None:
    text = (
        "---\ntitle: Inbox of ideas\n---\n# Inbox\n\n- [[projects]]\n\n"
        '[//begin]: # "Autogenerated link references"\n[projects]: projects/index.md "Projects"\n'
        '[//end]: # "Autogenerated link references"\n'
    )
    note = parse_note("inbox.md", text, Foam())
    assert note.title == "Inbox of ideas"  # Foam: `title` before the first heading
    assert parse_note("inbox.md", text).title == "Inbox"  # Obsidian: the first heading
    assert [b.text for b in note.blocks] == ["- [[projects]]"]
    assert "projects" in parse_note("projects/index.md", "# Projects\n", Foam()).names


def test_obsidian_notes_expose_aliases_and_a_description() -> None:
    text = "---\naliases: [JWT, tokens]\ndescription: How long tokens live.\n---\n# Expiry\n"
    note = parse_note("a/b/expiry.md", text)
    assert note.aliases == ("JWT", "tokens")
    assert note.description == "How long tokens live."
    assert note.entry.summary == ""  # the bridge's own `summary` key is not there
    assert note.names == ()  # Obsidian does not resolve a link by an alias


def test_the_resolver_finds_names_and_dendron_patterns() -> None:
    resolver = LinkResolver(
        ["pages/auth___sessions.md", "notes/proj.auth.keys.md", "notes/proj.auth.jwt.md"],
        {"pages/auth___sessions.md": ["auth/sessions", "login sessions"]},
    )
    assert resolver.resolve("Login Sessions") == "pages/auth___sessions.md"
    assert resolver.resolve("auth/sessions") == "pages/auth___sessions.md"
    assert resolver.resolve("proj.auth.*") == "notes/proj.auth.jwt.md"
    assert resolver.resolve("nothing.*") is None
    assert "login sessions" in resolver.names_of("pages/auth___sessions.md")
    link = parse_wikilink("alias|a.b#h", syntax="dendron")
    assert (link.target, link.alias, link.heading) == ("a.b", "alias", "h")
    spaced = parse_wikilink("Add vault | dendron://site/a.b#add", syntax="dendron")
    assert (spaced.target, spaced.vault, spaced.heading) == ("a.b", "dendron://site/", "add")


def test_a_moved_logseq_page_says_its_new_name_where_it_had_a_title() -> None:
    new = "pages/auth___login___sessions.md"
    titled = "title:: Auth/Sessions\nalias:: login\n\n- text\n"
    assert moved_text(LOGSEQ, titled, new) == titled.replace("Auth/Sessions", "auth/login/sessions")
    yaml = "---\ntitle: Auth/Sessions\n---\n- text\n"
    assert moved_text(LOGSEQ, yaml, new) == yaml.replace("Auth/Sessions", "auth/login/sessions")
    assert moved_text(LEGACY, titled, "pages/auth%2Flogin.md").startswith("title:: auth/login\n")
    plain = "alias:: login\n\n- title:: a block's, not the page's\n"
    for dialect, text in [(LOGSEQ, plain), (DENDRON, "---\ntitle: JWT\n---\n"), (OBSIDIAN, yaml)]:
        assert moved_text(dialect, text, new) == text  # named by its file: nothing to change


def test_foam_link_definitions_follow_a_moved_note_in_their_own_form() -> None:
    paths = {"projects/site.md", "projects/my plan.md", "journal/day.md", "inbox.md"}
    moved = ("projects/site.md", "projects/web/site.md")
    inbox = (
        '[site]: projects/site.md "Site"\n'
        "[site2]: projects/site\n"
        "[web]: https://example.org/projects/site.md\n"
        '[//begin]: # "Autogenerated link references"\n'
    )
    assert relink_definitions(inbox, ("inbox.md", "inbox.md"), moved, paths) == (
        '[site]: projects/web/site.md "Site"\n'
        "[site2]: projects/web/site\n"
        "[web]: https://example.org/projects/site.md\n"
        '[//begin]: # "Autogenerated link references"\n'
    )
    own = "[day]: ../journal/day.md\n[plan]: <my plan.md>\n[plan2]: my%20plan.md\n"
    assert relink_definitions(own, moved, moved, paths) == (
        "[day]: ../../journal/day.md\n[plan]: <../my plan.md>\n[plan2]: ../my%20plan.md\n"
    )
