"""The query engine on real vaults: tiers, caches, OOD, relations, budgets, bad input."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bridge.core.entry import Entry, Relation, render_entry
from bridge.query.engine import QueryEngine
from bridge.query.lifecycle import StatusOnlyLifecycle
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from bridge.vault.store import VaultStore
from tests.conftest import CEILING, open_test_bridge, write_entries, write_notes


def edit(bridge: Bridge, path: str, old: str, new: str) -> None:
    """Change a note on disk and index it, as the watcher or the writer would."""
    target = bridge.store.root / path
    target.write_text(target.read_text().replace(old, new))
    file = bridge.store.read(path)
    bridge.index.upsert(file, file.parse())
    bridge.index.commit()


def test_a_clear_question_is_answered_directly_from_the_right_note(bridge: Bridge) -> None:
    result = bridge.engine.query("How long do JWT access tokens live?")
    assert result.tier == 2
    assert result.answer is not None and "24 h" in result.answer
    assert result.sources[0].path == "engineering/auth/jwt_expiry.md"
    assert result.sources[0].status == "core"
    assert result.sources[0].title == "JWT expiry"
    assert not result.ood
    assert result.latency_ms >= 0


def test_repeating_a_query_hits_the_exact_cache(bridge: Bridge) -> None:
    first = bridge.engine.query("refund window for annual plans")
    again = bridge.engine.query("  Refund   window for ANNUAL plans ")
    assert (first.tier, again.tier) == (2, 0)
    assert again.sources == first.sources
    assert again.query == "  Refund   window for ANNUAL plans "


def test_a_similar_query_hits_the_fuzzy_cache(bridge: Bridge) -> None:
    bridge.engine.query("refund window annual plans")
    similar = bridge.engine.query("what is the refund window of the annual plans?")
    assert similar.tier == 1
    different = bridge.engine.query("annual plans discount percentage")
    assert different.tier == 2


def test_cache_options_are_part_of_the_key(bridge: Bridge) -> None:
    bridge.engine.query("refund window annual plans", budget_words=100)
    assert bridge.engine.query("refund window annual plans", budget_words=50).tier == 2


def test_an_edit_after_a_cached_query_is_visible_at_once(bridge: Bridge) -> None:
    question = "How long do JWT access tokens live?"
    before = bridge.engine.query(question)
    assert "24 h" in (before.answer or "")
    generation = bridge.index.generation
    edit(bridge, "engineering/auth/jwt_expiry.md", "expire after 24 h", "expire after 12 h")
    assert bridge.index.generation == generation + 1
    after = bridge.engine.query(question)
    assert after.tier == 2
    assert "12 h" in (after.answer or "") and "expire after 24 h" not in (after.answer or "")


def accesses(bridge: Bridge, path: str) -> int:
    return bridge.lifecycle.view(path, "core", None, bridge.engine.clock()).access_count


def wait_for(predicate: Callable[[], bool], timeout: float = CEILING) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_the_notes_the_answer_cites_are_credited_and_the_other_sources_are_not(
    bridge: Bridge,
) -> None:
    result = bridge.engine.query("How long do JWT access tokens live?")
    cited = result.answered_from
    assert result.tier == 2 and cited and cited[0] == result.sources[0].path
    assert result.answer is not None
    assert all(f"[[{p.removesuffix('.md')}" in result.answer for p in cited)  # cited = credited
    others = [s.path for s in result.sources if s.path not in cited]
    assert others, "the test needs sources that merely appear"
    # Accesses are written in batches, a fraction of a second later.
    wait_for(lambda: all(accesses(bridge, p) == 1 for p in cited))
    again = bridge.engine.query("How long do JWT access tokens live?")  # the answer, delivered
    assert again.tier == 0 and again.query_id != result.query_id
    wait_for(lambda: all(accesses(bridge, p) == 2 for p in cited))
    bridge.engine.query("How long do JWT access tokens live?")
    bridge.close()  # closing writes what is still queued
    from bridge.runtime import open_bridge

    reopened = open_bridge(bridge.settings)
    try:
        assert all(accesses(reopened, p) == 3 for p in cited)
        assert all(accesses(reopened, other) == 0 for other in others)  # appearing is no use
    finally:
        reopened.close()


def test_searching_credits_nothing_and_opening_a_result_credits_it_once(bridge: Bridge) -> None:
    from bridge.query.uses import Credit

    found = bridge.engine.search("tokens refresh billing")
    paths = [s.path for s in found.sources]
    assert len(paths) >= 2 and found.query_id
    opened = paths[1]
    assert bridge.engine.use(found.query_id, opened) is Credit.CREDITED
    assert bridge.engine.use(found.query_id, opened) is Credit.ALREADY
    unlisted = next(p for p in bridge.index.paths() if p not in paths)
    assert bridge.engine.use(found.query_id, unlisted) is Credit.NOT_OFFERED
    assert bridge.engine.use("no-such-query", opened) is Credit.UNKNOWN_QUERY
    bridge.engine.lifecycle.flush()  # type: ignore[attr-defined]
    assert accesses(bridge, opened) == 1
    assert all(accesses(bridge, p) == 0 for p in paths if p != opened)


def test_uses_and_updates_reorder_near_equals_at_once(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "ops").mkdir(parents=True)
    for name, region in (("a", "eu-west-1"), ("b", "us-east-2")):
        text = f"# Deploy region\n\nThe billing service deploys to {region} every week.\n"
        (vault / "ops" / f"{name}.md").write_text(text)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        first = bridge.engine.search("billing deploy region")
        order = [s.path for s in first.sources]
        assert sorted(order) == ["ops/a.md", "ops/b.md"]
        behind = order[1]
        now = bridge.engine.clock()
        bridge.lifecycle.record_update(behind, None, now, "human")  # edited just now
        second = bridge.engine.search("billing deploy region")
        assert second.sources[0].path == behind
        assert second.sources[0].score == pytest.approx(
            next(s.score for s in first.sources if s.path == behind)
        )  # the score is relevance; the lifecycle only changed the order
    finally:
        bridge.close()


def test_budget_is_never_exceeded_and_is_filled_with_whole_blocks(bridge: Bridge) -> None:
    for budget in (10, 40, 120, 400):
        result = bridge.engine.search("tokens billing renewal refresh", budget_words=budget)
        assert 0 < result.words <= budget
        texts = [b.text for s in result.sources for b in s.blocks]
        notes = {p: (bridge.store.root / p).read_text() for p in {s.path for s in result.sources}}
        for source in result.sources:
            for block in source.blocks:
                assert block.text in notes[source.path]  # whole blocks, verbatim
        assert len(texts) == len(set(texts))


def test_relation_expansion_brings_in_linked_entries(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    hub = Entry(
        title="Zeppelin launch checklist",
        narrative="The zeppelin launch checklist has nine steps.",
        relations=(Relation("ops/weather/wind_limits", "wind limits for the launch"),),
    )
    spoke = Entry(title="Wind limits", narrative="Gusts above 20 knots ground every flight.")
    for path, entry in (("ops/launch/checklist.md", hub), ("ops/weather/wind_limits.md", spoke)):
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(render_entry(entry))
    bridge = open_test_bridge(vault, tmp_path / "state")
    result = bridge.engine.search("zeppelin launch checklist")
    by_path = {s.path: s for s in result.sources}
    assert result.sources[0].path == "ops/launch/checklist.md"
    related = by_path["ops/weather/wind_limits.md"]  # it holds none of the question's words
    assert related.via == "relation"
    assert related.related_from == "ops/launch/checklist.md"
    assert related.score < result.sources[0].score
    bridge.close()


@pytest.fixture
def big_bridge(tmp_path: Path) -> Bridge:
    vault = tmp_path / "vault"
    vault.mkdir()
    write_entries(vault, 60)
    bridge = open_test_bridge(vault, tmp_path / "state")
    yield bridge  # type: ignore[misc]
    bridge.close()


def test_out_of_domain_in_a_60_entry_vault(big_bridge: Bridge) -> None:
    result = big_bridge.engine.query("quantum chromodynamics lattice gauge theory")
    assert result.ood is True
    assert result.answer == "Nothing in memory about this."
    assert result.sources == []
    inside = big_bridge.engine.query("postgres replication lag replicas")
    assert not inside.ood and inside.sources


def test_one_unknown_word_in_a_matching_question_is_not_ood(big_bridge: Bridge) -> None:
    result = big_bridge.engine.query(
        "postgres replication lag between the primary and flibbertigibbet"
    )
    assert not result.ood
    assert result.sources[0].path.startswith("databases/postgres/")


def test_a_small_vault_holds_nothing_on_what_no_note_says_a_word_of(bridge: Bridge) -> None:
    assert bridge.index.note_count() < 50
    result = bridge.engine.query("quantum chromodynamics lattice gauge theory")
    assert result.ood and result.sources == []
    assert not bridge.engine.query("how long do JWT tokens live?").ood


def test_without_an_llm_a_question_that_needs_one_says_so_with_its_tier(
    template_vault: Path, tmp_path: Path
) -> None:
    # No confidence is high enough for a direct answer here: the question needs a model.
    bridge = open_bridge(
        Settings(vault=template_vault, state_dir=tmp_path / "s", tier_direct_confidence=1.0)
    )
    try:
        bridge.sync()
        result = bridge.engine.query("tokens")
        assert result.tier == 3 and result.answer is None
        assert {s.path for s in result.sources[:2]} == {
            "engineering/auth/jwt_expiry.md",
            "engineering/auth/session_refresh.md",
        }
        assert result.message is not None and "No LLM is configured" in result.message
        assert "tier 3" in result.message
        assert result.answered_from == []
    finally:
        bridge.close()


def test_scope_limits_the_search_to_a_folder(bridge: Bridge) -> None:
    result = bridge.engine.search("tokens renewal", scope="billing")
    assert result.sources and all(s.path.startswith("billing/") for s in result.sources)
    for outside in ("../etc", "/etc", "notes\\..\\..", "a\x00b"):
        with pytest.raises(ValueError, match=r"vault|NUL|`\\`"):
            bridge.engine.search("tokens", scope=outside)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "the of and to",
        '"unbalanced quote',
        "title:jwt (tokens OR -billing) AND",
        "- * ~ ^ : ( ) [ ] { } \\ / ! ?",
        "tokens~2 refresh^3 jwt*",
        "كم تدوم رموز الوصول",
        "访问令牌的有效期是多久",
        "🔥🚀 tokens 🎉",
        "x" * 300,
        "token " * 16_000,  # a 96 KB query: the longest accepted is 100,000 characters
    ],
)
def test_bad_input_never_raises(bridge: Bridge, text: str) -> None:
    result = bridge.engine.query(text)
    assert result.tier in {0, 1, 2, 3, 4}
    assert isinstance(result.sources, list)
    search = bridge.engine.search(text)
    assert search.words <= 500


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"text": "x" * 100_001}, "at most 100,000"),
        ({"text": "tokens", "budget_words": -5}, "budget_words"),
        ({"text": "tokens", "budget_words": 5}, "budget_words"),
        ({"text": "tokens", "limit": -1}, "limit"),
        ({"text": "tokens", "limit": 0}, "limit"),
    ],
)
def test_every_way_in_gets_the_same_bounds(
    bridge: Bridge, kwargs: dict[str, object], reason: str
) -> None:
    """MCP and the CLI reach the engine directly: it refuses what the HTTP schema refuses."""
    for run in (bridge.engine.query, bridge.engine.search):
        with pytest.raises(ValueError, match=reason):
            run(**kwargs)  # type: ignore[arg-type]


def test_only_common_words_says_so(bridge: Bridge) -> None:
    result = bridge.engine.query("what is the")
    assert result.sources == [] and result.message and "no searchable words" in result.message


def test_chinese_and_japanese_notes_are_findable(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes/会議.md").write_text(
        "# 週次会議\n\n東京の会議は毎週月曜日の午前十時に始まります。\n"
    )
    (vault / "notes/部署.md").write_text("# 部署\n\n大阪支社の経理部は三階にあります。\n")
    (vault / "notes/服务.md").write_text("# 服务器\n\n我们的数据库服务器每天凌晨三点自动备份。\n")
    (vault / "notes/english.md").write_text("# English\n\nThe weekly meeting is on Mondays.\n")
    bridge = open_test_bridge(vault, tmp_path / "state")
    for query, expected in [
        ("東京の会議", "notes/会議.md"),
        ("月曜日", "notes/会議.md"),
        ("経理部", "notes/部署.md"),
        ("数据库", "notes/服务.md"),
        ("自动备份", "notes/服务.md"),
    ]:
        result = bridge.engine.search(query)
        assert result.sources and result.sources[0].path == expected, query
    assert bridge.engine.search("東京の会議").sources[0].blocks[0].text.startswith("東京の会議")
    assert all(s.path != "notes/服务.md" for s in bridge.engine.search("大阪支社").sources)
    bridge.close()


def test_a_chinese_question_in_a_mostly_english_vault_finds_its_note(tmp_path: Path) -> None:
    """CJK text is matched by character pairs; in a vault of English notes they must score
    like words. They had a field of their own whose average length, over notes that mostly
    have none of it, made any Chinese note look hundreds of times too long: a Chinese
    question was answered "Nothing in memory"."""
    vault = tmp_path / "vault"
    write_entries(vault, 80)
    (vault / "plugins").mkdir()
    (vault / "plugins/chinese-calendar.md").write_text(
        "# Chinese Calendar\n\nPlugin ID: chinese-calendar\n\n"
        "符合中国习惯的日历，可以显示农历、节日、调休、节气等信息，支持月视图和年视图切换，"
        "支持点击日期创建笔记。\n"
    )
    (vault / "plugins/tasks.md").write_text(
        "# 任务管理\n\n在笔记中跟踪待办事项，支持截止日期、重复任务和查询。\n"
    )
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        for question, expected in [
            ("有没有能显示农历和节气的日历插件？", "plugins/chinese-calendar.md"),
            ("怎么跟踪待办事项和截止日期", "plugins/tasks.md"),
        ]:
            result = bridge.engine.query(question)
            assert not result.ood, question
            assert result.sources[0].path == expected, question
        # English questions are unchanged by the Chinese notes beside them.
        english = bridge.engine.query("eviction policy for the session cache")
        assert english.sources[0].path.startswith("databases/redis/")
    finally:
        bridge.close()


def test_results_point_at_their_lines(bridge: Bridge, template_vault: Path) -> None:
    result = bridge.engine.search("RS256 signing key rotation")
    source = result.sources[0]
    lines = (template_vault / source.path).read_text().split("\n")
    for block in source.blocks:
        if block.line is not None:
            assert block.text.split("\n")[0] in lines[block.line]


def test_searching_never_writes_a_note(bridge: Bridge, template_vault: Path) -> None:
    from tests.conftest import snapshot

    before = snapshot(template_vault)
    for text in ("jwt tokens", "billing", "rollback", "on call"):
        bridge.engine.query(text)
        bridge.engine.search(text)
    assert snapshot(template_vault) == before
    assert isinstance(bridge.store, VaultStore)


def test_fuzzy_cache_never_answers_a_question_about_something_else(big_bridge: Bridge) -> None:
    engine = big_bridge.engine
    first = engine.query("replication lag postgres primary")
    assert first.tier >= 2 and first.sources[0].path.startswith("databases/postgres/")
    other = engine.query("replication lag redis primary")  # Jaccard 0.6, another subject
    assert other.tier not in {0, 1}
    assert any(s.path.startswith("databases/redis/") for s in other.sources)
    padded = engine.query("replication lag postgres primary zorblaxian")  # unknown extra word
    assert padded.tier == 1 and padded.sources == first.sources


def test_the_window_search_on_a_thread_gives_the_same_results(bridge: Bridge) -> None:
    """A large index searches windows on a thread beside the other two searches; the threshold
    is lowered here so this small vault takes that path too."""
    params = bridge.engine.params
    alone = QueryEngine(bridge.index, StatusOnlyLifecycle(), params)
    beside = QueryEngine(bridge.index, StatusOnlyLifecycle(), replace(params, overlap_windows=0))
    for question in (
        "How long do JWT access tokens live?",
        "rollback runbook after a bad deploy",
        "seat caps on the team plan",
        "who is on call for incidents",
    ):
        a, b = alone.search(question), beside.search(question)
        assert a.sources and [s.model_dump() for s in a.sources] == [
            s.model_dump() for s in b.sources
        ]
    assert any(t.name.startswith("window-search") for t in threading.enumerate())
    beside.retriever.close()
    assert not any(t.name.startswith("window-search") for t in threading.enumerate())


def test_the_window_search_returns_as_many_windows_as_the_budget_can_use(bridge: Bridge) -> None:
    """One window per 5 budget words, at least 100, at most the configured limit (400)."""
    retriever = bridge.engine.retriever
    counts = [retriever.window_count(b) for b in (10, 500, 1000, 1500, 2000, 100_000)]
    assert counts == [100, 100, 200, 300, 400, 400]
    capped = QueryEngine(
        bridge.index, StatusOnlyLifecycle(), replace(bridge.engine.params, window_limit=50)
    )
    assert capped.retriever.window_count(2000) == 50
    capped.retriever.close()


def test_a_question_naming_a_notes_whole_title_finds_that_note_first(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    notes = {
        "themes/Things.md": "# Things\n\nA theme by Colin, light and dark.\n",
        "themes/Aurora.md": "# Aurora\n\nA dark theme with soft colours.\n",
        "plugins/things-link.md": (
            "# Things link\n\nLinks notes to tasks in the Things app. Things projects, Things "
            "areas and Things tags come across; it works with any theme.\n"
        ),
        "plugins/task-sync.md": "# Task sync\n\nSends tasks to Things and to other apps.\n",
    }
    write_notes(vault, notes)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        # The note that mentions "Things" four times and "theme" once does not outrank the
        # note the question names: "Things" (in the Themes folder).
        assert bridge.engine.search("Things theme").sources[0].path == "themes/Things.md"
        # A title word the question lacks ("link") names another note: no lift.
        assert bridge.engine.search("Things link").sources[0].path == "plugins/things-link.md"
    finally:
        bridge.close()


def test_a_page_and_its_copies_are_one_source_and_no_excerpt_repeats(tmp_path: Path) -> None:
    page = (
        "# Version history\n\nVersion history keeps every version of a note for a year. Open "
        "the file menu and pick Version history to restore an older version.\n\nVersions are "
        "saved every ten minutes while you edit, and once more when you close the note.\n"
    )
    notes = {
        "en/sync/history.md": page,
        "sandbox/history.md": page,  # a copy someone made to try things out
        "en/sync/plans.md": "# Plans\n\nSync keeps a year of version history on every plan.\n",
    }
    vault = write_notes(tmp_path / "vault", notes)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        found = bridge.engine.search("how do I restore an older version of a note?")
        paths = [s.path for s in found.sources]
        first = found.sources[0]
        assert {first.path, *first.also_in} == {"en/sync/history.md", "sandbox/history.md"}
        assert len(set(paths) & {"en/sync/history.md", "sandbox/history.md"}) == 1
        shown = [" ".join(b.text.split()) for s in found.sources for b in s.blocks]
        assert len(shown) == len(set(shown))  # the same paragraph is given once
        assert found.words == sum(len(t.split()) for t in shown)
    finally:
        bridge.close()


def test_a_copy_rewritten_since_is_a_source_of_its_own(tmp_path: Path) -> None:
    """Copies are compared by their text as it is now, not as it was when last compared."""
    answer = (
        "Version history keeps every version of a note for a year. Open the file menu and "
        "pick Version history to restore an older version."
    )
    aside = (
        "The sync service stores versions on servers in Frankfurt, encrypted end to end, "
        "and nobody at the company can read them, not even support staff on call."
    )
    rewritten = (
        "My team keeps its meeting minutes here as well, written by whoever chairs the "
        "week, and the past pages are moved to an archive folder each quarter by hand."
    )
    notes = {
        "en/sync/history.md": f"# Version history\n\n{answer}\n\n{aside}\n",
        "sandbox/history.md": f"# Version history\n\n{answer}\n\n{aside}\n",
        "en/sync/plans.md": "# Plans\n\nSync keeps a year of version history on every plan.\n",
    }
    vault = write_notes(tmp_path / "vault", notes)
    bridge = open_test_bridge(vault, tmp_path / "state")
    question = "how do I restore an older version of a note?"
    try:
        first = bridge.engine.search(question).sources[0]
        assert {first.path, *first.also_in} == {"en/sync/history.md", "sandbox/history.md"}
        # Its second half rewritten (the same length, none of the question's words): the
        # question finds the same in it, but it is no copy any more.
        (vault / "sandbox" / "history.md").write_text(
            f"# Version history\n\n{answer}\n\n{rewritten}\n"
        )
        bridge.sync()
        found = bridge.engine.search(question)
        assert all(s.also_in == [] for s in found.sources)
        assert {"en/sync/history.md", "sandbox/history.md"} <= {s.path for s in found.sources}
    finally:
        bridge.close()
