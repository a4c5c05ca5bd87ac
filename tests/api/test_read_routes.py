"""Read routes end to end over HTTP."""

from __future__ import annotations

import json
import threading

import httpx

from tests.api.conftest import LiveApi
from tests.conftest import CEILING


def test_query_and_search(api: LiveApi) -> None:
    body = {"query": "How long do JWT access tokens live?", "budget_words": 80}
    first = api.client.post("/v1/query", json=body, headers=api.auth).json()
    assert first["tier"] == 2 and first["sources"][0]["path"] == "engineering/auth/jwt_expiry.md"
    assert first["words"] <= 80
    again = api.client.post("/v1/query", json=body, headers=api.auth).json()
    assert again["tier"] == 0
    found = api.client.post("/v1/search", json={"query": "billing", "limit": 2}, headers=api.auth)
    assert found.status_code == 200 and len(found.json()["sources"]) <= 2


def test_entry_with_relations_backlinks_and_lifecycle(api: LiveApi) -> None:
    response = api.client.get("/v1/entries/engineering/auth/jwt_expiry.md", headers=api.auth)
    assert response.status_code == 200
    entry = response.json()
    assert entry["title"] == "JWT expiry"
    assert entry["frontmatter"]["status"] == "core"
    assert entry["frontmatter"]["created"].startswith("2026-")
    assert {r["path"] for r in entry["relations"]} >= {"engineering/auth/session_refresh.md"}
    assert "engineering/auth/session_refresh.md" in entry["backlinks"]
    assert entry["lifecycle"]["maturity"] == "core"
    assert len(entry["hash"]) == 64
    same = api.client.get("/v1/entries/engineering/auth/jwt_expiry", headers=api.auth).json()
    assert same["path"] == "engineering/auth/jwt_expiry.md"


def test_tree_and_graph(api: LiveApi) -> None:
    tree = api.client.get("/v1/tree", headers=api.auth).json()
    assert tree["notes"] == 18
    names = [c["name"] for c in tree["children"]]
    assert {"billing", "engineering", "team", "Welcome.md"} <= set(names)
    sub = api.client.get("/v1/tree", params={"folder": "billing", "depth": 1}, headers=api.auth)
    assert sub.json()["notes"] == 5
    graph = api.client.get("/v1/graph", headers=api.auth).json()
    assert len(graph["nodes"]) == 18 and graph["unresolved"] == 0
    assert {
        "source": "engineering/auth/jwt_expiry.md",
        "target": "engineering/auth/session_refresh.md",
    } in graph["edges"]


def test_lifecycle_routes(api: LiveApi) -> None:
    view = api.client.get("/v1/lifecycle/billing/plans/team_plan.md", headers=api.auth).json()
    assert view["status"] == "stable" and view["maturity"] == "validated"
    assert "forecast" in view
    report = api.client.post("/v1/lifecycle/decay", headers=api.auth).json()
    assert report["notes_seen"] == 18


def test_events_stream_index_generations(api: LiveApi) -> None:
    received: list[dict[str, object]] = []
    ready = threading.Event()

    def listen() -> None:
        with (
            httpx.Client(base_url=api.url, timeout=CEILING) as client,
            client.stream("GET", "/v1/events", headers=api.auth) as response,
        ):
            event = None
            for line in response.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event:
                    received.append({"event": event, "data": json.loads(line[6:])})
                    if event == "hello":
                        ready.set()
                    if event == "index.generation":
                        return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(CEILING)
    note = api.bridge.store.read("billing/plans/team_plan.md")
    api.bridge.index.upsert(note, note.parse())
    api.bridge.index.commit()
    thread.join(CEILING)
    kinds = [r["event"] for r in received]
    assert kinds[0] == "hello"
    assert "entry.changed" in kinds and kinds[-1] == "index.generation"
    changed = next(r for r in received if r["event"] == "entry.changed")
    assert changed["data"]["path"] == "billing/plans/team_plan.md"  # type: ignore[index]


def test_openapi_docs_are_served(api: LiveApi) -> None:
    spec = api.client.get("/openapi.json").json()
    assert "/v1/query" in spec["paths"] and "/v1/entries/{path}" in spec["paths"]
    assert api.client.get("/docs").status_code == 200


def test_the_schema_declares_the_error_statuses_routes_answer(api: LiveApi) -> None:
    paths = api.client.get("/openapi.json").json()["paths"]
    assert "no_llm" in paths["/v1/curate"]["post"]["responses"]["503"]["description"]
    assert {"400", "401", "404"} <= set(paths["/v1/entries/{path}"]["get"]["responses"])
    assert {"404", "409"} <= set(paths["/v1/reviews/{review_id}/approve"]["post"]["responses"])
    assert "400" in paths["/v1/tree"]["get"]["responses"]
    assert "401" not in paths["/v1/health"]["get"]["responses"]  # no token needed there


def test_a_wrong_method_is_a_405_that_says_which_are_allowed(api: LiveApi) -> None:
    for method, path, allowed in (
        ("PUT", "/v1/query", "POST"),
        ("DELETE", "/v1/tree", "GET"),
        ("GET", "/v1/curate/operations", "POST"),
    ):
        response = api.client.request(method, path, headers=api.auth)
        assert response.status_code == 405, (method, path)
        assert response.headers["allow"] == allowed, (method, path)
        assert response.json()["error"]["code"] == "method_not_allowed"


def _accesses(api: LiveApi, path: str) -> int:
    view = api.client.get(f"/v1/lifecycle/{path}", headers=api.auth).json()
    return int(view["access_count"])


def test_opening_a_result_and_feedback_credit_a_source_once(api: LiveApi) -> None:
    found = api.client.post("/v1/search", json={"query": "tokens renewal"}, headers=api.auth)
    result = found.json()
    query_id, paths = result["query_id"], [s["path"] for s in result["sources"]]
    assert query_id and len(paths) >= 2
    first, second = paths[0], paths[1]
    assert _accesses(api, first) == 0  # appearing in a result list is not a use
    opened = api.client.get(
        f"/v1/entries/{first}", params={"from_query": query_id}, headers=api.auth
    )
    assert opened.status_code == 200 and opened.json()["credit"] == "credited"
    again = api.client.get(
        f"/v1/entries/{first}", params={"from_query": query_id}, headers=api.auth
    )
    assert again.json()["credit"] == "already_credited"
    plain = api.client.get(f"/v1/entries/{first}", headers=api.auth)
    assert plain.json()["credit"] is None

    body = {"query_id": query_id, "path": second, "helpful": False}
    unhelpful = api.client.post("/v1/feedback", json=body, headers=api.auth)
    assert unhelpful.status_code == 200 and unhelpful.json()["credited"] is False
    body["helpful"] = True
    helpful = api.client.post("/v1/feedback", json=body, headers=api.auth).json()
    assert helpful["credited"] is True and helpful["credit"] == "credited"
    twice = api.client.post("/v1/feedback", json=body, headers=api.auth).json()
    assert twice["credited"] is False and twice["credit"] == "already_credited"

    assert _accesses(api, first) == 1 and _accesses(api, second) == 1
    for other in paths[2:]:
        assert _accesses(api, other) == 0


def test_feedback_refuses_what_it_cannot_credit(api: LiveApi) -> None:
    answer = api.client.post("/v1/query", json={"query": "refund window"}, headers=api.auth).json()
    stranger = {"query_id": "0" * 32, "path": "Welcome.md"}
    unknown = api.client.post("/v1/feedback", json=stranger, headers=api.auth)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_query"
    outsider = {"query_id": answer["query_id"], "path": "team/_index.md"}
    not_source = api.client.post("/v1/feedback", json=outsider, headers=api.auth)
    assert not_source.status_code == 422
    assert not_source.json()["error"]["code"] == "not_a_source"
    escape = {"query_id": answer["query_id"], "path": "../../etc/passwd"}
    assert api.client.post("/v1/feedback", json=escape, headers=api.auth).status_code == 400
    assert api.client.post("/v1/feedback", json=stranger).status_code == 401


OUTSIDE = ["../..", "/etc", "\x00", "notes\\..\\..", "C:\\Windows", "~/x", "a/./b", ".obsidian"]


def test_every_route_refuses_a_folder_outside_the_vault_alike(api: LiveApi) -> None:
    """One check for every folder a caller names, the one `/v1/entries` applies to paths."""
    for folder in OUTSIDE:
        answers = {
            "graph": api.client.get("/v1/graph", params={"folder": folder}, headers=api.auth),
            "tree": api.client.get("/v1/tree", params={"folder": folder}, headers=api.auth),
            "overviews": api.client.post(
                "/v1/overviews", json={"folder": folder}, headers=api.auth
            ),
            "import": api.client.post(
                "/v1/import",
                json={"data": {"name": "x", "sessions": []}, "root": folder},
                headers=api.auth,
            ),
        }
        for route, response in answers.items():
            assert response.status_code == 400, (folder, route, response.text)
            assert response.json()["error"]["code"] == "bad_path", (folder, route)
        scoped = api.client.post(
            "/v1/search", json={"query": "billing", "scope": folder}, headers=api.auth
        )
        assert scoped.status_code == 400, (folder, scoped.text)
    for route in ("/v1/query", "/v1/search"):  # inside the vault, but no such folder
        scoped = api.client.post(
            route, json={"query": "rollback", "scope": "nosuch"}, headers=api.auth
        )
        assert scoped.status_code == 400, (route, scoped.text)
        assert scoped.json()["error"] == {
            "code": "bad_scope",
            "message": "no notes in a folder `nosuch` of the vault (scope)",
        }
    for route in ("/v1/graph", "/v1/tree"):  # `..` percent-encoded in the URL itself
        response = api.client.get(f"{route}?folder=%2e%2e", headers=api.auth)
        assert response.status_code == 400, (route, response.text)
    assert not (api.bridge.settings.vault_path / "etc").exists()


def test_hostile_frontmatter_is_served_small_and_without_errors(api: LiveApi) -> None:
    from tests.core.test_hostile_frontmatter import ALIAS_BOMB

    root = api.bridge.store.root
    (root / "journal" / "bad_date.md").write_text("---\ncreated: 2026-02-30\n---\n# Bad date\n")
    (root / "journal" / "bomb.md").write_text(f"---\n{ALIAS_BOMB}---\n# Bomb\n")
    dated = api.client.get("/v1/entries/journal/bad_date.md", headers=api.auth)
    assert dated.status_code == 200
    assert dated.json()["frontmatter"]["created"] == "2026-02-30"
    assert any("not a date" in p for p in dated.json()["problems"])
    life = api.client.get("/v1/lifecycle/journal/bad_date.md", headers=api.auth)
    assert life.status_code == 200
    bomb = api.client.get("/v1/entries/journal/bomb.md", headers=api.auth)
    assert bomb.status_code == 200 and len(bomb.content) < 10_000  # was 432 MB
    assert bomb.json()["frontmatter"] == {}


def test_status_and_backlinks_follow_each_write(api: LiveApi) -> None:
    def status() -> int:
        body = api.client.get("/v1/status", headers=api.auth).json()
        return int(body["unresolved_links"])

    def add(path: str, title: str, *relations: str) -> None:
        op = {"type": "ADD", "path": path, "title": title, "narrative": f"{title} in detail."}
        body = {"operations": [{**op, "relations": list(relations)}], "author": "agent:test"}
        done = api.client.post("/v1/curate/operations", json=body, headers=api.auth).json()
        assert done["counts"]["applied"] == 1, done

    assert status() == 0
    add("engineering/ops/deploys.md", "Deploys", "@engineering/ops/rollback.md - how to undo one")
    assert status() == 1  # the runbook does not exist yet
    add("engineering/ops/rollback.md", "Rollback")
    assert status() == 0  # the waiting link found it
    entry = api.client.get("/v1/entries/engineering/ops/rollback.md", headers=api.auth).json()
    assert "engineering/ops/deploys.md" in entry["backlinks"]
    graph = api.client.get("/v1/graph", headers=api.auth).json()
    assert {
        "source": "engineering/ops/deploys.md",
        "target": "engineering/ops/rollback.md",
    } in graph["edges"]
    assert graph["unresolved"] == 0
