"""Counting and rank-function identities of FFP19's total orders, and FFP17's basic-operation chains.

FFP19 §4: the set-based order on R(N) (multisets of N degrees out of c + 1) is a chain, so it is graded
of rank |R(N)| − 1 with |R(N)| = C(N + c, N), and its rank function is eq. (2) = SBTO (eq. 3); for
binary relevance ρ is the number of relevant documents (§4.1). FFP19 §5: strong top-heaviness on
REL^N is a chain of (c + 1)^N runs, graded of rank (c + 1)^N − 1, and ρ (eq. 5) = RBTO (eq. 6) is the
run read as a number in base c + 1. :func:`total_order_identities` checks all of these by enumeration.

FFP17 §3.2 (binary runs): a maximal chain of the weak order from 0̂ to r̂ is built with two basic
operators — a *replacement* in the last position (0 → 1 at rank N) and a *single-step forward swap*
at depth k (the relevant document at rank k + 1 moves to rank k, k < N). :func:`chain_operation_counts`
walks every such chain and counts the operations per depth; FFP17 states that these counts are the
cumulative sums R̂ of r̂ (swaps at depth k < N: R̂[k]; replacements: R̂[N]).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from irscales.measures import RBTO, SBTO
from irscales.theory.orders import SetBased, StrongTopHeaviness, graded_runs, multiset_runs

__all__ = ["total_order_identities", "runs_with_operation_counts"]


def total_order_identities(n_binary, n_graded) -> pd.DataFrame:
    """One row per (c, N): every identity of FFP19 §4–5 checked on the whole run space (bools)."""
    rows = []
    for c, ns in ((1, n_binary), (2, n_graded)):
        for n in ns:
            ms, allr = multiset_runs(n, c), graded_runs(n, c)
            sb, st = SetBased(c), StrongTopHeaviness(c)
            rho_set, rho_strong = sb.rank(ms), st.rank(allr)
            base = np.array([int("".join(map(str, r)), c + 1) for r in allr.tolist()])
            rows.append({
                "c": c, "N": n, "|R(N)| multisets": len(ms), "C(N+c, N)": math.comb(n + c, n),
                "size = C(N+c, N)": len(ms) == math.comb(n + c, n),
                "set-based graded of rank |R(N)|-1": bool(np.array_equal(np.sort(rho_set), np.arange(len(ms)))),
                "SBTO = ρ_set (eq. 2-3)": SBTO(c=c).exact(allr).tolist() == sb.rank(allr).tolist(),
                "binary ρ_set = #relevant": (c != 1) or sb.rank(allr).tolist() == allr.sum(axis=1).tolist(),
                "(c+1)^N": len(allr),
                "strong graded of rank (c+1)^N-1": bool(np.array_equal(np.sort(rho_strong), np.arange(len(allr)))),
                "ρ_strong = base c+1 (eq. 5)": bool(np.array_equal(rho_strong, base)),
                "RBTO = ρ_strong (eq. 6)": RBTO(c=c).exact(allr).tolist() == rho_strong.tolist(),
            })
    return pd.DataFrame(rows)


def _check_binary(run) -> tuple[int, ...]:
    r = tuple(int(x) for x in np.asarray(run).ravel())
    if not r or any(x not in (0, 1) for x in r):
        raise ValueError(f"expected a non-empty binary run, got {run!r}")
    return r


def _predecessors(r: tuple[int, ...]):
    """Runs one basic operation below r, with the depth (1-based) of that operation."""
    n = len(r)
    if r[-1] == 1:  # undo a replacement at rank N
        yield r[:-1] + (0,), n
    for k in range(1, n):  # undo a forward swap into rank k: (1, 0) at (k, k+1) came from (0, 1)
        if r[k - 1] == 1 and r[k] == 0:
            yield r[: k - 1] + (0, 1) + r[k + 1:], k


@lru_cache(maxsize=4096)
def _all_counts(r: tuple[int, ...]) -> frozenset:
    if not any(r):
        return frozenset({(0,) * len(r)})
    out = set()
    for p, depth in _predecessors(r):
        for cnt in _all_counts(p):
            out.add(cnt[: depth - 1] + (cnt[depth - 1] + 1,) + cnt[depth:])
    return frozenset(out)


def chain_operation_counts(run) -> tuple[int, ...]:
    """Operations per depth on every maximal chain from 0̂ to ``run`` (binary) built with FFP17's two
    basic operators: entry k < N counts forward swaps into rank k, entry N counts replacements.

    All chains are walked; raises if two chains count differently (they never do: the counts are
    R̂, FFP17 §3.2).
    """
    counts = _all_counts(_check_binary(run))
    if len(counts) != 1:
        raise AssertionError(f"chains to {run!r} count operations differently: {sorted(counts)}")
    return next(iter(counts))


def runs_with_operation_counts(N: int, counts) -> list[tuple[int, ...]]:
    """Every binary run of length N whose chains from 0̂ use exactly ``counts`` operations per depth."""
    want = tuple(int(x) for x in counts)
    if len(want) != N:
        raise ValueError(f"expected {N} counts (one per depth), got {len(want)}")
    return [r for r in (tuple(int(x) for x in row) for row in graded_runs(N, 1).tolist())
            if chain_operation_counts(r) == want]
