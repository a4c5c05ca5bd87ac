"""The layering of docs/architecture.md, checked on the code's own imports.

Every `import` under `bridge/` is read with `ast`, those behind `if TYPE_CHECKING:` and inside
functions included: an import that only the type checker follows is still a dependency a
reader has to hold in their head, and a circle of them is still a circle.
"""

from __future__ import annotations

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "bridge"
# The faces: the only modules that may open the wiring (`bridge.runtime`).
FACES = ("bridge.cli", "bridge.api", "bridge.mcp")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its `__init__.py`)."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = here.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports, wherever in the file the import stands.

    `from a.b import c` is an import of `a.b.c` when that is a module, else of `a.b`.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            origin = _absolute(node, name, path.name == "__init__.py")
            for alias in node.names:
                child = f"{origin}.{alias.name}"
                found.add(child if child in known else origin)
    return {_owning(target, known) for target in found if target.split(".")[0] == "bridge"} - {name}


def _owning(target: str, known: set[str]) -> str:
    """`bridge.a.b.Name` -> the module `bridge.a.b` (the longest known prefix)."""
    parts = target.split(".")
    while ".".join(parts) not in known and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def _is_under(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


def test_the_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The checks below are only as good as the import reader: show it what it must catch."""
    (tmp_path / "bridge" / "sub").mkdir(parents=True)
    files = {
        "bridge/__init__.py": "",
        "bridge/sub/__init__.py": "from .one import x\n",
        "bridge/sub/one.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from bridge.sub.two import Two\n"
            "def later() -> None:\n    import bridge.three\n"
        ),
        "bridge/sub/two.py": "from bridge import three\nfrom . import one\n",
        "bridge/three.py": "from ..elsewhere import nothing\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).write_text(text)
    known = {"bridge", "bridge.sub", "bridge.sub.one", "bridge.sub.two", "bridge.three"}

    def graph_of(name: str, relative: str) -> set[str]:
        path = tmp_path / relative
        return imports_of(name, path, known)

    assert graph_of("bridge.sub", "bridge/sub/__init__.py") == {"bridge.sub.one"}
    assert graph_of("bridge.sub.one", "bridge/sub/one.py") == {"bridge.sub.two", "bridge.three"}
    assert graph_of("bridge.sub.two", "bridge/sub/two.py") == {"bridge.three", "bridge.sub.one"}


def test_no_module_imports_itself_back_in_a_circle() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the whole package was read
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        circle = " -> ".join(exc.args[1])
        raise AssertionError(f"an import circle (TYPE_CHECKING imports count): {circle}") from None


def test_the_core_imports_no_adapter() -> None:
    wrong = {
        f"{name} imports {target}"
        for name, targets in import_graph().items()
        if _is_under(name, "bridge.core")
        for target in targets
        if not _is_under(target, "bridge.core")
    }
    assert wrong == set(), "bridge/core/ must stay free of I/O: it imports no adapter"


def test_only_the_faces_open_the_wiring() -> None:
    wrong = {
        name
        for name, targets in import_graph().items()
        if "bridge.runtime" in targets and not any(_is_under(name, face) for face in FACES)
    }
    assert wrong == set(), f"these import bridge.runtime but are no face {FACES}"


def test_the_rooms_below_the_wiring_get_their_settings_passed_in() -> None:
    """Only the faces and the wiring read `bridge.settings`: the dense channel, the state, the
    installers and the open-vault port get the values they need from them."""
    wiring = ("bridge.runtime", "bridge.settings")
    wrong = {
        name
        for name, targets in import_graph().items()
        if "bridge.settings" in targets
        and name not in wiring
        and not any(_is_under(name, face) for face in FACES)
    }
    assert wrong == set(), "these import bridge.settings but are no face and not the wiring"


# -- docs/architecture.md's table --------------------------------------------------------------

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def named_in_architecture() -> set[str]:
    """The files and folders under `bridge/` that docs/architecture.md's table names.

    A row names a path in backticks (`bridge/vault/store.py`, `bridge/index/`); a row for a
    folder also names its modules by their file names (`block_store.py`).
    """
    named: set[str] = set()
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        first, rest = line.split("|")[1], line.split("|", 2)[2]
        named |= {p.rstrip("/") for p in re.findall(r"`(bridge/[\w/.]*)`", line)}
        folder = re.fullmatch(r"\s*`(bridge/\w+)/`\s*", first)
        if folder:
            named |= {f"{folder[1]}/{m}" for m in re.findall(r"`(\w+\.py)`", rest)}
    return named


def _present() -> list[str]:
    """Every module and folder of the package, as a path (`__init__.py` files aside)."""
    return [
        path.relative_to(ROOT).as_posix()
        for path in sorted(PACKAGE.rglob("*"))
        if "__pycache__" not in path.parts
        and path.name != "__init__.py"
        and (path.suffix == ".py" or (path / "__init__.py").exists())
    ]


def test_every_module_and_folder_is_in_the_architecture_table() -> None:
    named = named_in_architecture()
    named |= {path.rsplit("/", 1)[0] for path in named}  # a folder whose modules have rows
    missing = [p for p in _present() if p not in named]
    assert missing == [], f"not in docs/architecture.md's table: {missing}"


def test_every_module_the_architecture_table_names_exists() -> None:
    named = named_in_architecture()
    assert len(named) > 50, "docs/architecture.md has no table of bridge/ modules"
    gone = sorted(named - set(_present()))
    assert gone == [], f"docs/architecture.md names what is not there: {gone}"
