"""Building a scale, and ranking runs by whichever route applies: the one place that chooses between
the stored scale of the engine and the counting of φ (FFF21 §5, §8).

* :func:`scale` — the closed form, the engine's (cached) scale, or beyond the engine's depth a
  :class:`~irscales.enumeration.counting.CountedScale`.
* :func:`ranked_runs` — φ of runs: counted when :func:`~irscales.enumeration.counting.countable`,
  else read off the engine's scale.
* :func:`distinct_counts_table` — FFF21 §5.1's numbers of distinct values (``data/derived/``).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import numpy as np

from irscales import measures as M
from irscales.enumeration import counting
from irscales.enumeration.counting import CountedScale
from irscales.enumeration.engine import max_enumerable_depth, refuse_beyond, run_engine
from irscales.enumeration.kernels import kernel
from irscales.enumeration.runs import normaliser, numerator
from irscales.enumeration.scale_class import Scale, closed_form
from irscales.paths import repo_root

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["scale", "ranked_runs", "distinct_counts_table"]


def scale(measure: M.Measure | str, N: int, *, c: int = 1, rb: float | None = None, ideal=None,
          method: str = "auto", cache: bool | str | Path = True, memory_mb: int = 1024,
          workers: int | None = None, client=None, progress: bool | None = None,
          verify: str = "full") -> Scale | CountedScale:
    """The scale of ``measure`` over all (c+1)^N runs of length N (FFF21 §5).

    measure   a :class:`irscales.measures.Measure` or its name (``"RBP_p08"``)
    N, c      run length, highest grade (c = 1: binary runs)
    rb        recall base for R, AP, nDCG (only rescales ``values``; φ does not depend on it)
    method    ``"auto"`` (closed form when one exists, else engine; beyond the engine's depth a
              :class:`~irscales.enumeration.counting.CountedScale` where φ can be counted), ``"engine"``,
              ``"closed"``, ``"count"`` (always the counted scale: sizes and ``phi_runs`` only)
    cache     True (under :func:`irscales.paths.cache_dir`), a directory, or False (in memory)
    memory_mb peak memory budget of the chunk tasks (all workers together)
    workers   local processes (default: 2 when more than one chunk); ignored with ``client``
    client    a ``dask.distributed.Client``: chunk tasks are submitted to it
    progress  tqdm bar (default: only when stderr is a terminal)
    verify    ``"full"`` (SHA-256 of cached chunks), ``"size"`` (shape only) when reading a cache
    """
    if isinstance(measure, str):
        measure = M.parse(measure)
    if not isinstance(measure, M.Measure):
        raise TypeError(f"scale: measure must be a Measure or a measure name, got {type(measure).__name__}")
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"scale: N must be a positive integer, got {N!r}")
    if method not in ("auto", "engine", "closed", "count"):
        raise ValueError(f"scale: method must be 'auto', 'engine', 'closed' or 'count', got {method!r}")
    limit, why = max_enumerable_depth(measure, c)
    if method == "count" or (method == "auto" and N > limit):  # issue 20: φ counted, nothing stored
        if counting.countable(measure, N, c):
            return CountedScale(measure, N, rb=rb, c=c)
        if method == "count":
            raise ValueError(f"scale: {measure.key} is not counted at N={N}: {counting.counting_depth(measure, c)[1]}")
    refuse_beyond(measure, N, limit, why)
    num = numerator(measure)
    norm = normaliser(measure, N, rb, ideal)
    if isinstance(measure, M.R):
        norm = (float(rb) if rb is not None else float(N)) / N
    closed = closed_form(num, N) if c == 1 else None
    if method == "closed" and closed is None:
        raise ValueError(f"scale: no closed form for {measure!r} (closed forms: P, R, RR, RBP p ≤ 1/2)")
    ker = kernel(num, N, c)
    common = dict(measure=measure, N=N, c=c, mode=ker.mode, rb=rb, ideal=ideal, norm=norm,
                  denominator=ker.denominator)
    if closed is not None and method != "engine":
        common["mode"] = "int"  # closed forms have exact integer keys (counts, ranks or run ids)
        return Scale(chunks=closed[0], key_kind=closed[1], method="closed", **common)
    chunks, directory = run_engine(ker, cache, memory_mb, workers, client, progress, verify)
    return Scale(chunks=chunks, method="engine", directory=directory, **common)


def ranked_runs(measure: M.Measure | str, rel, ties: str = "unq", *, progress: bool = False, c: int = 1,
                **scale_kwargs) -> np.ndarray:
    """φ of runs ``rel`` (..., N): counted when :func:`countable`, else from the engine's scale
    (``scale_kwargs`` go to :func:`scale`; it may build and cache the scale)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    N = np.asarray(rel).shape[-1]
    if counting.countable(m, N, c, ties):
        return counting.phi_runs(m, rel, ties, progress=progress, c=c)
    return scale(m, N, c=c, progress=progress, **scale_kwargs).phi_runs(rel, ties)



def distinct_counts_table(Ns: Iterable[int] = (4, 5, 10, 15, 20, 25, 30),
                          measures: dict[str, M.Measure] | None = None,
                          out: str | Path | None = None, **kwargs) -> pd.DataFrame:
    """Number of distinct values of each measure at each run length (FFF21 §5.1, Figs. 3–5).

    Writes a CSV with columns ``measure, N, n_runs, n_distinct, max_count, mode, method`` to ``out``
    (default ``data/derived/distinct_counts.csv`` in a source checkout) and returns the frame.
    Recall-base measures are counted on one topic: their counts do not depend on RB > 0 (module
    docstring). ``kwargs`` go to :func:`scale` (cache, memory_mb, workers, ...).
    """
    import pandas as pd

    measures = measures or M.FFF21_MEASURES
    rows = []
    for N in Ns:
        for name, m in measures.items():
            s = scale(m, N, rb=N if m.needs_rb else None, **kwargs)
            max_count = max(ch.max_count() for ch in s.chunks)
            rows.append({"measure": name, "N": N, "n_runs": s.n_runs, "n_distinct": s.n_distinct,
                         "max_count": max_count, "mode": s.mode, "method": s.method})
    df = pd.DataFrame(rows)
    if out is None:
        root = repo_root()
        out = (root / "data" / "derived" / "distinct_counts.csv") if root else Path("distinct_counts.csv")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=False)
    return df
