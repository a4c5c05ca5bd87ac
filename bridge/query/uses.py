"""Which notes each answer offered and which of them were used: at most one credit per note.

DESIGN section 4: a note earns importance when it is *used* (its text was the answer, it was
opened from the results, a client marked it helpful), never for merely appearing in a ranked
list. Each answer carries a `query_id`; a later open or feedback names that id and the note.
This ledger remembers, for the most recent answers, which notes they offered and which were
already credited, so a note is credited at most once per query however often it is opened.

It lives in memory in the process that answered: a query id is good for the last `capacity`
answers of that process (the `serve` that the plugin and MCP talk to), not across restarts.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from enum import StrEnum


class Credit(StrEnum):
    """What became of one request to credit a note for a query."""

    CREDITED = "credited"
    ALREADY = "already_credited"  # this query already credited this note
    UNKNOWN_QUERY = "unknown_query"  # never issued here, or too old
    NOT_OFFERED = "not_offered"  # the note was not among this answer's sources


def refusal(outcome: Credit | None, query_id: str, path: str) -> str | None:
    """Why a credit request was refused, in words for the caller; None when it was not.

    One wording for every way in (HTTP, MCP), so a client learns the same thing either way.
    """
    if outcome is Credit.UNKNOWN_QUERY:
        return (
            f"no answer with query_id `{query_id}` (ids name the last 10,000 answers of this "
            "bridge; they do not survive a restart)"
        )
    if outcome is Credit.NOT_OFFERED:
        return f"`{path}` is not a source of answer `{query_id}`"
    return None


_Answer = tuple[tuple[str, ...], tuple[str, ...]]
"""(offered, credited): tuples of strings, which the garbage collector stops tracking.

As an object, its dict and two sets each, a full ledger's answers would be objects every
full collection walks while requests wait. An answer offers about ten notes and is credited
rarely, so a scan of a tuple is as quick as a set here.
"""


class UseLedger:
    """The notes offered and credited per query id, for the last `capacity` answers."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._answers: OrderedDict[str, _Answer] = OrderedDict()
        self._lock = threading.Lock()

    def issue(self, query_id: str, offered: Iterable[str]) -> None:
        """Remember what the answer `query_id` offered (its sources)."""
        with self._lock:
            self._answers[query_id] = (tuple(dict.fromkeys(offered)), ())
            while len(self._answers) > self.capacity:
                self._answers.popitem(last=False)

    def credit(self, query_id: str, path: str, offered_only: bool = True) -> Credit:
        """Claim the one credit `path` may get from `query_id`.

        `offered_only=False` also accepts a note the answer did not list: an LLM answer may
        cite a note its tool loop read that was never among the prefetched sources.
        """
        with self._lock:
            answer = self._answers.get(query_id)
            if answer is None:
                return Credit.UNKNOWN_QUERY
            offered, credited = answer
            if offered_only and path not in offered:
                return Credit.NOT_OFFERED
            if path in credited:
                return Credit.ALREADY
            if path not in offered:
                offered = (*offered, path)
            self._answers[query_id] = (offered, (*credited, path))
            return Credit.CREDITED

    def offered(self, query_id: str) -> frozenset[str] | None:
        """The notes the answer offered, None for an unknown query id."""
        with self._lock:
            answer = self._answers.get(query_id)
            return None if answer is None else frozenset(answer[0])
