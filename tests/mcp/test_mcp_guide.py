"""The guide, the tree, the resources and the curate prompt through a real MCP client session.

The session is the SDK's in-process client against `build_server`, over both backends: the
vault opened in this process (`LocalBackend`) and a running bridge's API over HTTP
(`HttpBackend` against the real FastAPI app on a loopback port).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.shared.exceptions import MCPError

from bridge.api.app import create_app
from bridge.api.security import load_or_create_token
from bridge.api.server import BackgroundServer
from bridge.mcp.backend import HttpBackend, LocalBackend, MemoryBackend
from bridge.mcp.server import build_server
from tests.conftest import CEILING, open_test_bridge

JWT = "engineering/auth/jwt_expiry.md"


@pytest.fixture(params=["local", "http"])
def backend(
    request: pytest.FixtureRequest, template_vault: Path, tmp_path: Path
) -> Iterator[MemoryBackend]:
    bridge = open_test_bridge(template_vault, tmp_path / "state")
    if request.param == "local":
        local = LocalBackend(bridge)
        yield local
        local.close()
        return
    token = load_or_create_token(bridge.settings.state_path)
    server = BackgroundServer(create_app(bridge, token))
    remote = HttpBackend(server.start(timeout=CEILING), token)
    try:
        yield remote
    finally:
        remote.close()
        server.stop()
        bridge.close()


def text_of(result: Any) -> str:
    assert not result.is_error, result
    return str(result.content[0].text)


async def refused(coro: Any) -> str:
    """A read the server must refuse: the protocol error's message."""
    with pytest.raises(MCPError) as caught:
        await coro
    return str(caught.value)


async def session(backend: MemoryBackend) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with mcp.Client(build_server(backend)) as client:
        out["instructions"] = client.instructions or ""
        out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        out["guide"] = text_of(await client.call_tool("memory_guide", {}))
        out["tree"] = text_of(await client.call_tool("memory_tree", {"folder": "engineering"}))
        out["tree_shallow"] = text_of(await client.call_tool("memory_tree", {"depth": 1}))
        out["tree_escape"] = await client.call_tool("memory_tree", {"folder": "../outside"})
        out["resources"] = [r for r in (await client.list_resources()).resources]
        out["templates"] = [
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        ]
        out["tree_resource"] = (await client.read_resource("vault://tree")).contents[0]
        out["folder_resource"] = (await client.read_resource("vault://tree/billing")).contents[0]
        out["entry"] = (await client.read_resource(f"vault://entry/{JWT}")).contents[0]
        out["guide_resource"] = (await client.read_resource("vault://guide")).contents[0]
        out["escapes"] = [
            await refused(client.read_resource(uri))
            for uri in (
                "vault://entry/../secret.md",
                "vault://entry/engineering/%2E%2E/%2E%2E/secret.md",
                "vault://entry/engineering/../secret.md",
                "vault://entry//etc/passwd",
            )
        ]
        out["missing"] = await refused(client.read_resource("vault://entry/no/such/note.md"))
        out["prompts"] = {p.name: p for p in (await client.list_prompts()).prompts}
        out["prompt"] = await client.get_prompt(
            "curate_conversation",
            {"conversation": "We agreed: partner API keys rotate every 12 months."},
        )
    return out


def test_guide_tree_resources_and_prompt(
    backend: MemoryBackend, template_vault: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.md").write_text("# Secret\n\nnot in the vault\n")
    out = asyncio.run(session(backend))

    assert "call memory_guide first" in out["instructions"].lower()
    tools = out["tools"]
    assert {"memory_guide", "memory_tree"} <= set(tools)
    assert tools["memory_guide"].description.startswith("Call first in a session")
    assert tools["memory_tree"].description.startswith("Use before adding an entry")
    for name, tool in tools.items():  # every description says when to use the tool
        assert tool.description.startswith(("Use ", "Call first")), name
    for name in ("memory_guide", "memory_tree"):
        assert tools[name].annotations.read_only_hint is True

    assert out["guide"].startswith("# Memory guide: vault\n")
    assert (
        "### Example: `team/practices/code_review.md` (a real entry of this vault)" in out["guide"]
    )
    assert "`billing` (5), `engineering` (7), `journal` (1), `team` (4)" in out["guide"]

    assert out["tree"].startswith("# Folder `engineering/`: 7 notes")
    assert f"- JWT expiry `{JWT}` (core)" in out["tree"] and "  - `oauth/` 1 note" in out["tree"]
    assert "- `billing/` 5 notes (open it with memory_tree)" in out["tree_shallow"]
    assert out["tree_escape"].is_error and "leaves the vault" in out["tree_escape"].content[0].text

    uris = [str(r.uri) for r in out["resources"]]
    assert uris[:2] == ["vault://guide", "vault://tree"]
    listed = {str(r.uri): r for r in out["resources"][2:]}
    assert f"vault://entry/{JWT}" in listed and len(listed) == 18  # bounded at 50: all 18 here
    assert listed[f"vault://entry/{JWT}"].title == "JWT expiry"
    assert {"vault://entry/{+path}", "vault://tree/{+folder}"} <= set(out["templates"])

    assert out["tree_resource"].mime_type == "text/markdown"
    assert out["tree_resource"].text.startswith("# Folder the vault: 18 notes")
    assert "`dunning/` 1 note" in out["tree_resource"].text
    assert out["folder_resource"].text.startswith("# Folder `billing/`: 5 notes")
    assert out["entry"].text == (template_vault / JWT).read_text()
    assert out["guide_resource"].text == out["guide"]
    # The SDK refuses `..` and absolute paths before the handler runs ("Unknown resource");
    # what gets past it (`a/../b`) the backend refuses as leaving the vault.
    assert [m.split(":")[0] for m in out["escapes"]] == [
        "Unknown resource",
        "Unknown resource",
        "path `engineering/../secret.md` leaves the vault (`..` is not allowed)",
        "Unknown resource",
    ]
    assert "no/such/note.md" in out["missing"]

    prompt = out["prompts"]["curate_conversation"]
    assert prompt.title == "Curate this conversation"
    assert [a.name for a in prompt.arguments] == ["conversation"]
    [message] = out["prompt"].messages
    text = message.content.text
    assert message.role == "user"
    assert text.startswith("# Memory guide: vault\n")
    assert "## Your task: curate this conversation into the memory" in text
    assert "memory_curate(operations" in text
    assert text.rstrip().endswith("partner API keys rotate every 12 months.")


async def read_listed(backend: MemoryBackend) -> tuple[list[str], str]:
    async with mcp.Client(build_server(backend)) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        entry = next(u for u in uris if u.startswith("vault://entry/"))
        return uris, (await client.read_resource(entry)).contents[0].text


def test_listed_entry_uris_are_encoded_and_read_back(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "notes").mkdir()
    (vault / "notes" / "C# tips.md").write_text("# C# tips\n\nUse `var` sparingly.\n")
    local = LocalBackend(open_test_bridge(vault, tmp_path / "state"))
    try:
        uris, text = asyncio.run(read_listed(local))
    finally:
        local.close()
    assert uris == ["vault://guide", "vault://tree", "vault://entry/notes/C%23%20tips.md"]
    assert text == "# C# tips\n\nUse `var` sparingly.\n"


async def against_a_dead_bridge(backend: MemoryBackend) -> dict[str, Any]:
    async with mcp.Client(build_server(backend)) as client:
        return {
            "guide": await client.call_tool("memory_guide", {}),
            "resources": [str(r.uri) for r in (await client.list_resources()).resources],
            "prompt": await refused(
                client.get_prompt("curate_conversation", {"conversation": "x"})
            ),
        }


def test_a_bridge_that_went_away_is_reported_not_crashed() -> None:
    dead = HttpBackend("http://127.0.0.1:9", "token", timeout=2.0)  # nothing listens on 9
    try:
        out = asyncio.run(against_a_dead_bridge(dead))
    finally:
        dead.close()
    assert out["guide"].is_error and "did not answer" in out["guide"].content[0].text
    assert out["resources"] == ["vault://guide", "vault://tree"]  # the static ones still list
    assert "did not answer" in out["prompt"]
