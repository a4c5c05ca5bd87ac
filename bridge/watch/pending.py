"""What changed since the last batch, coalesced per path (pure bookkeeping, no I/O, no clock).

The event handler only says *where* something happened; what happened is decided later by
looking at the disk. So ten modify events of one Obsidian save, or a delete followed by a
create, are one dirty path here, and the applier reads the file once.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Move:
    """A rename reported by the file system: a note (`is_dir` False) or a whole folder."""

    src: str
    dest: str
    is_dir: bool = False


@dataclass(frozen=True)
class Batch:
    """One settled set of changes for the applier.

    `paths`: note paths to look at again (created, modified, deleted, either end of a move).
    `moves`: renames in the order they happened. `dirs_gone`: folders deleted or moved out of
    the vault (every indexed note under them is looked at). `dirs_new`: folders that appeared
    (their notes are listed from disk). `rescan`: events were lost, reconcile the whole vault.
    """

    paths: frozenset[str] = frozenset()
    moves: tuple[Move, ...] = ()
    dirs_gone: frozenset[str] = frozenset()
    dirs_new: frozenset[str] = frozenset()
    rescan: bool = False

    @property
    def size(self) -> int:
        return len(self.paths) + len(self.moves) + len(self.dirs_gone) + len(self.dirs_new)


@dataclass
class Pending:
    """The changes not yet handed to the applier. Not thread-safe: the debouncer guards it."""

    paths: dict[str, None] = field(default_factory=dict)  # an ordered set
    moves: list[Move] = field(default_factory=list)
    dirs_gone: dict[str, None] = field(default_factory=dict)
    dirs_new: dict[str, None] = field(default_factory=dict)
    rescan: bool = False

    @property
    def empty(self) -> bool:
        return not (self.paths or self.moves or self.dirs_gone or self.dirs_new or self.rescan)

    def touch(self, path: str) -> None:
        self.paths[path] = None

    def move(self, move: Move) -> None:
        self.moves.append(move)
        if not move.is_dir:
            self.paths[move.src] = None
            self.paths[move.dest] = None
        else:
            # The new folder is listed from disk too: it may hold notes the index never had.
            self.dirs_new[move.dest] = None

    def dir_gone(self, folder: str) -> None:
        self.dirs_gone[folder] = None

    def dir_new(self, folder: str) -> None:
        self.dirs_new[folder] = None

    def take(self) -> Batch:
        """Everything pending as one batch; `self` is empty afterwards."""
        batch = Batch(
            frozenset(self.paths),
            tuple(self.moves),
            frozenset(self.dirs_gone),
            frozenset(self.dirs_new),
            self.rescan,
        )
        self.paths.clear()
        self.moves.clear()
        self.dirs_gone.clear()
        self.dirs_new.clear()
        self.rescan = False
        return batch


def resolve_moves(moves: list[Move] | tuple[Move, ...], indexed: list[str]) -> dict[str, str]:
    """Where each indexed note ended up after `moves`, applied in order: `{old: new}`.

    Chains collapse (`a -> b -> c` is `a -> c`), a note moved back where it was is no move, and
    a folder move carries every note under it, including notes an earlier move put there.
    `indexed` is the list of paths the index holds before the batch.
    """
    known = set(indexed)
    origin_of: dict[str, str] = {}  # current path -> path in the index
    moved: set[str] = set()  # index paths that have left their place

    def relocate(current: str, new: str) -> None:
        origin = origin_of.pop(current, current)
        moved.add(origin)
        origin_of[new] = origin

    def tracked(path: str) -> bool:
        return path in origin_of or (path in known and path not in moved)

    for move in moves:
        if not move.is_dir:
            if tracked(move.src):
                relocate(move.src, move.dest)
            continue
        prefix = move.src + "/"
        under = [p for p in origin_of if p.startswith(prefix)]
        under += [p for p in known if p.startswith(prefix) and p not in moved]
        for current in dict.fromkeys(under):
            relocate(current, move.dest + current[len(move.src) :])
    return {origin: current for current, origin in origin_of.items() if origin != current}
