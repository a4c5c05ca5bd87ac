"""A real `serve`: it answers while it embeds, says how far it got, and embeds a new note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import CEILING
from tests.test_one_bridge import stop
from tests.watch.conftest import wait_until
from tests.watch.test_watch_serve import _lines, _serve, _wait_for

NEW = "team/practices/plants.md"
NOTE = (
    "---\ntitle: Office plants\n---\n# Office plants\n\n"
    "The ficus by the window gets half a litre on Mondays and Thursdays; the cactus once a "
    "month. Nobody waters them on public holidays, so the last one out before a long weekend "
    "fills the self-watering pots.\n"
)
PARAPHRASE = "who takes care of the greenery before a long weekend?"


def _get(url: str, token: str, path: str) -> Any:
    answer = httpx.get(
        f"{url}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=CEILING
    )
    answer.raise_for_status()
    return answer.json()


def test_serve_embeds_in_the_background_and_keeps_up_with_a_new_note(
    template_vault: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    proc = _serve(template_vault, state)
    try:
        _wait_for(_lines(proc), "watching")
        url = json.loads((state / "bridge.json").read_text())["url"]
        token = (state / "token").read_text().strip()
        # Lexical answers from the first second, whatever the dense channel's state.
        first = _get(url, token, "/v1/status")["semantic"]
        assert first["model"] == "all-MiniLM-L6-v2"
        assert first["state"] in ("embedding", "ready")
        wait_until(lambda: _get(url, token, "/v1/status")["semantic"]["state"] == "ready")
        before = _get(url, token, "/v1/status")["semantic"]
        assert before["pending"] == 0 and before["embedded"] > 0
        # Caught up, serve measures where "nothing in memory" starts in this small vault.
        wait_until(lambda: _get(url, token, "/v1/status")["semantic"]["off_topic_line"] is not None)

        (template_vault / NEW).write_text(NOTE, encoding="utf-8")

        def embedded() -> bool:
            semantic = _get(url, token, "/v1/status")["semantic"]
            return semantic["state"] == "ready" and semantic["embedded"] == before["embedded"] + 1

        wait_until(embedded)
        answer = httpx.post(
            f"{url}/v1/search",
            json={"query": PARAPHRASE, "limit": 3},
            headers={"Authorization": f"Bearer {token}"},
            timeout=CEILING,
        ).json()
        assert answer["sources"][0]["path"] == NEW
    finally:
        stop(proc)
    assert proc.returncode == 0
