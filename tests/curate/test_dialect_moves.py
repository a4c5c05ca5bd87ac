"""An agent's MOVE in a Logseq graph, a Dendron vault and a Foam workspace: the note gets the
file name the tool would give it, keeps everything a move need not change, its history
follows it, and every link to it is rewritten as the tool writes links (checked against each
dialect's rules, and read back as the tool reads them)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bridge.core.entry import parse_note
from bridge.runtime import Bridge
from bridge.state.lifecycle_store import LifecycleView
from bridge.vault.scan import scan_vault
from tests.curate.helpers import add_op, run
from tests.curate.test_dialect_writes import assert_logseq_page, read

DUNNING = "pages/billing___cycle___dunning.md"
MOVED = "pages/billing___collections___dunning.md"
SESSIONS = "pages/auth___sessions.md"
LOGIN = "pages/auth___login___sessions.md"
JWT = "notes/proj.auth.jwt.md"
TOKENS = "notes/proj.tokens.jwt.md"


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def life(bridge: Bridge, path: str) -> LifecycleView:
    return bridge.lifecycle.view(path, read(bridge, path).entry.status, None, now())


def append(bridge: Bridge, path: str, text: str) -> bytes:
    """Add lines to a note as its owner would, and let the bridge see them; its new bytes."""
    file = bridge.store.root / path
    file.write_text(file.read_text() + text) if file.exists() else file.write_text(text)
    bridge.sync()
    return file.read_bytes()


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(lines only in `after`, lines only in `before`)."""
    old, new = before.split("\n"), after.split("\n")
    return [line for line in new if line not in old], [line for line in old if line not in new]


def _dunning_with_history(bridge: Bridge) -> bytes:
    """An agent's namespaced page with an update and uses, and human pages linking to it by
    its name (any case), by its alias, in an embed and a tag, and in code."""
    add = add_op(
        "billing/cycle/dunning.md",
        title="Dunning letters",
        summary="Letters go out three days after a failed charge.",
        relations=["@pages/Auth___Key Rotation.md - keys sign the payment links"],
        narrative="Letters go out on day 3.",
    )
    assert run(bridge, add).results[0].status == "applied"
    update = {"type": "UPDATE", "path": "billing/cycle/dunning.md", "narrative": "Days 3 and 7."}
    assert run(bridge, update).results[0].status == "applied"
    for _ in range(3):
        bridge.lifecycle.record_access({DUNNING: "draft"}, now())
    append(
        bridge,
        "pages/Deploy.md",
        "- Failed charges go to [[Billing/Cycle/Dunning]], also called [[dunning letters]].\n"
        "- {{embed [[billing/cycle/dunning]]}} #[[Billing/Cycle/Dunning]]\n"
        "- Typed as code: `[[billing/cycle/dunning]]`\n",
    )
    append(
        bridge, "journals/2026_11_03.md", "- Sent the first letters ([[billing/cycle/dunning]]).\n"
    )
    return (bridge.store.root / DUNNING).read_bytes()


def test_a_logseq_move_renames_the_page_file_and_its_links_follow_by_name(vaults: Any) -> None:
    bridge = vaults("logseq")
    data = _dunning_with_history(bridge)
    root = bridge.store.root
    deploy_before = (root / "pages/Deploy.md").read_text()
    before = life(bridge, DUNNING)
    move = {
        "type": "MOVE",
        "from": "billing/cycle/dunning.md",
        "path": "billing/collections/dunning.md",
    }
    (outcome,) = run(bridge, move).results
    assert outcome.status == "applied", outcome.message
    # The file name Logseq gives the page `billing/collections/dunning` (`:triple-lowbar`); a
    # page without `title::` is named by its file, so not one byte of it changes.
    assert not (root / DUNNING).exists()
    assert (root / MOVED).read_bytes() == data
    note = read(bridge, MOVED)
    assert note.title == "billing/collections/dunning" and note.aliases == ("Dunning letters",)
    assert note.entry.summary == "Letters go out three days after a failed charge."
    # Links by the page's name follow it, in Logseq's form; the alias still names the page, so
    # a link by it stays; code is no link.
    deploy = (root / "pages/Deploy.md").read_text()
    added, gone = changed_lines(deploy_before, deploy)
    assert added == [
        "- Failed charges go to [[billing/collections/dunning]], also called [[dunning letters]].",
        "- {{embed [[billing/collections/dunning]]}} #[[billing/collections/dunning]]",
    ]
    assert len(gone) == 2 and "- Typed as code: `[[billing/cycle/dunning]]`" in deploy
    journal = (root / "journals/2026_11_03.md").read_text()
    assert journal == "- Sent the first letters ([[billing/collections/dunning]]).\n"
    for text in ((root / MOVED).read_text(), deploy, journal):
        assert_logseq_page(text)
    resolver = bridge.index.link_resolver()
    assert resolver.resolve("Billing/Collections/Dunning") == MOVED
    assert resolver.resolve("dunning letters") == MOVED
    assert resolver.resolve("billing/cycle/dunning") is None
    # Its history follows it: uses, updates, its writer.
    after = life(bridge, MOVED)
    assert (after.access_count, after.update_count) == (before.access_count, 1)
    assert after.last_writer == "agent:tester" and abs(after.importance - before.importance) < 0.01
    assert DUNNING not in bridge.lifecycle.tracked_paths()
    assert scan_vault(bridge.store).problems == []
    # Still the agent's page: its next UPDATE applies at once.
    update = {"type": "UPDATE", "path": "billing/collections/dunning.md", "summary": "Day 3."}
    assert run(bridge, update).results[0].status == "applied"


def test_a_logseq_move_rewrites_bare_tags_and_tags_property_items_naming_the_page(
    vaults: Any,
) -> None:
    """`#billing/cycle/dunning` and a plain `tags::` item are references to the page in
    Logseq as much as `[[...]]`: left as they were, they would make an empty page of the old
    name. `#dunning` names another page, and code is no reference."""
    bridge = vaults("logseq", review_rules=[])
    _dunning_with_history(bridge)
    root = bridge.store.root
    before = append(
        bridge,
        "pages/Billing notes.md",
        "tags:: finance, Billing/Cycle/Dunning, #billing/cycle/dunning\n\n"
        "- Reminders follow #billing/cycle/dunning. See #dunning too.\n"
        "- In code: `#billing/cycle/dunning`\n",
    ).decode()
    move = {
        "type": "MOVE",
        "from": "billing/cycle/dunning.md",
        "path": "billing/collections/dunning.md",
    }
    assert run(bridge, move).results[0].status == "applied"
    text = (root / "pages/Billing notes.md").read_text()
    added, gone = changed_lines(before, text)
    assert added == [
        "tags:: finance, billing/collections/dunning, #billing/collections/dunning",
        "- Reminders follow #billing/collections/dunning. See #dunning too.",
    ]
    assert len(gone) == 2 and "- In code: `#billing/cycle/dunning`\n" in text
    assert_logseq_page(text)
    note = read(bridge, "pages/Billing notes.md")
    assert note.entry.tags[:2] == ("finance", "billing/collections/dunning")
    assert not any("cycle" in tag for tag in note.entry.tags)


def test_a_logseq_move_of_a_humans_page_renames_its_title_property_after_review(
    vaults: Any,
) -> None:
    bridge = vaults("logseq")
    root = bridge.store.root
    append(bridge, "pages/Deploy.md", "- Log in first: [[Auth/Sessions]]\n")
    bridge.lifecycle.record_access({SESSIONS: "stable"}, now())
    data = (root / SESSIONS).read_text()
    rotation = (root / "pages/Auth___Key Rotation.md").read_bytes()
    move = {"type": "MOVE", "from": "auth/sessions.md", "path": "auth/login/sessions.md"}
    (outcome,) = run(bridge, move).results
    assert outcome.status == "pending_review" and "last written by a human" in outcome.message
    assert (root / SESSIONS).read_text() == data and not (root / LOGIN).exists()
    review = bridge.reviews.get(outcome.review_id or 0)
    assert f"rename from {SESSIONS}\nrename to {LOGIN}\n" in review.diff
    assert "-title:: Auth/Sessions\n+title:: auth/login/sessions\n" in review.diff
    bridge.reviews.approve(review.id)
    # `title::` names a Logseq page: it says the new name, or the page would not have moved.
    # Every other line stays.
    text = (root / LOGIN).read_text()
    assert_logseq_page(text)
    assert changed_lines(data, text) == (["title:: auth/login/sessions"], ["title:: Auth/Sessions"])
    note = read(bridge, LOGIN)
    assert note.title == "auth/login/sessions"
    assert note.aliases == ("login sessions", "session cookies")
    assert note.entry.status == "stable" and note.entry.tags == ("security", "auth flow")
    assert "- Log in first: [[auth/login/sessions]]\n" in (root / "pages/Deploy.md").read_text()
    # A link by the page's alias still finds it: that page is not rewritten.
    assert (root / "pages/Auth___Key Rotation.md").read_bytes() == rotation
    assert bridge.index.link_resolver().resolve("login sessions") == LOGIN
    assert bridge.index.link_resolver().resolve("Auth/Sessions") is None
    assert life(bridge, LOGIN).access_count == 1
    assert scan_vault(bridge.store).problems == []
    # Still the human's: the next agent change to it waits for review again.
    update = {"type": "UPDATE", "path": LOGIN, "summary": "Sessions last 8 hours."}
    assert run(bridge, update).results[0].status == "pending_review"


def test_rejecting_an_applied_logseq_move_puts_the_page_its_title_and_links_back(
    vaults: Any,
) -> None:
    bridge = vaults("logseq", review_rules=[])
    root = bridge.store.root
    deploy = append(bridge, "pages/Deploy.md", "- Log in first: [[Auth/Sessions]]\n")
    bridge.lifecycle.record_access({SESSIONS: "stable"}, now())
    data = (root / SESSIONS).read_bytes()
    move = {"type": "MOVE", "from": SESSIONS, "path": "auth/login/sessions.md", "impact": "high"}
    (outcome,) = run(bridge, move).results
    assert outcome.status == "applied" and outcome.review_id is not None
    assert b"title:: auth/login/sessions\n" in (root / LOGIN).read_bytes()
    bridge.reviews.reject(outcome.review_id, "sessions belong to auth")
    assert (root / SESSIONS).read_bytes() == data and not (root / LOGIN).exists()
    assert (root / "pages/Deploy.md").read_bytes() == deploy
    assert life(bridge, SESSIONS).access_count == 1
    assert bridge.index.link_resolver().resolve("Auth/Sessions") == SESSIONS


def test_a_dendron_move_keeps_id_title_desc_and_dates_and_relinks_alias_first(
    vaults: Any,
) -> None:
    bridge = vaults("dendron")
    root = bridge.store.root
    auth_before = append(
        bridge,
        "notes/proj.auth.md",
        "\nThe [[token rules|dendron://personal/proj.auth.jwt#summary]]: ![[proj.auth.jwt]]\n\n"
        "Every auth note: ![[proj.auth.*]]\n",
    ).decode()
    bridge.lifecycle.record_access({JWT: "stable"}, now())
    data = (root / JWT).read_bytes()
    move = {"type": "MOVE", "from": "proj/auth/jwt.md", "path": "proj/tokens/jwt.md"}
    (outcome,) = run(bridge, move).results
    assert outcome.status == "pending_review"  # a person's note
    bridge.reviews.approve(outcome.review_id or 0)
    # The dotted name Dendron gives `proj/tokens/jwt`; `id`, `title`, `desc`, `created` and
    # `updated` (epoch milliseconds, as they were: a move is no update) are the note's bytes.
    assert not (root / JWT).exists() and (root / TOKENS).read_bytes() == data
    note = read(bridge, TOKENS)
    assert note.problems == () and note.title == "JWT expiry"
    assert note.entry.summary == "Access tokens live 24 hours; refresh tokens 30 days."
    assert note.entry.updated == dt.datetime.fromtimestamp(1732000000, dt.UTC)
    # Links put the label first and keep the vault and the heading; a pattern is no link
    # to one note and stays.
    auth = (root / "notes/proj.auth.md").read_text()
    added, gone = changed_lines(auth_before, auth)
    assert added == [
        "Auth is split into [[JWT tokens|proj.tokens.jwt]] and "
        "[[key rotation|dendron://personal/proj.auth.keys#rotation]].",
        "The [[token rules|dendron://personal/proj.tokens.jwt#summary]]: ![[proj.tokens.jwt]]",
    ]
    assert len(gone) == 2 and "Every auth note: ![[proj.auth.*]]\n" in auth
    assert auth.split("---")[1] == auth_before.split("---")[1]  # its frontmatter untouched
    linking = parse_note("notes/proj.auth.md", auth, bridge.store.dialect)
    assert linking.problems == ()
    resolver = bridge.index.link_resolver()
    assert (
        resolver.resolve("proj.tokens.jwt") == TOKENS and resolver.resolve("proj.auth.jwt") is None
    )
    assert life(bridge, TOKENS).access_count == 1
    report = scan_vault(bridge.store)
    assert [p.code for p in report.problems] == ["unresolved_link"]  # the other vault's, as before


def test_an_agents_dendron_move_applies_at_once_and_keeps_updated(vaults: Any) -> None:
    bridge = vaults("dendron")
    root = bridge.store.root
    add = add_op("proj/auth/api_keys.md", title="API keys", summary="Partner keys rotate yearly.")
    assert run(bridge, add).results[0].status == "applied"
    data = (root / "notes/proj.auth.api_keys.md").read_bytes()
    append(bridge, "notes/proj.md", "\nCredentials: [[API keys|proj.auth.api_keys]]\n")
    move = {"type": "MOVE", "from": "proj/auth/api_keys.md", "path": "proj/keys/api_keys.md"}
    (outcome,) = run(bridge, move).results
    assert outcome.status == "applied", outcome.message
    assert (root / "notes/proj.keys.api_keys.md").read_bytes() == data
    assert "Credentials: [[API keys|proj.keys.api_keys]]\n" in (root / "notes/proj.md").read_text()
    assert read(bridge, "notes/proj.keys.api_keys.md").problems == ()


def test_a_foam_move_keeps_the_title_and_every_link_resolving(vaults: Any) -> None:
    bridge = vaults("foam", review_rules=[])
    root = bridge.store.root
    old, new = "projects/website-redesign.md", "projects/web/website-redesign.md"
    index = append(
        bridge,
        "projects/index.md",
        '\n[website-redesign]: website-redesign.md "Website redesign"\n',
    ).decode()
    journal = (root / "journal/2026-11-02.md").read_bytes()
    data = append(bridge, old, '\n[2026-11-02]: ../journal/2026-11-02.md "2026-11-02"\n')
    problems = scan_vault(bridge.store).problems  # `[[placeholder-note]]`, a note to write
    (outcome,) = run(bridge, {"type": "MOVE", "from": old, "path": new}).results
    assert outcome.status == "applied", outcome.message
    # Its title is its heading; its own definition is relative to its new folder.
    assert read(bridge, new).title == "Website redesign"
    assert (root / new).read_bytes() == data.replace(b"]: ../journal/", b"]: ../../journal/")
    # `[[website-redesign]]` still names the one note of that name: the links stay as they
    # are, and Foam's link reference definition points at the new file.
    assert (root / "journal/2026-11-02.md").read_bytes() == journal
    moved_index = (root / "projects/index.md").read_text()
    assert moved_index == index.replace("]: website-redesign.md", "]: web/website-redesign.md")
    assert bridge.index.link_resolver().resolve("website-redesign") == new
    assert scan_vault(bridge.store).problems == problems
