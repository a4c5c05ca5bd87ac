"""One note's lifecycle numbers as a plain document: shared by the CLI, the API and MCP."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bridge.core import lifecycle as akl
from bridge.core.maturity import Maturity, StatusMapping
from bridge.state.lifecycle_store import LifecycleStore, LifecycleView
from bridge.vault.store import VaultStore

UNREADABLE_FRONTMATTER = ("malformed_frontmatter", "yaml_too_complex")


def forecast_json(
    f: akl.Forecast | None, text: str, names: Mapping[Maturity, str]
) -> dict[str, Any]:
    return {
        "text": text,
        "to": None if f is None else f.to.value,
        "to_status": None if f is None else names[f.to],
        "in_days": None if f is None else round(f.in_days, 4),
    }


def explain(
    store: VaultStore, lifecycle: LifecycleStore, mapping: StatusMapping, rel: str, now: datetime
) -> tuple[LifecycleView, dict[str, Any]]:
    """The view of note `rel` (a normalised path) and its JSON document.

    Raises the store's `NoteError` when the note cannot be read.
    """
    note = store.read(rel).parse()
    view = lifecycle.view(rel, note.entry.status, note.entry.updated, now)
    forecast = lifecycle.forecast(view, now)
    text = akl.describe_forecast(forecast, mapping.names, current=view.maturity)
    # YAML that does not parse leaves the note no `status`: the report says the frontmatter
    # is unreadable, not that status `none` is no lifecycle word.
    unreadable = next((p for p in note.problems if p.code in UNREADABLE_FRONTMATTER), None)
    if unreadable is not None:
        text = "no change: the bridge writes no status into frontmatter it cannot read"
    elif not view.managed:
        text = "no change: the bridge does not rewrite this status"
    document = {
        "path": rel,
        "importance": round(view.importance, 4),
        "recency": round(view.recency, 6),
        "maturity": view.maturity.value,
        "status": view.status,
        "managed": view.managed,
        "access_count": view.access_count,
        "update_count": view.update_count,
        "last_update": None if view.last_update is None else view.last_update.isoformat(),
        "last_access": None if view.last_access is None else view.last_access.isoformat(),
        "last_writer": view.last_writer,
        "stale": view.stale,
        "tracked": view.tracked,
        "frontmatter_problem": None if unreadable is None else unreadable.message,
        "forecast": forecast_json(forecast, text, mapping.names),
    }
    return view, document
