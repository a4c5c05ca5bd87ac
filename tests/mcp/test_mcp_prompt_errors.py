"""A prompt asked for without its argument is refused with the reason, and logs no traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import mcp
import pytest
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.conftest import CEILING
from tests.mcp.test_mcp_server import server_params


def test_curate_conversation_without_a_conversation_says_so(
    template_vault: Path, tmp_path: Path
) -> None:
    log = tmp_path / "mcp.log"

    async def ask() -> None:
        with log.open("w") as errlog:
            transport = stdio_client(server_params(template_vault, tmp_path / "s"), errlog=errlog)
            async with mcp.Client(transport, read_timeout_seconds=CEILING) as client:
                with pytest.raises(MCPError, match=r"Missing required arguments.*conversation"):
                    await client.get_prompt("curate_conversation", {})
                done = await client.get_prompt("curate_conversation", {"conversation": "Hi"})
                assert "## The conversation" in str(done)

    asyncio.run(ask())
    assert "Traceback" not in log.read_text()  # stderr is the MCP client's log
