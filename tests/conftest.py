"""Shared fixtures: temp vaults built from the real template and the tricky-notes fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bridge.vault.store import VaultStore

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "vault-template"
TRICKY = Path(__file__).resolve().parent / "fixtures" / "tricky"


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
