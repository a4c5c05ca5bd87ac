"""An agent's ADD, UPDATE and MERGE in a Logseq graph, a Dendron vault and a Foam workspace,
written as each tool writes its own files (checked against each dialect's rules), and read
back as the tool reads them."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from bridge.core.dialect import Dendron, Logseq
from bridge.core.entry import Note, parse_note
from bridge.runtime import Bridge
from bridge.vault.scan import scan_vault
from tests.curate.helpers import add_op, run

PROPERTY = re.compile(r"^[a-z][a-z0-9_-]*:: \S.*$")
# A Logseq outline line: a bullet at some depth (tabs), or a block's continuation line.
OUTLINE = re.compile(r"^\t*- \S.*$|^\t*  .*$|^\t*-$")


def read(bridge: Bridge, path: str) -> Note:
    return bridge.store.read(path).parse()


def assert_logseq_page(text: str) -> None:
    """What Logseq opens as its own: property lines, then an outline; no YAML, no heading
    line outside a block, no link to a `pages/` path."""
    assert not text.startswith("---")
    lines = text.rstrip("\n").split("\n")
    head = 0
    while head < len(lines) and lines[head].strip():
        assert PROPERTY.match(lines[head]) or OUTLINE.match(lines[head]), lines[head]
        if not PROPERTY.match(lines[head]):
            break
        head += 1
    for line in lines[head:]:
        assert not line.strip() or OUTLINE.match(line), f"not an outline line: {line!r}"
    assert "[[pages/" not in text


def test_a_logseq_add_writes_a_namespaced_page_with_properties_and_blocks(vaults: Any) -> None:
    bridge = vaults("logseq")
    result = run(
        bridge,
        add_op(
            "billing/cycle/dunning.md",
            title="Dunning letters",
            summary="Letters go out three days after a failed charge.",
            tags=["billing", "dunning"],
            relations=[
                "@pages/Auth___Key Rotation.md - keys sign the payment links",
                "@billing/plans/annual.md - yearly plans dun too",
            ],
            raw_concept={"task": "document dunning", "source": "chat 2026-11-30"},
            narrative="Letters go out on day 3.\n\nA second letter:\n- on day 7\n- on day 14",
            snippets=[{"language": "ts", "code": "sendDunning(account)\n\nlog(account)"}],
        ),
    )
    assert result.results[0].status == "applied", result.results[0].message
    path = "pages/billing___cycle___dunning.md"
    text = (bridge.store.root / path).read_text()
    assert_logseq_page(text)
    assert "status:: draft\n" in text and "alias:: Dunning letters\n" in text
    assert re.search(r"^created:: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", text, re.M)
    # Relations as the pages' own names: an existing page, and one that will exist.
    assert "\t- [[Auth/Key Rotation]] - keys sign the payment links\n" in text
    assert "\t- [[billing/plans/annual]] - yearly plans dun too\n" in text
    note = read(bridge, path)
    assert note.title == "billing/cycle/dunning" and note.aliases == ("Dunning letters",)
    assert note.entry.summary == "Letters go out three days after a failed charge."
    assert note.entry.tags == ("billing", "dunning") and note.entry.status == "draft"
    assert note.entry.raw_concept.source == "chat 2026-11-30"
    narrative = "Letters go out on day 3.\n\nA second letter:\n- on day 7\n- on day 14"
    assert note.entry.narrative == narrative  # read back as it was given
    assert note.entry.snippets[0].code == "sendDunning(account)\n\nlog(account)"
    assert "\t  sendDunning(account)\n\t  \n\t  log(account)\n" in text  # one block
    # In the tree under billing/cycle; its relation resolves by the page's name.
    resolved = bridge.index.link_resolver().resolve("Auth/Key Rotation")
    assert resolved == "pages/Auth___Key Rotation.md"
    report = scan_vault(bridge.store)
    assert report.problems == [] and report.summary()["folders"] == 4


def test_a_logseq_add_into_the_flat_pages_folder_is_refused_for_lack_of_levels(
    vaults: Any,
) -> None:
    bridge = vaults("logseq")
    result = run(bridge, add_op("dunning.md", title="Dunning"))
    assert result.results[0].status == "failed"
    assert "2 or 3 folders" in result.results[0].message


def test_a_logseq_update_edits_lines_in_place_and_keeps_the_rest(vaults: Any) -> None:
    bridge = vaults("logseq")
    run(bridge, add_op("billing/cycle/dunning.md", title="Dunning", narrative="Day 3."))
    path = "pages/billing___cycle___dunning.md"
    before = (bridge.store.root / path).read_text().split("\n")
    result = run(
        bridge,
        {
            "type": "UPDATE",
            "path": "billing/cycle/dunning.md",
            "summary": "Letters on days 3, 7 and 14.",
            "relations": ["@pages/auth___sessions.md - a session is needed to pay"],
            "narrative": "Days 3, 7 and 14.",
        },
    )
    assert result.results[0].status == "applied", result.results[0].message
    text = (bridge.store.root / path).read_text()
    assert_logseq_page(text)
    after = text.split("\n")
    # (`updated::` is set to the time of the UPDATE, which may be the second of the ADD.)
    changed = [line for line in after if line not in before and not line.startswith("updated")]
    assert sorted(changed) == sorted(
        [
            "description:: Letters on days 3, 7 and 14.",
            "- ## Relations",
            # The page is named by its `title:: Auth/Sessions`.
            "\t- [[Auth/Sessions]] - a session is needed to pay",
            "\t- Days 3, 7 and 14.",
        ]
    )
    gone = [line for line in before if line not in after and not line.startswith("updated")]
    assert gone == ["\t- Day 3."]
    assert next(line for line in before if line.startswith("created:: ")) in after
    assert read(bridge, path).entry.narrative == "Days 3, 7 and 14."


def test_a_logseq_update_of_a_human_page_keeps_its_form(vaults: Any) -> None:
    bridge = vaults("logseq")
    path = "pages/auth___sessions.md"
    before = (bridge.store.root / path).read_text()
    result = run(
        bridge,
        {"type": "UPDATE", "path": path, "summary": "Sessions last 8 hours.", "tags": ["auth"]},
    )
    assert result.results[0].status == "pending_review"  # a person's page
    bridge.reviews.approve(result.results[0].review_id or 0)
    after = (bridge.store.root / path).read_text()
    assert_logseq_page(after)
    old, new = before.split("\n"), after.split("\n")
    assert [line for line in new if line not in old] == [
        "tags:: auth",
        "description:: Sessions last 8 hours.",
        next(line for line in new if line.startswith("updated:: ")),
        "author:: agent:tester",
    ]
    assert [line for line in old if line not in new] == [
        "tags:: security, [[auth flow]]",
        "description:: Sessions last 12 hours and are renewed on activity.",
    ]


def test_a_logseq_merge_folds_a_page_and_points_its_links_at_the_merged_one(
    vaults: Any,
) -> None:
    bridge = vaults("logseq")
    run(bridge, add_op("auth/keys/rotation.md", title="Rotation", narrative="Every 90 days."))
    result = run(
        bridge,
        {
            "type": "MERGE",
            "path": "auth/keys/rotation.md",
            "merge_from": ["pages/Auth___Key Rotation.md"],
            "reason": "one page on rotation",
        },
    )
    assert result.results[0].status == "pending_review"
    bridge.reviews.approve(result.results[0].review_id or 0)
    merged = (bridge.store.root / "pages/auth___keys___rotation.md").read_text()
    assert_logseq_page(merged)
    assert not (bridge.store.root / "pages/Auth___Key Rotation.md").exists()
    assert "Merged from: @pages/Auth___Key Rotation.md" in merged
    # The journal linked the page by its alias; the sessions page by its name: both now
    # name the merged page.
    journal = (bridge.store.root / "journals/2026_11_02.md").read_text()
    sessions = (bridge.store.root / "pages/auth___sessions.md").read_text()
    assert "[[auth/keys/rotation]]" in journal and "[[auth/keys/rotation]]" in sessions
    assert scan_vault(bridge.store).problems == []


def test_the_decay_job_writes_a_logseq_status_and_touches_no_other_line(vaults: Any) -> None:
    bridge = vaults("logseq")
    path = "pages/auth___sessions.md"
    before = (bridge.store.root / path).read_bytes()
    bridge.lifecycle.record_update(path, "stable", dt.datetime.now(dt.UTC), "human")
    for _ in range(12):  # used often: core
        bridge.lifecycle.record_access({path: "stable"}, dt.datetime.now(dt.UTC))
    report = bridge.decay(dt.datetime.now(dt.UTC))
    assert [(t.path, t.to_status) for t in report.transitions] == [(path, "core")]
    after = (bridge.store.root / path).read_bytes()
    assert after == before.replace(b"status:: stable\n", b"status:: core\n")
    assert read(bridge, path).entry.status == "core"


def test_a_dendron_add_writes_a_dotted_note_with_id_and_epoch_dates(vaults: Any) -> None:
    bridge = vaults("dendron")
    result = run(
        bridge,
        add_op(
            "proj/auth/api_keys.md",
            title="API keys",
            summary="Partner keys rotate yearly.",
            relations=["@proj/auth/jwt.md - both are credentials"],
            narrative="Keys rotate yearly.",
        ),
    )
    assert result.results[0].status == "applied", result.results[0].message
    path = "notes/proj.auth.api_keys.md"
    text = (bridge.store.root / path).read_text()
    head = text.split("---\n")[1].split("\n")
    assert re.fullmatch(r"id: [0-9a-z]{23}", head[0])
    assert head[1:3] == ["title: API keys", "desc: Partner keys rotate yearly."]
    updated, created = (int(line.split(": ")[1]) for line in head[3:5])
    assert head[3].startswith("updated: ") and head[4].startswith("created: ")
    assert updated == created and abs(updated / 1000 - dt.datetime.now().timestamp()) < 3600
    assert "# API keys" not in text  # Dendron shows `title`; the body has no heading for it
    assert "- [[proj.auth.jwt]] - both are credentials" in text
    note = read(bridge, path)
    assert note.title == "API keys" and note.entry.summary == "Partner keys rotate yearly."
    assert note.problems == ()
    report = scan_vault(bridge.store)
    assert [p.path for p in report.problems if p.code != "unresolved_link"] == []
    assert report.unresolved == 1  # still only the link into the other vault


def test_a_dendron_update_keeps_epoch_milliseconds_and_the_title(vaults: Any) -> None:
    bridge = vaults("dendron")
    path = "notes/proj.auth.jwt.md"
    before = (bridge.store.root / path).read_text()
    result = run(
        bridge,
        {
            "type": "UPDATE",
            "path": "proj/auth/jwt.md",  # the tree path names the dotted note
            "title": "JWT lifetime",
            "summary": "Access tokens live 12 hours.",
            "relations": ["@notes/proj.auth.md|auth overview - the parent"],
        },
    )
    assert result.results[0].status == "pending_review"
    bridge.reviews.approve(result.results[0].review_id or 0)
    after = (bridge.store.root / path).read_text()
    assert re.search(r"^updated: \d{13}$", after, re.M)
    assert "title: JWT lifetime\n" in after and "desc: Access tokens live 12 hours.\n" in after
    assert "created: 1731200000000\n" in after and "id: cnslfarfqeclfb6iqodb71f\n" in after
    assert "- [[auth overview|proj.auth]] - the parent" in after
    assert "## Summary" in after and after.count("# ") == before.count("# ") + 1
    assert read(bridge, path).problems == ()


def test_a_dendron_merge_rewrites_alias_first_links(vaults: Any) -> None:
    bridge = vaults("dendron")
    result = run(
        bridge,
        {
            "type": "MERGE",
            "path": "notes/proj.auth.jwt.md",
            "merge_from": ["notes/proj.auth.keys.md"],
        },
    )
    bridge.reviews.approve(result.results[0].review_id or 0)
    auth = (bridge.store.root / "notes/proj.auth.md").read_text()
    # The alias stays first, the vault prefix and the heading are kept.
    assert "[[key rotation|dendron://personal/proj.auth.jwt#rotation]]" in auth
    merged = parse_note(
        "notes/proj.auth.jwt.md",
        (bridge.store.root / "notes/proj.auth.jwt.md").read_text(),
        Dendron(vaults=("notes",)),
    )
    assert merged.problems == () and "Signing keys rotate" in merged.body
    assert "[[proj.auth.keys" not in merged.body  # its own links to the source: itself now


def test_a_dendron_merge_leaves_a_pattern_reference_as_it_is(vaults: Any) -> None:
    bridge = vaults("dendron", review_rules=[])
    overview = bridge.store.root / "notes/proj.auth.md"
    overview.write_text(overview.read_text() + "\nEvery auth note: ![[proj.auth.*]]\n")
    bridge.sync()
    merge = {
        "type": "MERGE",
        "path": "notes/proj.auth.keys.md",
        "merge_from": ["notes/proj.auth.jwt.md"],
    }
    assert run(bridge, merge).results[0].status == "applied"
    auth = overview.read_text()
    assert "[[JWT tokens|proj.auth.keys]]" in auth  # a link to the merged note follows it
    # A pattern means every note it matches, not the one it happened to find first: it stays.
    assert "Every auth note: ![[proj.auth.*]]\n" in auth


def test_a_logseq_page_is_linked_by_the_title_that_names_it(vaults: Any) -> None:
    """A page whose `title::` differs from its file name is that title in Logseq: a link by
    the file name would open a new, empty page."""
    bridge = vaults("logseq", review_rules=[])
    root = bridge.store.root
    (root / "pages/sso.md").write_text("title:: Single sign-on\n\n- We use Okta for SSO.\n")
    (root / "pages/okta.md").write_text("- Okta is our identity provider.\n")
    deploy = root / "pages/Deploy.md"
    deploy.write_text(deploy.read_text() + "- Log in with [[okta]] first. Ask #okta.\n")
    (root / "pages/vendors.md").write_text("tags:: okta, billing\n\n- Our vendors.\n")
    bridge.sync()
    add = add_op(
        "ops/access/login.md",
        title="Login",
        summary="How to log in.",
        relations=["@pages/sso.md - the provider"],
    )
    assert run(bridge, add).results[0].status == "applied"
    assert (
        "\t- [[Single sign-on]] - the provider\n"
        in (root / "pages/ops___access___login.md").read_text()
    )
    merge = {"type": "MERGE", "path": "pages/sso.md", "merge_from": ["pages/okta.md"]}
    assert run(bridge, merge).results[0].status == "applied"
    # Links, bare tags and `tags::` items naming the merged page name the page it joined.
    assert "- Log in with [[Single sign-on]] first. Ask #[[Single sign-on]].\n" in (
        deploy.read_text()
    )
    assert (root / "pages/vendors.md").read_text().startswith("tags:: Single sign-on, billing\n")
    assert (root / "pages/sso.md").read_text().startswith("title:: Single sign-on\n")
    assert bridge.index.link_resolver().resolve("Single sign-on") == "pages/sso.md"


def test_a_foam_add_writes_the_entry_format_with_its_title(vaults: Any) -> None:
    bridge = vaults("foam")
    result = run(bridge, add_op("projects/web/launch.md", title="Launch plan", summary="In March."))
    assert result.results[0].status == "applied"
    note = read(bridge, "projects/web/launch.md")
    assert note.title == "Launch plan" and note.description == "In March."


def test_a_logseq_dialect_reads_the_written_page_like_logseq(vaults: Any) -> None:
    bridge = vaults("logseq")
    assert isinstance(bridge.store.dialect, Logseq)
    run(bridge, add_op("ops/oncall/rota.md", title="On-call rota", narrative="Weekly."))
    found = bridge.engine.search("on-call rota")
    assert found.sources and found.sources[0].path == "pages/ops___oncall___rota.md"


def test_a_logseq_page_with_yaml_frontmatter_keeps_it(vaults: Any) -> None:
    bridge = vaults("logseq")
    page = bridge.store.root / "pages" / "Deploy.md"
    page.write_text("---\ntags: [ops]\n---\n" + page.read_text())
    bridge.sync()
    result = run(bridge, {"type": "UPDATE", "path": "pages/Deploy.md", "summary": "Tuesdays."})
    bridge.reviews.approve(result.results[0].review_id or 0)
    text = page.read_text()
    assert text.startswith("---\ntags: [ops]\ndescription: Tuesdays.\n")  # not converted
    assert "description::" not in text
    assert read(bridge, "pages/Deploy.md").entry.summary == "Tuesdays."


def test_the_decay_job_writes_a_dendron_status_and_keeps_epoch_dates(vaults: Any) -> None:
    bridge = vaults("dendron")
    path = "notes/proj.auth.jwt.md"
    before = (bridge.store.root / path).read_bytes()
    for _ in range(12):
        bridge.lifecycle.record_access({path: "stable"}, dt.datetime.now(dt.UTC))
    report = bridge.decay(dt.datetime.now(dt.UTC))
    assert [(t.path, t.to_status) for t in report.transitions] == [(path, "core")]
    after = (bridge.store.root / path).read_bytes()
    assert after == before.replace(b"status: stable\n", b"status: core\n")
