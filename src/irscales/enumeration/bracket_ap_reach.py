"""How far AP's bracket (:mod:`irscales.enumeration.bracket_ap`) reaches, what it costs, and the size K of φ's
range it divides by (issue 42): :func:`bracket_depth`, :func:`bracket_cost`, :func:`k_bounds`. The bounded route
(:mod:`irscales.enumeration.bounded`) reads them to decide what it offers."""
from __future__ import annotations

import csv
import functools

from irscales import measures as M
from irscales.enumeration import ap_count
from irscales.enumeration.bracket_ap import check_ap_depth, check_ap_measure
from irscales.paths import repo_root
from irscales.options import DEFAULT_TIES, UNQ

__all__ = ["bracket_depth", "bracket_cost", "k_bounds"]

_DEPTH_MAX_N = 200  # deepest N where the bracket reaches 1 % on the Robust 2004 runs within about a minute


@functools.lru_cache(maxsize=1)
def _distinct_counts() -> dict[int, int]:
    """Exact numbers of distinct AP values the engine wrote to ``data/derived/distinct_counts.csv`` (N = 25
    and 30 beyond the deduplication; :func:`irscales.enumeration.distinct_counts_table`); {} outside a checkout."""
    root = repo_root()
    path = root / "data" / "derived" / "distinct_counts.csv" if root else None
    if path is None or not path.is_file():
        return {}
    with path.open(encoding="utf-8") as fh:
        return {int(r["N"]): int(r["n_distinct"]) for r in csv.DictReader(fh) if r["measure"] == "AP"}


def k_bounds(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES) -> tuple[int, int]:
    """Bounds on K, the number of values of the scale: 2^N runs (min/max/mid, exact); distinct SP values
    (unq): exact by deduplication to N = 24 and from the engine's derived table at N = 25 and 30; otherwise
    the proven K(N) ≥ K(N') for the largest known N' < N (a run padded with non-relevant ranks keeps its SP)
    and K(N) ≤ 2^N, far from 1 %."""
    check_ap_measure(measure, N)
    check_ap_depth(N)
    if ties != UNQ:
        return 2**N, 2**N
    if N <= ap_count.FULL_MAX_N:
        k = ap_count.n_distinct_sp(N)
        return k, k
    known = _distinct_counts()
    if N in known:
        return known[N], known[N]
    below = max((n for n in known if n < N), default=None)
    return (known[below] if below else N + 1), 2**N


def bracket_depth(measure: M.Measure | str, c: int = 1, ties: str = DEFAULT_TIES) -> tuple[float, str]:
    """Deepest N of the bounded route and why."""
    check_ap_measure(measure)
    if ties == UNQ:
        return ap_count.FULL_MAX_N, ("distinct AP values: exact by deduplication to N = 24; no deterministic "
                                     "bracket of the distinct values is known beyond")
    return _DEPTH_MAX_N, (f"rounded programme over ranks: within 1 % in about a minute for the Robust 2004 runs "
                          f"to N = {_DEPTH_MAX_N}; deeper (N = 1000) the far lower tail needs grids of ~10^5 "
                          "per unit of SP (bounds stay proven, but wider)")


def bracket_cost(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES,
                 n_runs: int = 1) -> tuple[float, int]:
    """Rough (seconds, bytes) of :func:`phi_bounds` to 1 % for realistic runs, calibrated on the 10 Robust
    2004 runs × 249 topics (docs/benchmarks.md): about 3 s at N = 100 and 40 s at N = 200, growing as N³
    (finer grids × more hits × longer runs); memory ~40 MB·(N/100)³ beside the interpreter. Beyond
    N ≈ 300 the estimate says why the bound does not reach 1 % in a minute (N = 1000: hours)."""
    check_ap_measure(measure, N)
    check_ap_depth(N)
    if ties == UNQ and N <= ap_count.FULL_MAX_N:
        return 1.0 + 2**N / 2e7, 2**N * 8 * 4  # all 2^N keys deduplicated
    scale = (N / 100) ** 3
    return max(1.0, 5.0 * scale) + 1e-4 * n_runs, int(4e7 * max(scale, 0.05))
