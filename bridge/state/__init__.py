"""Side state outside the vault: the SQLite database and the lifecycle records kept in it."""

from bridge.state.db import StateDB, StateDBError
from bridge.state.lifecycle_store import LifecycleStore, LifecycleView, NoteItem, open_lifecycle

__all__ = [
    "LifecycleStore",
    "LifecycleView",
    "NoteItem",
    "StateDB",
    "StateDBError",
    "open_lifecycle",
]
