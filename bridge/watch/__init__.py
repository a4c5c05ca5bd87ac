"""Live vault watching: a watchdog observer, a debouncer and the applier that keeps the index
and the lifecycle in line with the files while humans and agents edit them (docs/watching.md)."""

from bridge.watch.applier import AppliedChanges, ChangeApplier, WatchStats
from bridge.watch.live import LiveVault, WatchError

__all__ = ["AppliedChanges", "ChangeApplier", "LiveVault", "WatchError", "WatchStats"]
