"""`vault-bridge curate` and `vault-bridge review` as scripts see them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bridge.cli import main
from tests.conftest import snapshot

API_KEYS = "engineering/auth/api_keys.md"


@pytest.fixture
def argv(template_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.delenv("VAULT_BRIDGE_LLM_MODEL", raising=False)
    return ["--vault", str(template_vault), "--state-dir", str(tmp_path / "state")]


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, object]:
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_curate_operations_json_has_the_documented_shape(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ops = tmp_path / "ops.json"
    ops.write_text(
        json.dumps(
            [
                {"type": "ADD", "path": API_KEYS, "title": "API keys"},
                {"type": "DELETE", "path": "engineering/auth/jwt_expiry.md"},
                {"type": "ADD", "path": "a/../b", "title": "x"},
            ]
        )
    )
    code, out = run_json(capsys, "curate", "--operations", str(ops), "--agent", "bot", *argv)
    assert code == 1  # one operation failed
    assert isinstance(out, dict)
    assert list(out) == ["results", "counts", "git", "through"]
    assert out["through"] is None  # no serve runs: applied here
    assert out["counts"] == {"applied": 1, "pending_review": 1, "failed": 1, "total": 3}
    first, second, third = out["results"]
    assert first == {
        "index": 0,
        "type": "ADD",
        "path": API_KEYS,
        "status": "applied",
        "message": "ADD done",
        "review_id": None,
    }
    assert second["status"] == "pending_review" and isinstance(second["review_id"], int)
    assert third["status"] == "failed" and "leaves the vault" in third["message"]

    code, listed = run_json(capsys, "review", "list", *argv)
    assert code == 0 and isinstance(listed, list)
    assert [{k: r[k] for k in ("id", "state", "path", "type", "author")} for r in listed] == [
        {
            "id": second["review_id"],
            "state": "pending",
            "path": "engineering/auth/jwt_expiry.md",
            "type": "DELETE",
            "author": "agent:bot",
        }
    ]
    review_id = str(second["review_id"])
    code, shown = run_json(capsys, "review", "show", review_id, *argv)
    assert code == 0 and isinstance(shown, dict) and "+++ /dev/null" in shown["diff"]
    code, decided = run_json(capsys, "review", "reject", review_id, "--reason", "keep it", *argv)
    assert code == 0 and isinstance(decided, dict) and decided["state"] == "rejected"
    assert main(["review", "approve", review_id, *argv]) == 2
    assert "already rejected" in capsys.readouterr().err
    assert main(["review", "show", "999", *argv]) == 2


def test_review_approve_from_the_cli(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], template_vault: Path
) -> None:
    ops = tmp_path / "ops.json"
    ops.write_text(
        json.dumps({"operations": [{"type": "DELETE", "path": "journal/2026-11-20.md"}]})
    )
    _, out = run_json(capsys, "curate", "--operations", str(ops), *argv)
    assert isinstance(out, dict)
    review_id = str(out["results"][0]["review_id"])
    assert main(["review", "approve", review_id, *argv]) == 0
    assert not (template_vault / "journal/2026-11-20.md").exists()
    assert (template_vault / ".trash/journal/2026-11-20.md").exists()


def test_curate_text_without_an_llm_explains_both_ways(
    argv: list[str], template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(template_vault)
    assert main(["curate", "Tokens now live 12 hours.", *argv]) == 2
    err = capsys.readouterr().err
    assert "VAULT_BRIDGE_LLM_MODEL" in err and "--operations" in err and "--prompt" in err
    assert snapshot(template_vault) == before


def test_curate_prompt_prints_prompt_schema_and_related_entries(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("JWT access tokens now expire after 12 hours."))
    assert main(["curate", "--prompt", *argv]) == 0
    out = capsys.readouterr().out
    assert "## JSON schema of the reply" in out and '"merge_from"' in out
    assert "### @engineering/auth/jwt_expiry.md" in out and "base_hash: " in out
    assert "@engineering/auth/session_refresh.md" in out  # relations shown as @path.md
    assert "JWT access tokens now expire after 12 hours." in out
    code, data = run_json(capsys, "curate", "--prompt", "some text", *argv)
    assert code == 0 and isinstance(data, dict) and set(data) == {"system", "user", "schema"}


def test_bad_operations_files_are_usage_errors(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["curate", "--operations", str(bad), *argv]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["curate", "--operations", str(tmp_path / "missing.json"), *argv]) == 2
    assert main(["curate", "--operations", str(bad), "--agent", "two words", *argv]) == 2
