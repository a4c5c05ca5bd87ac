"""Background tasks for slow requests (LLM curation): start now, poll `/v1/tasks/{id}`."""

from __future__ import annotations

import itertools
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

TaskState = Literal["queued", "running", "done", "failed"]


class TaskFailedError(Exception):
    """Work that failed but has a result to show (what a curation applied before its model
    failed): the task ends `failed`, with `result` and the message as `error`."""

    def __init__(self, message: str, result: dict[str, Any]) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class Task:
    id: str
    kind: str
    state: TaskState = "queued"
    result: dict[str, Any] | None = None
    error: str | None = None
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "result": self.result,
            "error": self.error,
            "created": self.created,
        }


class TaskRunner:
    """Runs each task in its own thread; keeps the last `keep` tasks for polling."""

    def __init__(self, keep: int = 200) -> None:
        self._lock = threading.Lock()
        self._tasks: OrderedDict[str, Task] = OrderedDict()
        self._ids = itertools.count(1)
        self._keep = keep
        self._threads: list[threading.Thread] = []

    def start(self, kind: str, work: Callable[[], dict[str, Any]]) -> Task:
        task = Task(f"t-{next(self._ids)}", kind)
        with self._lock:
            self._tasks[task.id] = task
            while len(self._tasks) > self._keep:
                self._tasks.popitem(last=False)

        def run() -> None:
            task.state = "running"
            try:
                task.result = work()
                task.state = "done"
            except TaskFailedError as exc:
                task.result, task.error = exc.result, str(exc)
                task.state = "failed"
            except Exception as exc:  # reported to the caller through the task
                task.error = f"{type(exc).__name__}: {exc}"
                task.state = "failed"
                traceback.print_exc()

        thread = threading.Thread(target=run, name=f"task-{task.id}", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return task

    def get(self, task_id: str) -> Task | None:
        with self._lock:
            return self._tasks.get(task_id)

    def wait(self, timeout: float = 30.0) -> None:
        """Wait for running tasks (a clean shutdown lets curation finish its writes)."""
        for thread in list(self._threads):
            thread.join(timeout)
