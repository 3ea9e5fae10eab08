"""Count the public names of the core (issue 50, item 4): the names in ``__all__`` of every public module of
``src/irscales`` outside ``papers/``. A module is private if its file name or a package on its path starts with
``_``. Two counts: the issue's (an ``__init__.py`` starts with ``_`` too, so a package's face is left out: at most
300, ``tests/test_layout.py``) and every name, the faces included. ``--list`` prints them by module.

    python scripts/public_names.py [--list]
"""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "irscales"

__all__ = ["public_names", "counts"]


def _all(path: Path, module: str) -> list[str]:
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            try:
                return list(ast.literal_eval(node.value))
            except ValueError:  # made from the registry on first use (irscales/__init__.py): read it from the module
                return list(importlib.import_module(module).__all__)
    return []


def public_names(pkg: Path = PKG) -> dict[str, list[str]]:
    """Public module (dotted) → the names its ``__all__`` exports, for the core (``papers/`` left out)."""
    out = {}
    for path in sorted(pkg.rglob("*.py")):
        parts = path.relative_to(pkg.parent).with_suffix("").parts
        if parts[1:2] == ("papers",) or path.name == "__main__.py":
            continue
        if any(p.startswith("_") for p in parts if p != "__init__"):
            continue
        module = ".".join(p for p in parts if p != "__init__")
        out[module] = _all(path, module)
    return out


def counts(names: dict[str, list[str]] | None = None) -> tuple[int, int]:
    """(the issue's measure: names of public modules other than a package's ``__init__.py``, a file whose name
    starts with ``_``; every name, the packages' faces included)."""
    names = public_names() if names is None else names
    packages = {m for m in names if (PKG.parent / m.replace(".", "/") / "__init__.py").exists()}
    return sum(len(v) for m, v in names.items() if m not in packages), sum(map(len, names.values()))


if __name__ == "__main__":
    sys.path.insert(0, str(PKG.parent))  # the package's face (irscales/__init__) is read from the source tree
    names = public_names()
    if "--list" in sys.argv:
        for module, exported in names.items():
            print(f"{len(exported):4d} {module}: {' '.join(exported)}")
    modules, every = counts(names)
    print(f"{modules} public names of the core in its public modules (package __init__ faces left out: private by "
          f"their file name); {every} with the faces, {len({n for v in names.values() for n in v})} distinct, "
          f"in {len(names)} public modules")
