"""Block texts (the excerpts) live beside the index: they follow its commits and its crashes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from bridge.index.search_index import SearchIndex
from bridge.index.sync import reconcile
from bridge.vault.store import VaultStore

NOTE = "billing/plans/team_plan.md"


def _texts(index: SearchIndex, path: str) -> str:
    """Every block text of the note, as excerpts are made from them."""
    stamp = index.stamp(path)
    assert stamp is not None
    record = index.records([stamp.nid])[stamp.nid]
    found = index.blocks((stamp.nid, o) for o in range(record.blocks + 5))
    return "\n".join(b.text for _, b in sorted(found.items()))


def test_an_edit_shows_in_excerpts_from_its_commit_on(template_vault: Path, tmp_path: Path) -> None:
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(store, index)
    before = _texts(index, NOTE)
    assert "seat" in before.lower()

    note = template_vault / NOTE
    note.write_text(note.read_text() + "\nInvoices for the Team plan go out on the 3rd.\n")
    file = store.read(NOTE)
    index.upsert(file, file.parse())
    assert _texts(index, NOTE) == before  # staged: a query still sees the committed note
    index.commit()
    after = _texts(index, NOTE)
    assert "go out on the 3rd" in after and after.startswith(before.split("\n")[0])

    nid = index.stamp(NOTE).nid  # type: ignore[union-attr]
    index.remove(NOTE)
    index.commit()
    assert index.blocks([(nid, 0), (nid, 1)]) == {}  # a removed note has no excerpt left
    index.close()


_CRASH = """
import os, sys
from pathlib import Path
from bridge.index.search_index import SearchIndex
from bridge.vault.store import VaultStore

vault, state = Path(sys.argv[1]), Path(sys.argv[2])
store = VaultStore(vault)
index = SearchIndex(state)
note = vault / "{note}"
note.write_text(note.read_text() + "\\nStaged, never committed: the tapir clause.\\n")
file = store.read("{note}")
index.upsert(file, file.parse())
other = store.read("team/practices/code_review.md")
index.upsert(other, other.parse())
os._exit(9)  # a crash with the batch staged, before any commit
"""


def test_a_crash_mid_batch_loses_no_text_and_serves_none_half_written(
    template_vault: Path, tmp_path: Path
) -> None:
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(store, index)
    before = _texts(index, NOTE)
    index.close()

    script = textwrap.dedent(_CRASH).format(note=NOTE)
    done = subprocess.run(
        [sys.executable, "-c", script, str(template_vault), str(tmp_path / "index")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 9, done.stderr

    reopened = SearchIndex(tmp_path / "index")
    assert not reopened.rebuilt
    assert _texts(reopened, NOTE) == before  # the staged batch was rolled back
    report = reconcile(store, reopened)  # the file changed on disk: indexed again
    assert report.changed == [NOTE]
    assert "the tapir clause" in _texts(reopened, NOTE)
    reopened.close()


def test_a_second_opener_waits_for_nothing_and_deletes_nothing(
    template_vault: Path, tmp_path: Path
) -> None:
    """A second `serve` on the vault opens the index while the first stages a batch (it is
    then refused at the writer lock): it must neither block on nor wipe the first's texts."""
    store = VaultStore(template_vault)
    first = SearchIndex(tmp_path / "index")
    reconcile(store, first)
    before = _texts(first, NOTE)
    note = template_vault / NOTE
    note.write_text(note.read_text() + "\nA staged line about the okapi tier.\n")
    file = store.read(NOTE)
    first.upsert(file, file.parse())  # a batch staged, its write transaction open

    second = SearchIndex(tmp_path / "index")
    assert not second.rebuilt and _texts(second, NOTE) == before
    second.block_store.close()
    second.manifest.close()

    first.commit()
    assert "okapi tier" in _texts(first, NOTE)
    first.close()
