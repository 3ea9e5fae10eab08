"""How far AP's bracket (:mod:`irscales.enumeration._bracket_ap`) reaches, within which error, what it costs, and the
size K of φ's range it divides by (issues 42, 51): :func:`bracket_depth`, :func:`reachable_error`,
:func:`bracket_cost`, :func:`k_bounds`. The bounded route (:mod:`irscales.enumeration.bounded`) reads them to decide
what it offers: AP with ties min/max/mid to N = :data:`~irscales.enumeration._bracket_ap.BRACKET_MAX_N`, within a
``max_rel_error`` of at least :func:`reachable_error` at that N (refused below it, the refusal naming it)."""
from __future__ import annotations

import csv
import functools
import math

from irscales import measures as M
from irscales.enumeration import _ap_count as ap_count
from irscales.enumeration._bracket_ap import BRACKET_MAX_N, BUDGET_S, check_ap_depth, check_ap_measure
from irscales.enumeration._bracket_ap_plan import MAX_CELLS
from irscales.paths import repo_root
from irscales.options import DEFAULT_MAX_REL_ERROR, DEFAULT_TIES, UNQ

__all__ = ["bracket_depth", "reachable_error", "bracket_cost", "k_bounds", "REACHABLE"]

#: (N, error): the widest bracket hi/lo − 1 the plan of :mod:`irscales.enumeration._bracket_ap_plan` predicts within
#: :data:`~irscales.enumeration._bracket_ap.BUDGET_S` and its cell cap for the 2,490 values of the 10 Robust 2004 runs
#: × 249 topics (from their pilot's widths: ``benchmarks/bench_bracket_ap.py --reachable``, docs/benchmarks.md; the
#: sweeps measured there reach it: 1 % at N = 300, 0.61 at N = 1000), interpolated log-linearly between them. An
#: estimate for runs like these: other runs' brackets are proven all the same, and the scale table reports the
#: error they reached.
REACHABLE = ((200, 0.0043), (250, 0.0079), (300, 0.014), (350, 0.022), (400, 0.033), (500, 0.063), (600, 0.11),
             (700, 0.18), (800, 0.27), (900, 0.43), (1000, 0.62), (1020, 0.66))


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


def reachable_error(N: int) -> float:
    """The error AP's bracket (ties min/max/mid) reaches at N within its budget on runs like Robust 2004's
    (:data:`REACHABLE`), rounded up to two significant digits."""
    pts = REACHABLE
    if N <= pts[0][0]:
        e = pts[0][1]
    else:
        (n0, e0), (n1, e1) = next((p, q) for p, q in zip(pts, pts[1:]) if N <= q[0]) if N <= pts[-1][0] \
            else (pts[-2], pts[-1])
        e = math.exp(math.log(e0) + (math.log(e1) - math.log(e0)) * (N - n0) / (n1 - n0))
    digits = 1 - math.floor(math.log10(e))
    return math.ceil(e * 10**digits) / 10**digits


def bracket_depth(measure: M.Measure | str, c: int = 1, ties: str = DEFAULT_TIES,
                  rel_error: float = DEFAULT_MAX_REL_ERROR) -> tuple[float, str]:
    """Deepest N of the bounded route within ``rel_error`` and why not further."""
    check_ap_measure(measure)
    if ties == UNQ:
        return ap_count.FULL_MAX_N, ("distinct AP values: exact by deduplication to N = 24; no deterministic "
                                     "bracket of the distinct values is known beyond")
    depth = max((N for N in range(1, BRACKET_MAX_N + 1) if reachable_error(N) <= rel_error), default=0)
    why = (f"rounded count over ranks, proven: within max_rel_error={rel_error:g} in {BUDGET_S:g} s to N = {depth} for "
           "runs like Robust 2004's")
    if depth < BRACKET_MAX_N:
        why += (f"; deeper only within a wider proven error (the far lower tail needs grids of ~10^5 per unit of SP "
                f"for 1 %; about {reachable_error(BRACKET_MAX_N):g} reaches N = {BRACKET_MAX_N})")
    else:
        why += f"; 2^N counts must stay finite in float64 (N ≤ {BRACKET_MAX_N})"
    return depth, why


def bracket_cost(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES,
                 n_runs: int = 1) -> tuple[float, int]:
    """Rough (seconds, bytes) of :func:`phi_bounds` for realistic runs, calibrated on the 10 Robust 2004 runs × 249
    topics (docs/benchmarks.md): about 3 s at N = 100 and 15 s at N = 200 to 1 %, growing as N³ (finer grids ×
    more hits × longer runs) up to the budget; memory ~40 MB·(N/100)³ beside the interpreter, up to one pass's
    cells."""
    check_ap_measure(measure, N)
    check_ap_depth(N)
    if ties == UNQ and N <= ap_count.FULL_MAX_N:
        return 1.0 + 2**N / 2e7, 2**N * 8 * 4  # all 2^N keys deduplicated
    scale = (N / 100) ** 3
    return min(BUDGET_S, max(1.0, 2.0 * scale) + 1e-4 * n_runs), int(min(4e7 * max(scale, 0.05), 8 * MAX_CELLS))
