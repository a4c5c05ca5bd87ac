"""What an opened vault offers the services that need several of its parts at once.

`runtime.Bridge` is one; the services name this port instead, so they need not import the
wiring that builds them (only the faces do: docs/architecture.md).
"""

from __future__ import annotations

from typing import Protocol

from bridge.index.search_index import SearchIndex
from bridge.settings import Settings
from bridge.state.lifecycle_store import LifecycleStore
from bridge.vault.store import VaultStore


class OpenVault(Protocol):
    """One vault's settings, files, index and lifecycle, opened together."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> VaultStore: ...

    @property
    def index(self) -> SearchIndex: ...

    @property
    def lifecycle(self) -> LifecycleStore: ...
