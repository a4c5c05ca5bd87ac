"""`serve`'s lines about embedding the vault: what it does, how far it got, how long is left,
and when it is ready.

On a first start the dense channel works through the vault for minutes, and a silent terminal
looks stuck: a line when it starts, one every `every` seconds (plain lines, so a service's log
reads them as well as a terminal), and `embedding: ready` the moment the last note is embedded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from bridge.semantic.service import SemanticIndex

_LOOK = 0.5  # seconds between looks for stop or ready; lines come every `every` seconds


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


class EmbeddingProgress:
    """Tells `say` how embedding goes, from a thread of its own, until ready or stopped."""

    def __init__(
        self,
        semantic: SemanticIndex,
        say: Callable[[str], None],
        every: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.semantic = semantic
        self.say = say
        self.every = every
        self.clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="embedding-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        started = self.clock()
        status = self.semantic.status()
        total = int(status["embedded"]) + int(status["pending"])  # type: ignore[call-overload]
        self.say(
            f"embedding: {total:,} notes with {status['model']} in the background; answers "
            "use words meanwhile, and meaning too once it is done"
        )
        first: tuple[float, int] | None = None  # when embedding itself was first seen moving
        last_line = started
        while not self._stop.is_set():
            if self.semantic.wait_idle(_LOOK):
                done = self.semantic.status()
                took = _duration(self.clock() - started)
                self.say(f"embedding: ready, {int(done['embedded']):,} notes ({took})")  # type: ignore[call-overload]
                return
            now = self.clock()
            if now - last_line < self.every:
                continue
            last_line = now
            status = self.semantic.status()
            embedded = int(status["embedded"])  # type: ignore[call-overload]
            total = embedded + int(status["pending"])  # type: ignore[call-overload]
            known = int(status.get("languages_known", 0))  # type: ignore[call-overload]
            if embedded == 0 and known < total:
                self.say(f"embedding: reading the notes' languages, {known:,} of {total:,}")
                continue
            share = f"{embedded:,} of {total:,} notes ({100 * embedded // max(total, 1)}%)"
            if first is None or embedded <= first[1]:
                first = first or (now, embedded)
                self.say(f"embedding: {share}")
                continue
            rate = (embedded - first[1]) / (now - first[0])
            left = _duration((total - embedded) / rate)
            self.say(f"embedding: {share}, about {left} left")
