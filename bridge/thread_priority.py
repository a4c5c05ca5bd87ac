"""Background threads that yield the CPU to answers."""

from __future__ import annotations

import contextlib
import os
import threading


def lower_thread_priority() -> None:
    """Run the calling thread at nice 10 where the system allows it (Linux: per thread).

    Embedding the vault and reading the index ahead run beside questions on 2 cores: the
    scheduler should give the answer thread the core first.
    """
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not allowed
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
