"""Building a scale, and ranking runs, by the route the planner chooses (:mod:`irscales.enumeration.routes`;
FFF21 §5, §8).

* :func:`scale` — the closed form, the engine's (cached or built) scale, or a
  :class:`~irscales.enumeration.counting.CountedScale` where building is out of reach or over the budget;
  :func:`plan_scale` is its plan alone (the route it takes: what ``irscales scale`` announces before a build).
* :func:`ranked_runs` — φ of runs: counted, read off a closed-form or cached scale, or built.
* :func:`distinct_counts_table` — FFF21 §5.1's numbers of distinct values (``data/derived/``).

Both obey "estimate, then refuse or build when asked": a build estimated above
:data:`~irscales.enumeration.routes.BUILD_SECONDS_OK` / :data:`~irscales.enumeration.routes.BUILD_BYTES_OK`
needs ``build=True``, and long work shows a progress bar on stderr (by default when it is a terminal).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import numpy as np

from irscales._atomic import write_atomic
from irscales import measures as M
from irscales.enumeration.counting import CountedScale
from irscales.enumeration.routes import Route, choose_route
from irscales.enumeration._runs import normaliser
from irscales.enumeration._scale_class import Scale
from irscales.paths import repo_root
from irscales.options import DEFAULT_TIES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["scale", "plan_scale", "ranked_runs", "distinct_counts_table"]


def scale(measure: M.Measure | str, N: int, *, c: int = 1, rb: float | None = None, ideal=None,
          method: str = "auto", build: bool = False, cache: bool | str | Path = True, memory_mb: int = 1024,
          workers: int | None = None, client=None, progress: bool | None = None,
          verify: str = "full") -> Scale | CountedScale:
    """The scale of ``measure`` over all (c+1)^N runs of length N (FFF21 §5).

    measure   a :class:`irscales.measures.Measure` or its name (``"RBP_p08"``)
    N, c      run length, highest grade (c = 1: binary runs)
    rb        recall base for R, AP, nDCG (only rescales ``values``; φ does not depend on it)
    method    ``"auto"``: the closed form when one exists, else the cached scale, else the engine's build
              when it is within the budget (or ``build=True``), else — where φ can be counted — a
              :class:`~irscales.enumeration.counting.CountedScale` (sizes and exact ``phi_runs``, nothing
              stored), else a refusal with the estimate (:class:`~irscales.enumeration.routes.OverBudget`).
              Or one route: ``"engine"`` (cached or built, also for closed-form measures), ``"closed"``,
              ``"count"``, ``"scale"`` (closed, cached or built). :mod:`irscales.enumeration.routes` plans it.
    build     consent to a build estimated above the budget (``BUILD_SECONDS_OK`` = 10 s or
              ``BUILD_BYTES_OK`` = 100 MB stored); without it such a build is refused with the estimate
              (``method="engine"`` is not consent). Cached scales and cheap builds need no consent.
    cache     True (under :func:`irscales.paths.cache_dir`), a directory, or False (in memory)
    memory_mb peak memory budget of the chunk tasks (all workers together)
    workers   local processes (default: 2 when more than one chunk); ignored with ``client``
    client    a ``dask.distributed.Client``: chunk tasks are submitted to it
    progress  tqdm bar of a build (default: only when stderr is a terminal)
    verify    ``"full"`` (SHA-256 of cached chunks), ``"size"`` (shape only) when reading a cache
    """
    route = plan_scale(measure, N, c=c, rb=rb, ideal=ideal, method=method, build=build, cache=cache)
    return route.scale(rb=rb, ideal=ideal, memory_mb=memory_mb, workers=workers, client=client, progress=progress,
                       verify=verify)


def plan_scale(measure: M.Measure | str, N: int, *, c: int = 1, rb: float | None = None, ideal=None,
               method: str = "auto", build: bool = False, cache: bool | str | Path = True) -> Route:
    """The route :func:`scale` takes for these arguments (its refusals too), without taking it: the API and
    ``irscales scale`` plan through this one function, so they answer alike."""
    route = choose_route(measure, N, c=c, need="scale", method=method, cache=cache, build=build)
    normaliser(route.measure, route.N, rb, ideal)  # a recall base without a scale (rb = 0): refused up front
    return route


def ranked_runs(measure: M.Measure | str, rel, ties: str = DEFAULT_TIES, *, method: str = "auto", build: bool = False,
                progress: bool | None = None, c: int = 1, **scale_kwargs) -> np.ndarray:
    """φ of runs ``rel`` (..., N) with tie strategy ``ties``, by the cheapest exact route
    (:func:`~irscales.enumeration.routes.choose_route` for this number of runs): counted, or read off a
    closed-form, cached or built scale (``scale_kwargs`` — ``cache``, ``memory_mb``, ``workers``,
    ``client``, ``verify`` — go to the build). ``method``: ``"auto"``, ``"count"`` or ``"scale"`` (closed,
    cached or built); ``build``: consent to a build over the budget (else
    :class:`~irscales.enumeration.routes.OverBudget` with the estimate and the cheaper options).

    Returns exact values (:mod:`irscales.enumeration.ties`): ``unq``/``min``/``max`` int64 when every value
    fits, else an object array of Python ints; ``mid`` float64 when every 2φ < 2^53, else Fractions."""
    rel = np.asarray(rel)
    if rel.ndim == 0 or rel.shape[-1] < 1:
        raise ValueError(f"ranked_runs: runs must have shape (..., N) with N ≥ 1, got {rel.shape}")
    N = rel.shape[-1]
    cache = scale_kwargs.pop("cache", True)
    route = choose_route(measure, N, c=c, ties=ties, runs=rel, method=method, cache=cache, build=build)
    return route.phi_runs(rel, ties, progress=progress, **scale_kwargs)


def distinct_counts_table(Ns: Iterable[int] = (4, 5, 10, 15, 20, 25, 30),
                          measures: dict[str, M.Measure] | None = None,
                          out: str | Path | None = None, **kwargs) -> pd.DataFrame:
    """Number of distinct values of each measure at each run length (FFF21 §5.1, Figs. 3–5).

    Writes a CSV with columns ``measure, N, n_runs, n_distinct, max_count, mode, method`` to ``out``
    (default ``data/derived/distinct_counts.csv`` in a source checkout) and returns the frame.
    Recall-base measures are counted on one topic: their counts do not depend on RB > 0 (module
    docstring). ``kwargs`` go to :func:`scale` (cache, memory_mb, workers, ``build=True`` for the
    scales over the budget: N = 25 and 30 need it).
    """
    import pandas as pd

    measures = measures or M.CLASSIC_MEASURES
    rows = []
    for N in Ns:
        for name, m in measures.items():
            s = scale(m, N, rb=N if m.needs_rb else None, **{"method": "scale", **kwargs})  # stored: its counts
            max_count = max(ch.max_count() for ch in s.chunks)
            rows.append({"measure": name, "N": N, "n_runs": s.n_runs, "n_distinct": s.n_distinct,
                         "max_count": max_count, "mode": s.mode, "method": s.method})
    df = pd.DataFrame(rows)
    if out is None:
        root = repo_root()
        out = (root / "data" / "derived" / "distinct_counts.csv") if root else Path("distinct_counts.csv")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, df.to_csv(index=False))
    return df
