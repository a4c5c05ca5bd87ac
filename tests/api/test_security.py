"""Who may talk to the bridge, over real HTTP on loopback."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx
import pytest

from bridge.api.security import host_is_loopback, load_or_create_token
from tests.api.conftest import LiveApi
from tests.conftest import CEILING


def test_health_needs_no_token(api: LiveApi) -> None:
    response = api.client.get("/v1/health")
    assert response.status_code == 200 and response.json()["status"] == "ok"


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic abc"}, {"Authorization": ""}],
)
def test_missing_or_wrong_token_is_refused(api: LiveApi, headers: dict[str, str]) -> None:
    response = api.client.get("/v1/status", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"


def test_the_right_token_works(api: LiveApi) -> None:
    response = api.client.get("/v1/status", headers=api.auth)
    assert response.status_code == 200 and response.json()["notes"] == 18


def test_a_token_in_the_query_string_is_refused_even_when_right(api: LiveApi) -> None:
    response = api.client.get(f"/v1/status?token={api.token}", headers=api.auth)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "token_in_url"


@pytest.mark.parametrize("host", ["evil.example", "192.168.1.10:27182", "localhost.evil.com"])
def test_a_foreign_host_header_is_refused(api: LiveApi, host: str) -> None:
    response = api.client.get("/v1/status", headers={**api.auth, "Host": host})
    assert response.status_code == 421
    assert response.json()["error"]["code"] == "bad_host"


def test_loopback_host_spellings() -> None:
    for ok in ("127.0.0.1:27182", "localhost", "LOCALHOST:1", "[::1]:27182", "127.0.0.2"):
        assert host_is_loopback(ok), ok
    for bad in (None, "", "example.com", "10.0.0.1", "[::2]:80", "localhost.evil.com"):
        assert not host_is_loopback(bad), bad
    # Names an attacker's DNS can point at 127.0.0.1 (DNS rebinding), and malformed ports.
    for bad in (
        "127.attacker.example",
        "127.0.0.1.nip.io",
        "127.0.0.1.nip.io:27182",
        "localhost.",
        "127.0.0.1:abc",
        "127.0.0.1:27182:1",
        "[::1]x",
        "[::1]:99999999",
        "::2",
    ):
        assert not host_is_loopback(bad), bad


@pytest.mark.parametrize("host", ["127.attacker.example", "127.0.0.1.nip.io:27182"])
def test_a_rebinding_name_is_refused(api: LiveApi, host: str) -> None:
    response = api.client.get("/v1/status", headers={**api.auth, "Host": host})
    assert response.status_code == 421


def test_a_duplicate_host_header_is_refused(api: LiveApi) -> None:
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(api.url)
    request = (
        f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n"
        f"Authorization: Bearer {api.token}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((where.hostname, where.port), timeout=CEILING) as conn:
        conn.sendall(request)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    status_line = reply.split(b"\r\n", 1)[0]
    assert b" 200 " not in status_line and (b" 421 " in status_line or b" 400 " in status_line)


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://localhost", "capacitor://localhost"]
)
def test_a_foreign_origin_is_refused(api: LiveApi, origin: str) -> None:
    """Any page on this machine (port 80 included) or a phone cannot use the token's power."""
    response = api.client.get("/v1/status", headers={**api.auth, "Origin": origin})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "bad_origin"


@pytest.mark.parametrize("origin", ["app://obsidian.md"])
def test_obsidian_origins_get_cors(api: LiveApi, origin: str) -> None:
    preflight = api.client.options(
        "/v1/query",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == origin
    response = api.client.get("/v1/status", headers={**api.auth, "Origin": origin})
    assert response.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/v1/entries/..%2F..%2Fetc%2Fpasswd", 400),
        ("/v1/entries/%2e%2e/%2e%2e/etc/passwd", 400),
        ("/v1/entries/a/%2e%2e/%2e%2e/x.md", 400),
        ("/v1/entries//etc/passwd", 400),
        ("/v1/entries/C:%5CWindows%5Cx.md", 400),
        ("/v1/entries/missing/note.md", 404),
    ],
)
def test_path_traversal_in_entries_is_refused(api: LiveApi, path: str, status: int) -> None:
    response = api.client.get(path, headers=api.auth)
    assert response.status_code == status, response.text
    assert "error" in response.json()


def test_an_oversize_body_gets_413(api: LiveApi) -> None:
    big = b'{"query": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    response = api.client.post(
        "/v1/query", content=big, headers={**api.auth, "Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def test_an_oversize_chunked_body_gets_413(api: LiveApi) -> None:
    def chunks() -> object:
        yield b'{"query": "'
        for _ in range(80):
            yield b"y" * 65536
        yield b'"}'

    response = api.client.post(
        "/v1/query",
        content=chunks(),  # type: ignore[arg-type]
        headers={**api.auth, "Content-Type": "application/json"},
    )
    assert response.status_code == 413


def test_invalid_json_is_a_422_with_a_message(api: LiveApi) -> None:
    response = api.client.post(
        "/v1/query", content=b"{not json", headers={**api.auth, "Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "not valid JSON" in response.json()["error"]["message"]
    response = api.client.post("/v1/query", json={"query": ""}, headers=api.auth)
    assert response.status_code == 422
    assert response.json()["error"]["message"].startswith("query:")


def test_token_file_is_private_and_stable(tmp_path: Path) -> None:
    first = load_or_create_token(tmp_path)
    mode = stat.S_IMODE((tmp_path / "token").stat().st_mode)
    assert mode == 0o600
    assert load_or_create_token(tmp_path) == first and len(first) >= 32
    (tmp_path / "token").chmod(0o644)
    load_or_create_token(tmp_path)
    assert stat.S_IMODE((tmp_path / "token").stat().st_mode) == 0o600


def test_the_server_listens_on_loopback_only(api: LiveApi) -> None:
    assert httpx.URL(api.url).host == "127.0.0.1"
