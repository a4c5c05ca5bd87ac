"""The store's contract, checked on bytes and mtimes of real files."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bridge.core.paths import UnsafePathError
from bridge.vault.ignore import IgnoreRules
from bridge.vault.scan import scan_vault
from bridge.vault.store import NoteError, NoteFile, VaultError, VaultStore
from tests.conftest import CEILING, snapshot


def _an_hour_old(*files: Path) -> None:
    """Set mtimes in the past, so any rewrite shows as a new mtime however fast it comes."""
    past = time.time() - 3600
    for file in files:
        os.utime(file, (past, past))


def test_reading_every_note_changes_nothing(store: VaultStore) -> None:
    _an_hour_old(*(p for p in store.root.rglob("*") if p.is_file()))
    before = snapshot(store.root)
    for path in store.iter_paths():
        store.read(path).parse()
    scan_vault(store)
    assert snapshot(store.root) == before


def test_writing_unchanged_bytes_does_not_touch_the_file(store: VaultStore) -> None:
    path = "engineering/auth/jwt_expiry.md"
    note = store.read(path)
    _an_hour_old(store.root / path)
    mtime = (store.root / path).stat().st_mtime_ns
    result = store.write(path, note.data)
    assert not result.changed
    assert (store.root / path).stat().st_mtime_ns == mtime


def test_surgical_status_edit_changes_exactly_that_line(store: VaultStore) -> None:
    path = "engineering/auth/session_refresh.md"
    before = snapshot(store.root)
    old = store.read(path).text.split("\n")
    result = store.set_frontmatter(path, "status", "core")
    assert result.changed
    new = (store.root / path).read_text().split("\n")
    diff = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(diff) == 1 and diff[0][1] == "status: core"
    after = snapshot(store.root)
    assert {k for k in after if after[k] != before[k]} == {path}


def test_write_creates_folders_and_keeps_the_file_mode(store: VaultStore) -> None:
    store.write("new/topic/entry.md", b"# New\n")
    assert (store.root / "new/topic/entry.md").read_bytes() == b"# New\n"
    target = store.root / "engineering/auth/jwt_expiry.md"
    target.chmod(0o600)
    store.write("engineering/auth/jwt_expiry.md", b"# changed\n")
    assert target.stat().st_mode & 0o777 == 0o600


def test_no_temp_file_is_left_and_listing_ignores_temp_files(store: VaultStore) -> None:
    store.write("a/b/c.md", b"x")
    leftovers = [p for p in store.root.rglob("*") if ".vb-tmp-" in p.name]
    assert leftovers == []
    (store.root / "a/b/.c.md.vb-tmp-123").write_bytes(b"half")
    assert "a/b/.c.md.vb-tmp-123" not in list(store.iter_paths())


def _write_then_hang(root: str, path: str, started: multiprocessing.synchronize.Event) -> None:
    """A child that stops for good after writing the temp file, before the rename."""
    store = VaultStore(Path(root))

    def hang(_fd: int) -> None:
        started.set()
        threading.Event().wait()  # for good: the parent kills it here

    os.fsync = hang  # the crash point: data written to the temp file, not yet renamed
    store.write(path, b"# half-written new version\n" * 1000)


def test_a_crash_mid_write_leaves_the_old_note_intact(store: VaultStore) -> None:
    path = "billing/plans/annual_plan.md"
    original = (store.root / path).read_bytes()
    ctx = multiprocessing.get_context("fork")
    started = ctx.Event()
    child = ctx.Process(target=_write_then_hang, args=(str(store.root), path, started))
    child.start()
    assert started.wait(CEILING), "the child never reached the crash point"
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join(CEILING)
    assert (store.root / path).read_bytes() == original
    temps = [p for p in (store.root / "billing/plans").iterdir() if ".vb-tmp-" in p.name]
    assert len(temps) == 1, "the crash should have left its temp file behind"
    assert path in list(store.iter_paths()) and all(".vb-tmp-" not in p for p in store.iter_paths())
    assert store.clean_temp_files(older_than_seconds=0) == [
        temps[0].relative_to(store.root).as_posix()
    ]


def test_ignore_rules(tmp_path: Path) -> None:
    files = [
        "a/note.md",
        "root.md",
        ".obsidian/workspace.md",
        ".trash/old.md",
        ".git/x.md",
        ".hidden/x.md",
        "templates/entry.md",
        "attachments/readme.md",
        "a/image.png",
        "a/note (Conflicted copy 2026-11-02).md",
        "a/note.sync-conflict-20261102-123456-ABC.md",
        "a/note.md.icloud",
        "a/.note.md.vb-tmp-abc",
    ]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# x\n")
    assert sorted(VaultStore(tmp_path).iter_paths()) == ["a/note.md", "root.md"]
    custom = VaultStore(tmp_path, IgnoreRules(("a/**",)))
    assert sorted(custom.iter_paths()) == ["attachments/readme.md", "root.md", "templates/entry.md"]


# -- bad input: each gets a clear message naming the file, no crash, no write ---------------


def problem_of(store: VaultStore, path: str) -> NoteError:
    with pytest.raises(NoteError) as info:
        store.read(path)
    assert path in str(info.value)
    return info.value


def test_binary_file_named_md(tmp_path: Path) -> None:
    (tmp_path / "blob.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    err = problem_of(VaultStore(tmp_path), "blob.md")
    assert err.problem.code == "binary" and "binary" in str(err)


def test_huge_note_is_refused_with_the_limit(tmp_path: Path) -> None:
    (tmp_path / "huge.md").write_bytes(b"word " * (2 * 1024 * 1024))  # 10 MB
    err = problem_of(VaultStore(tmp_path), "huge.md")
    assert err.problem.code == "too_large" and "10.0 MB" in str(err)
    big_limit = VaultStore(tmp_path, max_note_bytes=20 * 1024 * 1024)
    assert big_limit.read("huge.md").size == 10 * 1024 * 1024


def test_non_utf8_note_is_readable_but_never_writable(tmp_path: Path) -> None:
    (tmp_path / "latin1.md").write_bytes(
        "---\nstatus: draft\n---\ncaf\xe9 menu\n".encode("latin-1")
    )
    store = VaultStore(tmp_path)
    note = store.read("latin1.md").parse()
    assert "caf\ufffd menu" in note.body
    assert [p.code for p in note.problems] == ["not_utf8"]
    before = (tmp_path / "latin1.md").read_bytes()
    with pytest.raises(NoteError, match="UTF-8"):
        store.set_frontmatter("latin1.md", "status", "core")
    assert (tmp_path / "latin1.md").read_bytes() == before


def test_malformed_frontmatter_is_never_written(tricky_vault: Path) -> None:
    store = VaultStore(tricky_vault)
    before = (tricky_vault / "malformed_yaml.md").read_bytes()
    with pytest.raises(NoteError, match=r"malformed_yaml\.md: malformed YAML frontmatter"):
        store.set_frontmatter("malformed_yaml.md", "status", "core")
    assert (tricky_vault / "malformed_yaml.md").read_bytes() == before


def test_symlink_leaving_the_vault_is_refused(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\n")
    (vault / "link.md").symlink_to(secret)
    (vault / "linked_dir").symlink_to(tmp_path)
    store = VaultStore(vault)
    err = problem_of(store, "link.md")
    assert err.problem.code == "outside_vault"
    with pytest.raises(UnsafePathError):
        store.write("link.md", b"# overwrite\n")
    with pytest.raises(UnsafePathError):
        store.write("linked_dir/new.md", b"x")
    assert secret.read_text() == "# secret\n"
    assert not (tmp_path / "new.md").exists()
    assert "link.md" in [p.path for p in scan_vault(store).problems]


@pytest.mark.parametrize(
    "path", ["../escape.md", "a/../../escape.md", "/etc/x.md", "a:b.md", "a|b.md"]
)
def test_unsafe_paths_are_refused_for_read_and_write(tmp_path: Path, path: str) -> None:
    """Nothing leaves the vault; and a new note needs a name that every platform can hold."""
    store = VaultStore(tmp_path / "v") if (tmp_path / "v").mkdir() is None else None
    assert store is not None
    with pytest.raises(UnsafePathError):
        store.write(path, b"x")
    with pytest.raises(NoteError):
        store.read(path)
    assert list(tmp_path.rglob("*.md")) == []


def test_a_humans_oddly_named_note_is_read_and_updated(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    for name in ("aux.md", "C# tips.md", "[draft] plan.md", "caf\u0065\u0301.md"):
        (tmp_path / "notes" / name).write_text(f"# {name}\n")
    store = VaultStore(tmp_path)
    listed = sorted(store.iter_paths())
    assert len(listed) == 4
    for path in listed:
        file = store.read(path)
        assert store.write(path, file.data + b"more\n", expected=file.data).changed
    # An NFC spelling finds the NFD file a Mac made.
    assert store.read("notes/caf\u00e9.md").text.startswith("# caf")


def test_missing_vault_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="does not exist"):
        VaultStore(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(VaultError, match="not a folder"):
        VaultStore(tmp_path / "file")


@contextmanager
def unprivileged() -> Iterator[None]:
    """Act as `nobody` for file permission checks when the tests run as root."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(65534)
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def test_unreadable_note_is_reported_and_the_listing_goes_on(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    vault = Path(tmp_path_factory.mktemp("perm"))
    for folder in [vault, *vault.parents]:
        if folder == Path("/"):
            break
        if folder.stat().st_uid == os.geteuid():
            folder.chmod(folder.stat().st_mode | 0o055)  # let `nobody` walk to the vault
    (vault / "secret.md").write_text("# secret\n")
    (vault / "secret.md").chmod(0o000)
    (vault / "ok.md").write_text("# fine\n")
    (vault / "ok.md").chmod(0o644)
    with unprivileged():
        store = VaultStore(vault)
        report = scan_vault(store)
    assert [n.path for n in report.notes] == ["ok.md"]
    [problem] = report.problems
    assert problem.path == "secret.md" and problem.code == "unreadable"
    assert "permission denied" in problem.message


def test_a_note_deleted_between_listing_and_reading(tmp_path: Path) -> None:
    (tmp_path / "gone.md").write_text("x")
    store = VaultStore(tmp_path)
    paths = list(store.iter_paths())
    (tmp_path / "gone.md").unlink()
    assert problem_of(store, paths[0]).problem.code == "missing"


def _outcome(read: Callable[[str], NoteFile], path: str) -> object:
    try:
        return read(path)
    except NoteError as exc:
        return exc.problem


def test_reading_a_listed_path_is_reading_it(tmp_path: Path) -> None:
    """`read_listed` (start-up's read, without resolving folders) answers exactly as `read`."""
    vault = tmp_path / "vault"
    (vault / "a/b").mkdir(parents=True)
    (vault / "a/b/plain.md").write_text("---\ntitle: x\n---\n# Plain\n")
    (vault / "root.md").write_text("# Root\n")
    (vault / "binary.md").write_bytes(b"\x00\x01")
    (vault / "latin1.md").write_bytes("# caf\xe9\n".encode("latin-1"))
    (vault / "big.md").write_bytes(b"x" * 2048)
    (vault / "caf\u0065\u0301.md").write_text("# NFD name\n")
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\n")
    (vault / "leaves.md").symlink_to(secret)
    (vault / "inside.md").symlink_to(vault / "root.md")
    os.mkfifo(vault / "pipe.md")
    store = VaultStore(vault, max_note_bytes=1024)
    listed = list(store.iter_paths())
    assert {"a/b/plain.md", "leaves.md", "inside.md", "pipe.md", "big.md"} <= set(listed)
    for path in [*listed, "missing.md"]:
        assert _outcome(store.read_listed, path) == _outcome(store.read, path), path


def test_walking_a_folder_name_no_disk_can_hold_yields_nothing(tmp_path: Path) -> None:
    """A NUL in a folder name (from an API caller) must not crash the walk."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "n.md").write_text("# n\n")
    store = VaultStore(tmp_path)
    assert list(store.iter_paths("a\x00")) == []
    assert list(store.iter_paths("a")) == ["a/n.md"]
