"""pandas, loaded on first use (issue 49).

Importing pandas costs 0.35–0.45 s of CPU, more than everything else ``irscales scores`` does on runs read
before (the cache of judged runs and of qrels, :mod:`irscales.data._trec_cache`); the data layer and the
evaluation use it for frames given in memory, the general parser and the tables, none of which that call
needs. Modules on that path bind ``pd`` to :data:`pandas` below instead of the module: the first attribute
read (``pd.DataFrame``, ``pd.factorize`` …) imports pandas, as ``import pandas`` would, under Python's
import lock (reading threads may ask at once). :func:`is_frame` asks whether a value is a frame without
importing pandas: no frame exists before pandas is loaded.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["LazyModule", "pandas", "is_frame"]


class LazyModule:
    """A stand-in for the module ``name``: every attribute read imports it (a no-op once loaded) and returns
    the module's attribute."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, loaded on first use>"


pandas = LazyModule("pandas")


def is_frame(x: Any) -> bool:
    """Whether ``x`` is a pandas DataFrame; when pandas is not loaded (or still loading) it cannot be one, and
    pandas stays unloaded."""
    return isinstance(x, getattr(sys.modules.get("pandas"), "DataFrame", ()))
