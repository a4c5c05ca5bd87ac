"""A bound on a request's head (request line and headers), which uvicorn's fast parser lacks.

httptools keeps a header until it is complete, so one huge header holds the bridge's time and
memory for as long as it is sent. Once the head of a request passes `MAX_HEAD_BYTES` before
it is complete, the bridge answers 431 and closes the connection; with the pure-Python parser
(h11, when httptools is missing) its own limit says the same.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

MAX_HEAD_BYTES = 64 * 1024  # a request line and headers; a browser sends a few KB

_ANSWER = json.dumps(
    {
        "error": {
            "code": "too_large",
            "message": f"the request's headers are over {MAX_HEAD_BYTES // 1024} KiB",
        }
    }
).encode()


def protocol_class() -> type[asyncio.Protocol] | str:
    """What uvicorn's `http` setting gets: the bounded httptools protocol, else `h11`."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # no httptools: h11, bounded by `h11_max_incomplete_event_size`
        return "h11"

    class BoundedHead(HttpToolsProtocol):
        """httptools, counting the bytes of each request's head until it is complete."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._head_bytes = 0
            self._head_done = False

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_bytes, self._head_done = 0, False

        def on_headers_complete(self) -> None:
            self._head_done = True
            super().on_headers_complete()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._head_done or self.transport.is_closing():
                return
            # Still in the head after these bytes: all of them were head.
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self.transport.write(
                    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                    b"content-type: application/json\r\n"
                    b"content-length: " + str(len(_ANSWER)).encode() + b"\r\n"
                    b"connection: close\r\n\r\n" + _ANSWER
                )
                self.transport.close()

    return BoundedHead
