"""HTTP edges a probe found: a huge header, `Allow` on a 405, JSON's types, an undeclared 400."""

from __future__ import annotations

import socket

from bridge.api.http_limits import MAX_HEAD_BYTES
from tests.api.conftest import LiveApi
from tests.conftest import CEILING


def test_a_head_over_the_limit_is_answered_431_at_once(api: LiveApi) -> None:
    # A 300 MB header took 6 minutes and 330 MB: the parser kept it until it was complete.
    host, port = api.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=CEILING) as conn:
        conn.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        conn.sendall(b"a" * (MAX_HEAD_BYTES + 1024))  # never finished: no CRLF CRLF
        answer = b""
        while chunk := conn.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 431 ") and b'"too_large"' in answer
    headers = {"X-Fine": "a" * 4000}  # a few KB, as clients send, still fine
    assert api.client.get("/v1/health", headers=headers).status_code == 200


def test_a_405_allows_every_method_of_the_path(api: LiveApi) -> None:
    # `/v1/lifecycle/decay` is also `/v1/lifecycle/{path}`: `Allow` said GET, not POST.
    answer = api.client.request("OPTIONS", "/v1/lifecycle/decay", headers=api.auth)
    assert answer.status_code == 405 and answer.headers["allow"] == "GET, POST"
    answer = api.client.request("PUT", "/v1/curate/operations", headers=api.auth)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"


def test_numbers_and_flags_are_taken_as_json_writes_them(api: LiveApi) -> None:
    for body in (
        {"query": "jwt expiry", "limit": True},  # was taken as 1
        {"query": "jwt expiry", "budget_words": "300"},
    ):
        answer = api.client.post("/v1/search", json=body, headers=api.auth)
        assert answer.status_code == 422, body
    good = api.client.post("/v1/search", json={"query": "jwt", "limit": 3}, headers=api.auth)
    assert good.status_code == 200


def test_a_body_that_is_not_utf8_is_a_422_like_any_json_that_is_not(api: LiveApi) -> None:
    headers = {**api.auth, "content-type": "application/json"}
    for route in ("/v1/curate/operations", "/v1/curate/prompt", "/v1/query"):
        answer = api.client.post(route, content=b'\xff{"x": 1}', headers=headers)
        assert answer.status_code == 422, route  # was an undeclared 400 `bad_request`
        assert "not UTF-8" in answer.json()["error"]["message"]
