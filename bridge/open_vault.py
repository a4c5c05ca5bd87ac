"""What an opened vault offers the services that need several of its parts at once.

`runtime.Bridge` is one; the services name this port instead, so they need not import the
wiring that builds them (only the faces do: docs/architecture.md). The settings they read
are named here one by one (`VaultSettings`), so the port does not import the wiring's
`bridge.settings` either.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from bridge.core.lifecycle import LifecycleParams
from bridge.core.maturity import StatusMapping
from bridge.core.review_policy import ReviewPolicy
from bridge.index.search_index import SearchIndex
from bridge.state.lifecycle_store import LifecycleStore
from bridge.vault.store import VaultStore


class VaultSettings(Protocol):
    """The settings the services read through the port (`bridge.settings.Settings` has them)."""

    @property
    def vault_path(self) -> Path: ...

    @property
    def debounce_ms(self) -> int: ...

    @property
    def review_policy(self) -> ReviewPolicy: ...

    @property
    def status_mapping(self) -> StatusMapping: ...

    @property
    def lifecycle_params(self) -> LifecycleParams: ...

    @property
    def exclude(self) -> Sequence[str]: ...

    @property
    def max_note_bytes(self) -> int: ...


class OpenVault(Protocol):
    """One vault's settings, files, index and lifecycle, opened together."""

    @property
    def settings(self) -> VaultSettings: ...

    @property
    def store(self) -> VaultStore: ...

    @property
    def index(self) -> SearchIndex: ...

    @property
    def lifecycle(self) -> LifecycleStore: ...
