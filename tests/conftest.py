"""Shared fixtures: temp vaults built from the real template and the tricky-notes fixtures."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import freezegun
import hypothesis
import pytest

from bridge import obsidian_plugin
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore
from bridge.vault.store import VaultStore

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "vault-template"
TRICKY = Path(__file__).resolve().parent / "fixtures" / "tricky"
# How long a test waits for a condition (a child process started, a file indexed, a thread done)
# before it gives up. Only a ceiling: tests wait for the condition, never for the time, and a
# busy 2-core machine took 11 s for `--version` alone, so it is generous.
CEILING = 300.0

# freezegun swaps the time functions of every loaded module; pytest's own timer must keep the
# real clock, or `--durations` reports a frozen test as 1.8 billion seconds (test_suite_clocks.py).
# Only `_pytest.timing`: freezegun also gives real time to any call with an ignored module within
# five frames up the stack, and `_pytest.python` sits right under every test function.
freezegun.configure(extend_ignore_list=["_pytest.timing"])
# No per-example deadline: hypothesis's 200 ms default fails correct code on a busy machine.
hypothesis.settings.register_profile("vault-bridge", deadline=None)
hypothesis.settings.load_profile("vault-bridge")


@pytest.fixture
def template_vault(tmp_path: Path) -> Path:
    """A private copy of `vault-template/` that a test may change."""
    target = tmp_path / "vault"
    shutil.copytree(TEMPLATE, target)
    return target


@pytest.fixture
def tricky_vault(tmp_path: Path) -> Path:
    """A vault of hand-made notes that exercise the parser's corners."""
    target = tmp_path / "tricky"
    shutil.copytree(TRICKY, target)
    return target


@pytest.fixture
def store(template_vault: Path) -> VaultStore:
    return VaultStore(template_vault)


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mtime, to prove that an operation changed nothing else."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def isolated_environ(base: Path) -> dict[str, str]:
    """This process's environment without the developer's config file, VAULT_BRIDGE_*
    variables, data dir or cache dir (the unpacked language model): theirs under `base`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VAULT_BRIDGE_")}
    empty = base / "empty-config.toml"
    empty.touch()  # an explicit config file must exist; this one sets nothing
    env["VAULT_BRIDGE_CONFIG"] = str(empty)
    env["XDG_DATA_HOME"] = str(base / "xdg-data")
    env["XDG_CACHE_HOME"] = str(base / "xdg-cache")
    return env


def _isolate(monkeypatch: pytest.MonkeyPatch, base: Path) -> None:
    """`isolated_environ(base)` as this process's environment (restored by `monkeypatch`)."""
    env = isolated_environ(base)
    for name in list(os.environ):
        if name not in env:
            monkeypatch.delenv(name)
    for name, value in env.items():
        if os.environ.get(name) != value:
            monkeypatch.setenv(name, value)


@pytest.fixture(autouse=True)
def _isolated_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Tests never read the developer's own config file or VAULT_BRIDGE_* variables."""
    _isolate(monkeypatch, tmp_path_factory.getbasetemp())


def last_writer(state: Path, path: str) -> str | None:
    """Who the state database (of a bridge running in another process) says last wrote `path`."""
    with StateDB.open(state) as db:
        return LifecycleStore(db).last_writer(path)


def open_test_bridge(vault: Path, state: Path) -> Bridge:
    """A real bridge (store, tantivy index, state DB, engine) on a temp vault, synced."""
    bridge = open_bridge(Settings(vault=vault, state_dir=state))
    bridge.sync()
    return bridge


@pytest.fixture
def bridge(template_vault: Path, tmp_path: Path) -> Iterator[Bridge]:
    opened = open_test_bridge(template_vault, tmp_path / "state")
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def template_vectors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template vault's vector file, embedded by the real model once per test process.

    Embedding the template's 30 passages takes 6-8 s of a core, and most dense-channel tests
    need a vault that *has* vectors rather than to watch them being made: they start from a
    copy of this file (`seed_vectors`), as a restarted `serve` starts from its own. The tests
    about embedding itself (fresh, incremental, interrupted, in the background) start empty,
    and one of them checks the warm start against a fresh embedding.
    """
    base = tmp_path_factory.mktemp("template-vectors")
    shutil.copytree(TEMPLATE, base / "vault")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _isolate(monkeypatch, base)
        bridge = open_test_bridge(base / "vault", base / "state")
        try:
            bridge.prepare_semantic(embed=True)
        finally:
            bridge.close()
    [vectors] = (base / "state" / "semantic").glob("*.sqlite")
    return vectors


def seed_vectors(vectors: Path, state: Path) -> Path:
    """`state` (not opened yet) holding a copy of `vectors`, the template's vector file.

    Only notes whose content is the template's take their vectors from it; any other note,
    or one a test changed first, is embedded as usual.
    """
    folder = state / "semantic"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(vectors, folder / vectors.name)  # closed cleanly: no -wal beside it
    return state


@pytest.fixture
def embedded_bridge(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> Iterator[Bridge]:
    """A bridge on a template copy whose every note has vectors (loaded, as after a restart)."""
    opened = open_test_bridge(template_vault, seed_vectors(template_vectors, tmp_path / "state"))
    opened.prepare_semantic(embed=True)
    yield opened
    opened.close()


TOPICS = [
    ("databases", "postgres", "replication lag between the primary and the replicas"),
    ("databases", "redis", "eviction policy allkeys-lru for the session cache"),
    ("frontend", "react", "hydration mismatch warnings in server rendering"),
    ("frontend", "css", "container queries replace the old breakpoint mixins"),
    ("infra", "kubernetes", "pod disruption budgets keep two replicas during drains"),
    ("infra", "terraform", "state locking with a dynamodb table per workspace"),
    ("security", "secrets", "vault tokens rotate daily through the sidecar"),
    ("security", "audit", "audit logs are shipped to cold storage after thirty days"),
    ("product", "pricing", "seat based pricing with a three seat minimum"),
    ("product", "onboarding", "the checklist shows five steps to the first project"),
    ("team", "hiring", "take-home exercises are capped at three hours"),
    ("team", "rituals", "demo day happens every second friday afternoon"),
]


def write_notes(vault: Path, notes: dict[str, str]) -> Path:
    """`vault` holding these notes (relative path -> text), folders made as needed."""
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    return vault


def write_entries(root: Path, count: int) -> list[str]:
    """`count` distinct entries spread over 12 topics, for vaults that need size (OOD rules)."""
    from bridge.core.entry import Entry, render_entry

    paths = []
    for i in range(count):
        domain, topic, fact = TOPICS[i % len(TOPICS)]
        path = f"{domain}/{topic}/note_{i:03d}.md"
        entry = Entry(
            title=f"{topic.title()} note {i}",
            summary=f"{fact} (variant {i})",
            tags=(domain, topic),
            status="stable",
            narrative=f"Notes on {topic}: {fact}. Revision {i} adds detail number {i * 7}.",
        )
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(render_entry(entry))
        paths.append(path)
    return paths


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The plugin as `make plugin` leaves it: the tracked manifest and styles, a main.js."""
    folder = tmp_path / "built"
    folder.mkdir()
    for name in ("manifest.json", "styles.css"):
        shutil.copyfile(ROOT / "obsidian-plugin" / name, folder / name)
    (folder / "main.js").write_text('"use strict"; /* the plugin bundle */\n')
    monkeypatch.setattr(obsidian_plugin, "plugin_source", lambda: folder)
    monkeypatch.setattr("bridge.cli.setup_command.plugin_source", lambda: folder)
    return folder
