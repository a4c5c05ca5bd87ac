"""A real MCP client session (the `mcp` package's stdio client) against `vault-bridge mcp`."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TextIO

import mcp
from mcp.client.stdio import StdioServerParameters, stdio_client

from bridge.api.app import create_app
from bridge.api.security import load_or_create_token
from bridge.api.server import BackgroundServer, discovery_file
from tests.conftest import CEILING, open_test_bridge

TOOLS = {
    "memory_query",
    "memory_search",
    "memory_read",
    "memory_curate",
    "memory_curate_prompt",
    "memory_reviews",
    "memory_feedback",
    "memory_guide",
    "memory_tree",
    "memory_related",
}


def server_params(vault: Path, state: Path) -> StdioServerParameters:
    exe = Path(sys.executable).with_name("vault-bridge")
    return StdioServerParameters(
        command=str(exe), args=["mcp", "--vault", str(vault), "--state-dir", str(state)]
    )


def payload(result: Any) -> Any:
    assert not result.is_error, result
    return json.loads(result.content[0].text)


def refusal(result: Any) -> str:
    """A refused call is an error result whose text says why."""
    assert result.is_error, result
    return str(result.content[0].text)


async def session(params: StdioServerParameters, errlog: TextIO) -> dict[str, Any]:
    out: dict[str, Any] = {}
    transport = stdio_client(params, errlog=errlog)  # the server's stderr: the client's log
    async with mcp.Client(transport, read_timeout_seconds=CEILING) as client:
        listed = await client.list_tools()
        out["tools"] = {t.name: t for t in listed.tools}
        out["query"] = payload(
            await client.call_tool("memory_query", {"query": "How long do JWT access tokens live?"})
        )
        out["search"] = payload(
            await client.call_tool("memory_search", {"query": "billing", "limit": 3})
        )
        out["read"] = payload(
            await client.call_tool("memory_read", {"path": "@engineering/auth/jwt_expiry.md"})
        )
        # Opening a result of the search with its query id is a use; so is a helpful verdict,
        # but a note gets one credit per answer.
        opened = out["search"]["sources"][-1]["path"]
        out["opened"] = payload(
            await client.call_tool(
                "memory_read", {"path": opened, "from_query": out["search"]["query_id"]}
            )
        )
        out["helpful"] = payload(
            await client.call_tool(
                "memory_feedback", {"query_id": out["search"]["query_id"], "path": opened}
            )
        )
        out["stranger"] = refusal(
            await client.call_tool(
                "memory_feedback", {"query_id": "not-an-answer", "path": opened, "helpful": False}
            )
        )
        out["prompt"] = payload(
            await client.call_tool("memory_curate_prompt", {"content": "API keys rotate yearly"})
        )
        ops = [
            {
                "type": "ADD",
                "path": "engineering/auth/api_keys.md",
                "title": "API keys",
                "narrative": "Partner API keys rotate yearly.",
                "relations": ["@engineering/auth/jwt_expiry.md - credentials"],
            },
            {"type": "UPDATE", "path": "engineering/auth/jwt_expiry.md", "summary": "12 h now"},
        ]
        out["curate"] = payload(
            await client.call_tool("memory_curate", {"operations": ops, "author": "agent:mcp-test"})
        )
        out["reviews"] = payload(await client.call_tool("memory_reviews", {}))
        out["bad"] = refusal(await client.call_tool("memory_read", {"path": "../etc/passwd"}))
        out["etc"] = refusal(await client.call_tool("memory_tree", {"folder": "../etc"}))
    return out


def check(out: dict[str, Any], vault: Path, log: Path) -> None:
    assert set(out["tools"]) == TOOLS
    assert out["tools"]["memory_query"].annotations.read_only_hint is True
    assert out["tools"]["memory_curate"].annotations.destructive_hint is True
    assert "memory_query" in out["tools"] and out["tools"]["memory_query"].description
    assert out["query"]["sources"][0]["path"] == "engineering/auth/jwt_expiry.md"
    assert len(out["search"]["sources"]) <= 3
    assert out["read"]["title"] == "JWT expiry" and len(out["read"]["hash"]) == 64
    answered = out["query"]["answered_from"]
    assert out["query"]["query_id"] and answered[0] == "engineering/auth/jwt_expiry.md"
    assert all(f"[[{p.removesuffix('.md')}" in out["query"]["answer"] for p in answered)
    assert out["opened"]["credit"] == "credited"
    assert out["helpful"]["credit"] == "already_credited" and not out["helpful"]["credited"]
    assert "not-an-answer" in out["stranger"]
    assert out["tools"]["memory_feedback"].annotations.destructive_hint is False
    assert "schema" in out["prompt"]
    statuses = [r["status"] for r in out["curate"]["results"]]
    assert statuses == ["applied", "pending_review"]
    assert [r["path"] for r in out["reviews"]] == ["engineering/auth/jwt_expiry.md"]
    assert "leaves the vault" in out["bad"]
    assert (vault / "engineering/auth/api_keys.md").is_file()
    assert "12 h now" not in (vault / "engineering/auth/jwt_expiry.md").read_text()
    # A refusal in the bridge's words alike through either backend: no HTTP status, no prefix.
    assert out["etc"] == "path `../etc` leaves the vault (`..` is not allowed)"
    # Refused calls are answers, not server problems: nothing of them on stderr.
    logged = log.read_text()
    assert "INFO" not in logged and "failed" not in logged and "Tool " not in logged, logged


def test_mcp_session_on_a_vault_without_serve(template_vault: Path, tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    with log.open("w") as errlog:
        out = asyncio.run(session(server_params(template_vault, tmp_path / "state"), errlog))
    check(out, template_vault, log)


def test_mcp_goes_through_a_running_bridge(template_vault: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    bridge = open_test_bridge(template_vault, state)
    token = load_or_create_token(state)
    server = BackgroundServer(create_app(bridge, token))
    url = server.start(timeout=CEILING)
    port = int(url.rsplit(":", 1)[1])
    try:
        log = tmp_path / "stderr.log"
        with discovery_file(state, "127.0.0.1", port), log.open("w") as errlog:
            out = asyncio.run(session(server_params(template_vault, state), errlog))
        check(out, template_vault, log)
        # The serving bridge did the write: its own index already knows the new entry.
        assert bridge.index.stamp("engineering/auth/api_keys.md") is not None
    finally:
        server.stop()
        bridge.close()


async def refusals(params: StdioServerParameters) -> dict[str, Any]:
    """What a model sees when its call cannot be done, over a real stdio session."""
    out: dict[str, Any] = {}
    async with mcp.Client(params, read_timeout_seconds=60) as client:
        listed = await client.list_tools()
        out["schemas"] = {t.name: t.input_schema for t in listed.tools}
        evil = [{"type": "ADD", "path": "../evil.md", "title": "Evil"}]
        out["all_failed"] = await client.call_tool("memory_curate", {"operations": evil})
        mixed = [*evil, {"type": "ADD", "path": "ops/keys/rotation.md", "title": "Rotation"}]
        out["mixed"] = await client.call_tool("memory_curate", {"operations": mixed})
        out["empty"] = await client.call_tool("memory_curate", {"operations": []})
        out["many"] = await client.call_tool("memory_curate", {"operations": [{}] * 1001})
        out["typo"] = await client.call_tool(
            "memory_curate", {"operations": mixed, "autor": "agent:typo"}
        )
        out["extra"] = await client.call_tool("memory_query", {"query": "billing", "top_k": 3})
        out["outside"] = [
            await client.call_tool("memory_tree", {"folder": f}) for f in ("/etc", "a\x00", "..")
        ]
    return out


def test_refusals_are_tool_errors_and_unknown_arguments_are_refused(
    template_vault: Path, tmp_path: Path
) -> None:
    out = asyncio.run(refusals(server_params(template_vault, tmp_path / "state")))
    assert all(s.get("additionalProperties") is False for s in out["schemas"].values())
    failed = refusal(out["all_failed"])
    assert "no operation was applied" in failed and "../evil.md" in failed
    assert "leaves the vault" in failed
    mixed = payload(out["mixed"])  # one applied: a result, with the failure in it
    assert [r["status"] for r in mixed["results"]] == ["failed", "applied"]
    assert "no operations" in refusal(out["empty"])
    assert "at most 1000 operations" in refusal(out["many"])
    typo = refusal(out["typo"])
    assert "`autor`" in typo and "author" in typo
    assert "`top_k`" in refusal(out["extra"])
    assert [refusal(r) for r in out["outside"]]  # each folder outside the vault is refused
    assert not (template_vault.parent / "evil.md").exists()
    # The refused calls wrote nothing: only the mixed batch's good ADD is in the vault.
    assert (template_vault / "ops/keys/rotation.md").is_file()
